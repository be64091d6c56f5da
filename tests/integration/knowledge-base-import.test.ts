import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { startEngine } from '../../engine/index';
import { createArticle, getArticle, listVersions } from '../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { importArchive } from '../../app/models/knowledge-base/import-export.server';
import { readKbImage } from '../../app/models/knowledge-base/images.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { runZendeskImport, startZendeskImport, ZENDESK_LIMITS } from '../../app/models/knowledge-base/zendesk.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { getBytes, postMultipart } from '../helpers/kb-upload';
import { startZendeskHelpCenter, type ZArticle } from '../helpers/stand-ins/zendesk';
import { backupToFile, normalise, richKnowledgeBase } from '../helpers/kb-archive';
import { makePng } from '../helpers/png';

let app: Awaited<ReturnType<typeof startTestApp>>;
let engine: Awaited<ReturnType<typeof startEngine>>;
beforeAll(async () => {
  app = await startTestApp();
  engine = await startEngine({ mode: 'inline', concurrency: 1 });
});
afterAll(async () => {
  await engine?.stop();
  await app?.close();
});

function tmpFile(name: string, data: string | Buffer) {
  const f = path.join(os.tmpdir(), `${process.pid}-${Math.random().toString(36).slice(2)}-${name}`);
  fs.writeFileSync(f, data);
  return f;
}

async function emptyKb(accountId: number, actorId: number, name = 'Target') {
  const kb = await createKnowledgeBase({ accountId, actorId, name });
  return { kb, who: { accountId, actorId, knowledgeBaseId: kb.id } };
}

async function versionCount(knowledgeBaseId: number) {
  const rows = await getDb()
    .select({ id: schema.kbArticleVersions.id })
    .from(schema.kbArticleVersions)
    .innerJoin(schema.kbArticles, eq(schema.kbArticles.id, schema.kbArticleVersions.articleId))
    .where(eq(schema.kbArticles.knowledgeBaseId, knowledgeBaseId));
  return rows.length;
}

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('knowledge base export and import (file)', () => {
  it('exports categories and live articles, imports them into another knowledge base, and a second import changes nothing', async () => {
    const s = await richKnowledgeBase();
    const exported = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id }, 'export');
    const records = exported.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ t: 'manifest', format: 'parley-kb', version: 1, kind: 'export' });
    expect(records.filter((r) => r.t === 'article').map((r) => r.title)).toEqual(['Pay an invoice', 'Reset a password']); // not the trashed one
    expect(records.some((r) => r.t === 'version' || r.t === 'feedback' || r.t === 'redirect')).toBe(false);
    // The articles' images come along, so that the file is whole in another account or installation.
    expect(records.filter((r) => r.t === 'image').map((r) => r.token)).toEqual([s.image.token]);

    const target = await emptyKb(s.account.id, s.owner.id);
    const first = await importArchive({ ...target.who, file: exported.file });
    expect(first).toEqual({
      ok: true,
      counts: { categoriesCreated: 2, categoriesUpdated: 0, articlesCreated: 2, articlesUpdated: 0, articlesUnchanged: 0, articlesSkipped: 0, imagesAdded: 1 },
    });
    // The import's own export is the same content.
    const again = await backupToFile({ accountId: s.account.id, knowledgeBaseId: target.kb.id }, 'export');
    // An import publishes at its own time.
    const strip = (text: string) =>
      normalise(text)
        .filter((r) => r.t !== 'settings')
        .map(({ publishedAt: _publishedAt, ...r }) => r);
    expect(strip(again.text)).toEqual(strip(exported.text));
    // The published copy and the draft on top are both there: the public sees the published words.
    const pay = (
      await getDb()
        .select()
        .from(schema.kbArticles)
        .where(and(eq(schema.kbArticles.knowledgeBaseId, target.kb.id), eq(schema.kbArticles.slug, 'pay-an-invoice')))
    )[0];
    expect(pay).toMatchObject({ status: 'published', publishedText: 'Open Billing and pay the refund', bodyText: 'Open Billing, then Pay (draft)' });
    expect((await listVersions({ ...target.who, articleId: pay.id }))!.versions).toHaveLength(2);

    const versionsBefore = await versionCount(target.kb.id);
    const second = await importArchive({ ...target.who, file: exported.file });
    expect(second).toMatchObject({ ok: true, counts: { categoriesUpdated: 2, articlesUnchanged: 2, articlesCreated: 0, articlesUpdated: 0, imagesAdded: 0 } });

    // Into another account: the image is that account's own, at the same address.
    const other = await createTestAccount();
    const elsewhere = await emptyKb(other.account.id, other.owner.id);
    expect(await importArchive({ ...elsewhere.who, file: exported.file })).toMatchObject({ ok: true, counts: { articlesCreated: 2, imagesAdded: 1 } });
    const copy = await readKbImage({ accountId: other.account.id, token: s.image.token, knowledgeBaseId: elsewhere.kb.id });
    expect(copy?.image.accountId).toBe(other.account.id);
    expect(await versionCount(target.kb.id)).toBe(versionsBefore);
  });

  it('merges by slug: a known article gets a new version, a new one is created, a known category is renamed', async () => {
    const acc = await createTestAccount();
    const { kb, who } = await emptyKb(acc.account.id, acc.owner.id);
    const cat = await createCategory({ ...who, name: 'Billing' });
    const existing = await createArticle({ ...who, title: 'Refunds', categoryId: cat.id, body: '<p>Old text</p>', publish: true });
    const file = tmpFile(
      'merge.jsonl',
      [
        { t: 'manifest', format: 'parley-kb', version: 1, kind: 'export', createdAt: '2026-01-01T00:00:00Z' },
        { t: 'settings', name: 'Elsewhere', language: 'en' },
        { t: 'category', id: 1, name: 'Billing and payments', slug: 'billing' },
        { t: 'category', id: 2, name: 'Shipping', slug: 'shipping' },
        {
          t: 'article',
          id: 10,
          categoryId: 1,
          title: 'Refunds',
          slug: 'refunds',
          bodyHtml: '<p>New text</p><script>x()</script>',
          status: 'published',
          publishedTitle: 'Refunds',
          publishedSlug: 'refunds',
          publishedHtml: '<p>New text</p>',
        },
        {
          t: 'article',
          id: 11,
          categoryId: 2,
          title: 'Track a parcel',
          slug: 'track-a-parcel',
          bodyHtml: '<p>Use the link</p>',
          status: 'draft',
          seoTitle: 'Tracking',
        },
        { t: 'end', counts: { category: 2, article: 2 } },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const result = await importArchive({ ...who, file });
    expect(result).toEqual({
      ok: true,
      counts: { categoriesCreated: 1, categoriesUpdated: 1, articlesCreated: 1, articlesUpdated: 1, articlesUnchanged: 0, articlesSkipped: 0, imagesAdded: 0 },
    });
    const refunds = await getArticle({ ...who, id: existing.id });
    expect(refunds).toMatchObject({ bodyHtml: '<p>New text</p>', publishedHtml: '<p>New text</p>', status: 'published' });
    expect((await listVersions({ ...who, articleId: existing.id }))!.versions).toHaveLength(2);
    const cats = await getDb()
      .select()
      .from(schema.kbCategories)
      .where(eq(schema.kbCategories.knowledgeBaseId, kb.id))
      .orderBy(asc(schema.kbCategories.position));
    expect(cats.map((c) => c.name)).toEqual(['Billing and payments', 'Shipping']);
    const track = (await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.slug, 'track-a-parcel'))).find(
      (x) => x.knowledgeBaseId === kb.id,
    )!;
    expect(track).toMatchObject({ status: 'draft', seoTitle: 'Tracking', categoryId: cats[1].id, publishedHtml: null });
  });

  it('refuses a broken file with a clear message and changes nothing', async () => {
    const acc = await createTestAccount();
    const { kb, who } = await emptyKb(acc.account.id, acc.owner.id);
    await createArticle({ ...who, title: 'Keep me', body: '<p>x</p>' });
    const good = [
      JSON.stringify({ t: 'manifest', format: 'parley-kb', version: 1, kind: 'export', createdAt: '2026-01-01T00:00:00Z' }),
      JSON.stringify({ t: 'settings', name: 'X' }),
      JSON.stringify({ t: 'article', id: 1, title: 'Keep me', slug: 'keep-me', bodyHtml: '<p>changed</p>' }),
    ];
    const cases: [string, string, RegExp][] = [
      ['csv', 'title,body\nA,B\n', /not valid JSON|not a Parley/],
      ['json-array', '[{"t":"manifest"}]', /not a Parley knowledge base file/],
      ['no-end', good.join('\n'), /incomplete/],
      ['bad-line', [...good.slice(0, 2), '{"t":"article","id":1,', '{"t":"end","counts":{}}'].join('\n'), /Line 3 is not valid JSON/],
      [
        'no-title',
        [...good.slice(0, 2), JSON.stringify({ t: 'article', id: 1, title: '', slug: 'a' }), '{"t":"end","counts":{}}'].join('\n'),
        /Line 3 is not valid: article title/,
      ],
      ['dup-slug', [...good, good[2].replace('"id":1', '"id":2'), '{"t":"end","counts":{}}'].join('\n'), /second article with the slug "keep-me"/],
      [
        'unknown-category',
        [...good.slice(0, 2), JSON.stringify({ t: 'article', id: 1, title: 'A', slug: 'a', categoryId: 5 }), '{"t":"end","counts":{}}'].join('\n'),
        /category 5 is not in the file/,
      ],
      ['empty', '', /empty/],
    ];
    const before = await versionCount(kb.id);
    for (const [name, text, message] of cases) {
      const result = await importArchive({ ...who, file: tmpFile(name, text) });
      expect(result.ok, name).toBe(false);
      if (!result.ok) expect(result.error, name).toMatch(message);
    }
    expect(await versionCount(kb.id)).toBe(before);
    const [row] = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, kb.id));
    expect(row.bodyHtml).toBe('<p>x</p>');
  });
});

function zendeskData(articleCount: number) {
  const articles: ZArticle[] = Array.from({ length: articleCount }, (_, i) => ({
    id: 5000 + i,
    section_id: [101, 102, 201, 202][i % 4],
    title: i === 0 ? 'How do I reset my password?' : `Guide number ${i}`,
    body:
      i === 0
        ? '<p>Open <b>Settings</b>.</p><script>alert(1)</script><img src="/hc/article_attachments/1/reset.png" alt="Reset"><img src="https://cdn.example.com/logo.png" alt="Logo"><img src="/hc/article_attachments/9/gone.png" alt="Gone">'
        : i === 1
        ? '<p>Same picture</p><img src="/hc/article_attachments/1/reset.png" alt="Again">'
        : `<p>Step ${i}</p>`,
    draft: i === 3,
  }));
  return {
    categories: [
      { id: 2, name: 'Orders', description: '', position: 1 },
      { id: 1, name: 'Getting started', description: 'Start here', position: 0 },
    ],
    sections: [
      { id: 101, category_id: 1, name: 'Accounts', description: 'Sign in and passwords', position: 0 },
      { id: 102, category_id: 1, name: 'FAQ', description: '', position: 1 },
      { id: 201, category_id: 2, name: 'Shipping', description: '', position: 0 },
      { id: 202, category_id: 2, name: 'FAQ', description: '', position: 1 },
    ],
    articles,
    attachments: { 1: makePng(12, 12) },
  };
}

/** The import's row once its job (run by the inline engine) has ended. */
function finished(importId: number) {
  return waitFor(async () => {
    const [row] = await getDb().select().from(schema.kbImports).where(eq(schema.kbImports.id, importId));
    return row.status === 'done' || row.status === 'failed' ? row : null;
  });
}

describe('import from a Zendesk help centre', () => {
  it('reads categories, sections and every page of articles (waiting out a 429), flattens sections into categories and sanitises the HTML', async () => {
    const zd = await startZendeskHelpCenter({ ...zendeskData(230), rateLimitOnce: ['articles:2'] });
    try {
      const acc = await createTestAccount();
      const { kb, who } = await emptyKb(acc.account.id, acc.owner.id);
      const started = await startZendeskImport({ ...who, url: `${zd.url}/hc/en-us` });
      expect(started.ok).toBe(true);
      if (!started.ok) return;
      const row = await finished(started.importId);
      expect(row).toMatchObject({ status: 'done', message: null, fetched: { categories: 2, sections: 4, articles: 230, images: 1 } });
      expect(row.result).toMatchObject({ articlesCreated: 230, categoriesCreated: 4, imagesAdded: 1 });
      // Three pages of articles, the second one asked twice (429 then 200).
      expect(zd.requests.filter((r) => r.startsWith('/api/v2/help_center/en-us/articles.json'))).toEqual([
        '/api/v2/help_center/en-us/articles.json?per_page=100',
        '/api/v2/help_center/en-us/articles.json?page=2&per_page=100',
        '/api/v2/help_center/en-us/articles.json?page=2&per_page=100',
        '/api/v2/help_center/en-us/articles.json?page=3&per_page=100',
      ]);
      const cats = await getDb()
        .select()
        .from(schema.kbCategories)
        .where(eq(schema.kbCategories.knowledgeBaseId, kb.id))
        .orderBy(asc(schema.kbCategories.position));
      expect(cats.map((c) => c.name)).toEqual(['Accounts', 'Getting started › FAQ', 'Shipping', 'Orders › FAQ']);
      const articles = await getDb()
        .select()
        .from(schema.kbArticles)
        .where(eq(schema.kbArticles.knowledgeBaseId, kb.id))
        .orderBy(asc(schema.kbArticles.position));
      expect(articles).toHaveLength(230);
      expect(articles[0]).toMatchObject({
        title: 'How do I reset my password?',
        slug: 'how-do-i-reset-my-password',
        status: 'published',
        categoryId: cats[0].id,
      });
      // The help centre's own image is copied into the knowledge base (once for both articles); others keep their address.
      const images = await getDb().select().from(schema.kbImages).where(eq(schema.kbImages.knowledgeBaseId, kb.id));
      expect(images).toHaveLength(1);
      expect(images[0]).toMatchObject({ filename: 'reset.png', contentType: 'image/png', size: makePng(12, 12).length });
      expect(articles[0].publishedHtml).toBe(
        `<p>Open <b>Settings</b>.</p><img src="/kb-images/${images[0].token}" alt="Reset" /><img src="https://cdn.example.com/logo.png" alt="Logo" /><img src="${zd.url}/hc/article_attachments/9/gone.png" alt="Gone" />`,
      );
      expect(articles[1].publishedHtml).toContain(`<img src="/kb-images/${images[0].token}" alt="Again" />`);
      expect(articles[3]).toMatchObject({ status: 'draft', publishedHtml: null });
      // Running the same import again updates nothing.
      const again = await startZendeskImport({ ...who, url: zd.url });
      if (!again.ok) throw new Error(again.message);
      const second = await finished(again.importId);
      expect(second.result).toMatchObject({ articlesUnchanged: 230, articlesCreated: 0, articlesUpdated: 0, imagesAdded: 0 });
      expect(await getDb().select().from(schema.kbImages).where(eq(schema.kbImages.knowledgeBaseId, kb.id))).toHaveLength(1);
    } finally {
      await zd.close();
    }
  });

  it('fails with a clear message and writes nothing for a 404 address, too many articles, or an address that is not public', async () => {
    const zd = await startZendeskHelpCenter(zendeskData(30));
    const acc = await createTestAccount();
    const { kb, who } = await emptyKb(acc.account.id, acc.owner.id);
    const run = async (url: string) => {
      const started = await startZendeskImport({ ...who, url });
      if (!started.ok) return { status: 'refused', message: started.message };
      return finished(started.importId);
    };
    try {
      expect(await run(`${zd.url}/hc/fr-fr`)).toMatchObject({
        status: 'failed',
        message: 'No Zendesk help centre answers at this address (404 for /api/v2/help_center/fr-fr/categories.json)',
      });
      const limit = ZENDESK_LIMITS.maxArticles;
      ZENDESK_LIMITS.maxArticles = 20;
      try {
        expect(await run(zd.url)).toMatchObject({
          status: 'failed',
          message: 'The help centre has more than 20 articles; this import takes at most that many',
        });
      } finally {
        ZENDESK_LIMITS.maxArticles = limit;
      }
      expect(await run('ftp://example.com/hc')).toMatchObject({ status: 'refused', message: 'Enter an address that starts with https:// (or http://)' });
      process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'false';
      resetSingleton('config');
      try {
        expect(await run(zd.url)).toMatchObject({ status: 'refused', message: expect.stringMatching(/only connects to public internet addresses/) });
        // A job queued for a private address (e.g. before the switch changed) is refused when it connects.
        const [row] = await getDb()
          .insert(schema.kbImports)
          .values({ accountId: acc.account.id, knowledgeBaseId: kb.id, url: zd.url, locale: 'en-us' })
          .returning();
        await runZendeskImport({ accountId: acc.account.id, importId: row.id });
        const [after] = await getDb().select().from(schema.kbImports).where(eq(schema.kbImports.id, row.id));
        expect(after).toMatchObject({ status: 'failed', message: 'The address was refused: Parley only connects to public internet addresses' });
      } finally {
        process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
        resetSingleton('config');
      }
      expect(await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, kb.id))).toHaveLength(0);
      expect(await getDb().select().from(schema.kbCategories).where(eq(schema.kbCategories.knowledgeBaseId, kb.id))).toHaveLength(0);
    } finally {
      await zd.close();
    }
  });
});

describe('Import & Export and Backup & Restore screens', () => {
  async function signedIn(features?: Record<string, Record<string, boolean>>) {
    const s = await richKnowledgeBase();
    if (features) {
      const [plan] = await getDb()
        .insert(schema.plans)
        .values({ key: `kbport-${Math.random().toString(36).slice(2)}`, name: 'Test plan', features })
        .returning();
      await getDb().update(schema.accounts).set({ planId: plan.id }).where(eq(schema.accounts.id, s.account.id));
    }
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const host = `${s.domain}.${process.env.APP_HOST ?? 'localhost:3000'}`;
    return { ...s, cookie, host };
  }

  it('downloads a backup, restores it into a new knowledge base, and the articles are listed there', async () => {
    const s = await signedIn();
    const page = await app.request(`/knowledgebase/${s.kb.id}/backup-and-restore`, { domain: s.domain, cookie: s.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Download backup');
    const download = await getBytes({ port: app.port, host: s.host, path: `/knowledgebase/${s.kb.id}/backup-and-restore/download`, cookie: s.cookie });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect(download.headers['content-disposition']).toMatch(/attachment; filename=".*-backup-\d+\.parley-kb\.jsonl\.gz"/);
    const noConfirm = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${s.kb.id}/backup-and-restore`,
      cookie: s.cookie,
      fields: { intent: 'restore', target: 'this' },
      file: { field: 'backup', filename: 'b.gz', data: download.body },
    });
    expect(noConfirm.status).toBe(400);
    expect(noConfirm.text).toContain('Tick the box to confirm');
    const restored = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${s.kb.id}/backup-and-restore`,
      cookie: s.cookie,
      fields: { intent: 'restore', target: 'new', name: 'Restored' },
      file: { field: 'backup', filename: 'b.gz', data: download.body },
    });
    expect(restored.status).toBe(302);
    const newId = Number(/\/knowledgebase\/(\d+)\/articles$/.exec(restored.headers.location ?? '')?.[1]);
    expect(newId).toBeGreaterThan(s.kb.id);
    const list = await app.request(`/knowledgebase/${newId}/articles`, { domain: s.domain, cookie: s.cookie });
    expect(list.text).toContain('Pay an invoice');
    expect(list.text).toContain('Reset a password');
    // A broken upload: 400 with the message, no new knowledge base.
    const broken = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${s.kb.id}/backup-and-restore`,
      cookie: s.cookie,
      fields: { intent: 'restore', target: 'new' },
      file: { field: 'backup', filename: 'b.gz', data: download.body.subarray(0, 200) },
    });
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('damaged or cut off');
    expect(await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, s.account.id))).toHaveLength(2);
  });

  it('exports, imports a file, and starts a Zendesk import whose job finishes', async () => {
    const s = await signedIn();
    const exported = await getBytes({ port: app.port, host: s.host, path: `/knowledgebase/${s.kb.id}/import-export/export`, cookie: s.cookie });
    expect(exported.status).toBe(200);
    expect(exported.body.toString('utf8').split('\n')[0]).toContain('"kind":"export"');
    const target = await emptyKb(s.account.id, s.owner.id);
    const imported = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${target.kb.id}/import-export`,
      cookie: s.cookie,
      fields: { intent: 'import-file' },
      file: { field: 'file', filename: 'kb.jsonl', data: exported.body },
    });
    expect(imported.status).toBe(302);
    expect((await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, target.kb.id))).map((a) => a.title).sort()).toEqual([
      'Pay an invoice',
      'Reset a password',
    ]);
    const broken = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${target.kb.id}/import-export`,
      cookie: s.cookie,
      fields: { intent: 'import-file' },
      file: { field: 'file', filename: 'kb.csv', data: 'a,b\n1,2\n' },
    });
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('Line 1 is not valid JSON');
    const badUrl = await app.request(`/knowledgebase/${target.kb.id}/import-export`, {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'import-zendesk', url: 'javascript:alert(1)' },
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.text).toContain('Enter an address that starts with https://');

    const zd = await startZendeskHelpCenter(zendeskData(12));
    try {
      const start = await app.request(`/knowledgebase/${target.kb.id}/import-export`, {
        domain: s.domain,
        cookie: s.cookie,
        form: { intent: 'import-zendesk', url: `${zd.url}/hc/en-us` },
      });
      expect(start.status).toBe(302);
      const done = await waitFor(async () => {
        const [row] = await getDb().select().from(schema.kbImports).where(eq(schema.kbImports.knowledgeBaseId, target.kb.id));
        return row?.status === 'done' || row?.status === 'failed' ? row : null;
      });
      expect(done).toMatchObject({ status: 'done', result: { articlesCreated: 12 } });
      const page = await app.request(`/knowledgebase/${target.kb.id}/import-export`, { domain: s.domain, cookie: s.cookie });
      expect(page.text).toContain('12 created');
    } finally {
      await zd.close();
    }
  });

  it('shows the plan locks and refuses the downloads and posts without backupRestore / importExport, or without customize_docs', async () => {
    const s = await signedIn({ knowledgeBase: { enabled: true } });
    for (const p of ['backup-and-restore', 'import-export']) {
      const page = await app.request(`/knowledgebase/${s.kb.id}/${p}`, { domain: s.domain, cookie: s.cookie });
      expect(page.status, p).toBe(200);
      expect(page.text).toContain('data-testid="plan-locked"');
    }
    expect((await getBytes({ port: app.port, host: s.host, path: `/knowledgebase/${s.kb.id}/backup-and-restore/download`, cookie: s.cookie })).status).toBe(
      403,
    );
    expect((await getBytes({ port: app.port, host: s.host, path: `/knowledgebase/${s.kb.id}/import-export/export`, cookie: s.cookie })).status).toBe(403);
    const { text } = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    const zlib = await import('node:zlib');
    const restore = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${s.kb.id}/backup-and-restore`,
      cookie: s.cookie,
      fields: { intent: 'restore', target: 'new' },
      file: { field: 'backup', filename: 'b.gz', data: zlib.gzipSync(text) },
    });
    expect(restore.status).toBe(403);
    const importFile = await postMultipart({
      port: app.port,
      host: s.host,
      path: `/knowledgebase/${s.kb.id}/import-export`,
      cookie: s.cookie,
      fields: { intent: 'import-file' },
      file: { field: 'file', filename: 'b.gz', data: zlib.gzipSync(text) },
    });
    expect(importFile.status).toBe(403);
    expect(
      (
        await app.request(`/knowledgebase/${s.kb.id}/import-export`, {
          domain: s.domain,
          cookie: s.cookie,
          form: { intent: 'import-zendesk', url: 'https://acme.zendesk.com' },
        })
      ).status,
    ).toBe(403);
    expect(await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, s.account.id))).toHaveLength(1);
    expect(await getDb().select().from(schema.kbImports).where(eq(schema.kbImports.accountId, s.account.id))).toHaveLength(0);

    // An agent (no customize_docs) of a plan with the features is refused too.
    const full = await signedIn();
    const { createTestUser } = await import('../factories');
    const agent = await createTestUser({ accountId: full.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: full.domain, accountId: full.account.id, userId: agent.id });
    expect(
      (await getBytes({ port: app.port, host: full.host, path: `/knowledgebase/${full.kb.id}/backup-and-restore/download`, cookie: agentCookie })).status,
    ).toBe(403);
    const agentRestore = await postMultipart({
      port: app.port,
      host: full.host,
      path: `/knowledgebase/${full.kb.id}/backup-and-restore`,
      cookie: agentCookie,
      fields: { intent: 'restore', target: 'new' },
      file: { field: 'backup', filename: 'b.gz', data: zlib.gzipSync(text) },
    });
    expect(agentRestore.status).toBe(403);
  });
});
