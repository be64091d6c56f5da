import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createArticle, getArticle, publishVersion, listVersions, trashArticle, updateArticle } from '../../app/models/knowledge-base/articles.server';
import { archiveStream, restoreBackup } from '../../app/models/knowledge-base/backup.server';
import { receiveArchiveUpload, discardUpload } from '../../app/models/knowledge-base/archive.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase, getKnowledgeBase, updateKnowledgeBaseSettings } from '../../app/models/knowledge-base/knowledge-bases.server';
import { saveRedirect } from '../../app/models/knowledge-base/redirects.server';
import { searchPublicArticles } from '../../app/models/knowledge-base/public.server';
import { readKbImage, saveKbImage } from '../../app/models/knowledge-base/images.server';
import { getFileStorage } from '../../app/models/storage/files.server';
import { backupToFile, normalise, richKnowledgeBase } from '../helpers/kb-archive';
import { makePng } from '../helpers/png';

describe('knowledge base backup and restore', () => {
  it('restores into a new knowledge base, and a backup of that is the same content', async () => {
    const s = await richKnowledgeBase();
    const first = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    const result = await restoreBackup({ accountId: s.account.id, actorId: s.owner.id, file: first.file, target: { newName: 'Help copy' }, customCode: true });
    expect(result).toMatchObject({ ok: true, counts: { category: 2, article: 3, version: 5, feedback: 2, redirect: 1, image: 1 } });
    if (!result.ok) return;
    expect(result.knowledgeBaseId).not.toBe(s.kb.id);
    const copy = await getKnowledgeBase({ accountId: s.account.id, id: result.knowledgeBaseId });
    expect(copy).toMatchObject({ name: 'Help copy', helpName: 'Acme help', gaKey: 'G-ABC123', customJs: 'console.log(1)', cname: null });
    expect(copy).toMatchObject({
      logoToken: s.image.token,
      brandColor: '#0f766e',
      headerLinks: [{ label: 'Shop', url: 'https://shop.example.com' }],
      articleFeedback: false,
      showViewCount: true,
      articleOrder: 'popular',
      versionsKept: 50,
    });
    expect(copy!.slug).not.toBe(s.kb.slug);

    const second = await backupToFile({ accountId: s.account.id, knowledgeBaseId: result.knowledgeBaseId });
    const a = normalise(first.text);
    const b = normalise(second.text);
    // The new knowledge base's name is the one asked for; everything else is equal.
    (b[1] as { name: string }).name = (a[1] as { name: string }).name;
    expect(b).toEqual(a);

    // The published copy and the draft are apart as before, and search finds the published words.
    const scope = { accountId: s.account.id, knowledgeBaseId: result.knowledgeBaseId };
    const articles = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, result.knowledgeBaseId));
    const pay = articles.find((x) => x.title === 'Pay an invoice')!;
    expect(pay.bodyText).toBe('Open Billing, then Pay (draft)');
    expect(pay.publishedText).toBe('Open Billing and pay the refund');
    const found = await searchPublicArticles({ ...scope, q: 'refund', language: 'en', record: false });
    expect(found.hits.map((r) => r.id)).toEqual([pay.id]);
    // The dictionary is rebuilt: a misspelt word is corrected to the restored article's word.
    const typo = await searchPublicArticles({ ...scope, q: 'refumd', language: 'en', record: false });
    expect(typo.hits.map((r) => r.id)).toEqual([pay.id]);
    // The image is the new knowledge base's own, at the same address, with the same bytes.
    expect(pay.publishedHtml).toContain(`<img src="${s.image.url}"`);
    const copied = await readKbImage({ accountId: s.account.id, token: s.image.token, knowledgeBaseId: result.knowledgeBaseId });
    expect(copied?.image.id).not.toBe(s.image.id);
    expect(Buffer.from(copied!.bytes).equals(makePng(16, 16))).toBe(true);
    // Authors are matched by email in the account.
    const [v2] = await getDb()
      .select()
      .from(schema.kbArticleVersions)
      .where(and(eq(schema.kbArticleVersions.articleId, pay.id), eq(schema.kbArticleVersions.number, 2)));
    expect(v2.authorId).toBe(s.editor.id);
  });

  it('restores into the same knowledge base, replacing its content', async () => {
    const s = await richKnowledgeBase();
    const backup = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    await createArticle({ ...s.who, title: 'Written after the backup', body: '<p>later</p>', publish: true });
    await updateKnowledgeBaseSettings({ ...s.who, id: s.kb.id, patch: { helpName: 'Changed' } });
    const result = await restoreBackup({
      accountId: s.account.id,
      actorId: s.owner.id,
      file: backup.file,
      target: { knowledgeBaseId: s.kb.id },
      customCode: true,
    });
    expect(result).toMatchObject({ ok: true, knowledgeBaseId: s.kb.id });
    const titles = (await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, s.kb.id))).map((x) => x.title).sort();
    expect(titles).toEqual(['Old news', 'Pay an invoice', 'Reset a password']);
    expect(await getKnowledgeBase({ accountId: s.account.id, id: s.kb.id })).toMatchObject({ helpName: 'Acme help', slug: s.kb.slug });
    const again = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    expect(normalise(again.text)).toEqual(normalise(backup.text));
    // The replaced image's file is gone; the restored one is served.
    expect(await getFileStorage().exists(s.image.storageKey)).toBe(false);
    expect((await readKbImage({ accountId: s.account.id, token: s.image.token, knowledgeBaseId: s.kb.id }))?.image.size).toBe(makePng(16, 16).length);
    // The words of the article written after the backup are gone from the dictionary.
    const words = await getDb().select().from(schema.kbSearchWords).where(eq(schema.kbSearchWords.knowledgeBaseId, s.kb.id));
    expect(words.map((w) => w.word)).not.toContain('later');
    expect(words.map((w) => w.word)).toContain('refund');
  });

  it('refuses a malformed, cut-off, newer or foreign file and changes nothing', async () => {
    const s = await richKnowledgeBase();
    const { text } = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    const before = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    const kbCount = async () => (await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, s.account.id))).length;
    const write = (name: string, data: string | Buffer) => {
      const f = path.join(os.tmpdir(), `${process.pid}-${name}`);
      fs.writeFileSync(f, data);
      return f;
    };
    const lines = text.trim().split('\n');
    /** The first published article pointed at a version of another article. */
    const crossed = (all: string[]) => {
      const records = all.map((l) => JSON.parse(l) as Record<string, unknown>);
      const article = records.find((r) => r.t === 'article' && r.publishedVersionId)!;
      const other = records.find((r) => r.t === 'version' && r.articleId !== article.id)!;
      return records.map((r) => JSON.stringify(r === article ? { ...r, publishedVersionId: other.id } : r));
    };
    const cases: [string, string | Buffer, RegExp][] = [
      ['not-json.gz', zlib.gzipSync('hello\nworld\n'), /not a Parley knowledge base file|not valid JSON/],
      ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), /not valid JSON|not a Parley/],
      ['cut.gz', zlib.gzipSync(text).subarray(0, Math.floor(zlib.gzipSync(text).length / 2)), /damaged or cut off/],
      ['no-end.gz', zlib.gzipSync(lines.slice(0, -1).join('\n')), /incomplete/],
      [
        'newer.gz',
        zlib.gzipSync([JSON.stringify({ ...JSON.parse(lines[0]), version: 9 }), ...lines.slice(1)].join('\n')),
        /newer version of Parley \(format version 9\)/,
      ],
      ['export.gz', zlib.gzipSync([JSON.stringify({ ...JSON.parse(lines[0]), kind: 'export' }), ...lines.slice(1)].join('\n')), /export file, not a backup/],
      [
        'bad-article.gz',
        zlib.gzipSync(lines.map((l) => (l.includes('"t":"article"') ? l.replace(/"title":"[^"]*"/, `"title":"${'x'.repeat(200)}"`) : l)).join('\n')),
        /Line \d+ is not valid: article title/,
      ],
      [
        'out-of-order.gz',
        zlib.gzipSync(
          [lines[0], lines[1], ...lines.filter((l) => l.includes('"t":"redirect"')), ...lines.slice(2).filter((l) => !l.includes('"t":"redirect"'))].join('\n'),
        ),
        /out of order/,
      ],
      [
        'wrong-counts.gz',
        zlib.gzipSync([...lines.slice(0, -1), JSON.stringify({ t: 'end', counts: { article: 99 } })].join('\n')),
        /announces 99 article records/,
      ],
      ['crossed.gz', zlib.gzipSync(crossed(lines).join('\n')), /published from a version of another article/],
      [
        'dangling.gz',
        zlib.gzipSync(lines.map((l) => (l.includes('"t":"version"') ? l.replace(/"articleId":\d+/, '"articleId":999999') : l)).join('\n')),
        /refers to article 999999/,
      ],
    ];
    for (const [name, data, message] of cases) {
      for (const target of [{ knowledgeBaseId: s.kb.id }, { newName: null }]) {
        const result = await restoreBackup({ accountId: s.account.id, actorId: s.owner.id, file: write(name, data), target, customCode: true });
        expect(result.ok, name).toBe(false);
        if (!result.ok) expect(result.error, name).toMatch(message);
      }
    }
    expect(await kbCount()).toBe(1);
    // An image that is not an image is refused; the image files written before the failure are removed.
    const files = async () => {
      let n = 0;
      for await (const _ of getFileStorage().list(`${s.account.id}/`)) n += 1;
      return n;
    };
    const filesBefore = await files();
    const imageLine = lines.find((l) => l.includes('"t":"image"'))!;
    const badImage = JSON.stringify({ ...JSON.parse(imageLine), id: 999, data: Buffer.from('<svg onload=alert(1)>').toString('base64') });
    const withBad = zlib.gzipSync([...lines.slice(0, -1), badImage, lines.at(-1)].join('\n'));
    const refused = await restoreBackup({
      accountId: s.account.id,
      actorId: s.owner.id,
      file: write('bad-image.gz', withBad),
      target: { newName: null },
      customCode: true,
    });
    expect(refused).toEqual({ ok: false, error: expect.stringMatching(/is not a PNG, JPEG, GIF or WebP image/) });
    expect(await files()).toBe(filesBefore);
    expect(await kbCount()).toBe(1);
    const after = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    expect(normalise(after.text)).toEqual(normalise(before.text));
  });

  it("restores another account's backup into this account without touching the other one", async () => {
    const a = await richKnowledgeBase('Alpha');
    const b = await richKnowledgeBase('Beta');
    const backup = await backupToFile({ accountId: a.account.id, knowledgeBaseId: a.kb.id });
    const aBefore = await backupToFile({ accountId: a.account.id, knowledgeBaseId: a.kb.id });
    // Into B's own knowledge base: B's content is replaced, A's is untouched.
    const result = await restoreBackup({
      accountId: b.account.id,
      actorId: b.owner.id,
      file: backup.file,
      target: { knowledgeBaseId: b.kb.id },
      customCode: false,
    });
    expect(result).toMatchObject({ ok: true, knowledgeBaseId: b.kb.id });
    if (!result.ok) return;
    expect(result.notes.join(' ')).toMatch(/custom CSS and JavaScript were not restored/);
    const bArticles = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, b.kb.id));
    expect(bArticles.every((x) => x.accountId === b.account.id)).toBe(true);
    // A's users are not B's: no author survives the move.
    expect(bArticles.every((x) => x.authorId === null)).toBe(true);
    const bVersions = await getDb().select().from(schema.kbArticleVersions).where(eq(schema.kbArticleVersions.accountId, b.account.id));
    expect(bVersions.length).toBeGreaterThan(0);
    expect(bVersions.every((v) => v.authorId === null && bArticles.some((x) => x.id === v.articleId))).toBe(true);
    const aAfter = await backupToFile({ accountId: a.account.id, knowledgeBaseId: a.kb.id });
    expect(normalise(aAfter.text)).toEqual(normalise(aBefore.text));
    expect((await getArticle({ accountId: a.account.id, knowledgeBaseId: a.kb.id, id: a.pay.id }))?.accountId).toBe(a.account.id);
    // B cannot name A's knowledge base as the target.
    await expect(
      restoreBackup({ accountId: b.account.id, actorId: b.owner.id, file: backup.file, target: { knowledgeBaseId: a.kb.id }, customCode: true }),
    ).rejects.toBeInstanceOf(Response);
    // A backup of A's knowledge base cannot be read through B's account.
    await expect(backupToFile({ accountId: b.account.id, knowledgeBaseId: a.kb.id })).rejects.toBeInstanceOf(Response);
  });

  it('refuses an oversized upload, a line over the limit and a compressed bomb with a clear message', async () => {
    const boundary = 'xyz';
    const body = (size: number) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nrestore\r\n--${boundary}\r\nContent-Disposition: form-data; name="backup"; filename="b.gz"\r\n\r\n`,
        ),
        Buffer.alloc(size, 1),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const request = (size: number, withLength: boolean) => {
      const bytes = body(size);
      const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
      if (withLength) headers['content-length'] = String(bytes.length);
      return new Request('http://x.test/', { method: 'POST', headers, body: bytes });
    };
    // Announced too large: refused before reading. Streamed past the limit: the file is dropped.
    for (const withLength of [true, false]) {
      const upload = await receiveArchiveUpload(request(600 * 1024, withLength), { fileField: 'backup', maxBytes: 100 * 1024 });
      expect(upload).toMatchObject({ file: null, error: 'The file is larger than 100 KB' });
    }
    const fits = await receiveArchiveUpload(request(1000, true), { fileField: 'backup', maxBytes: 100 * 1024 });
    expect(fits.file?.size).toBe(1000);
    expect(fits.fields.get('intent')).toBe('restore');
    await discardUpload(fits);
    expect(fs.existsSync(fits.file!.path)).toBe(false);

    const s = await richKnowledgeBase();
    const f = path.join(os.tmpdir(), `${process.pid}-bomb.gz`);
    // 100 MB of one character, a few hundred kilobytes packed: the first line is over the limit.
    fs.writeFileSync(f, zlib.gzipSync(Buffer.alloc(100 * 1024 * 1024, 'a'), { level: 9 }));
    const result = await restoreBackup({ accountId: s.account.id, actorId: s.owner.id, file: f, target: { newName: null }, customCode: true });
    expect(result).toEqual({ ok: false, error: 'Line 1 is too long' });
  });

  it('frees its connection when the reader goes away half-way (more cancelled downloads than the pool has connections)', async () => {
    const s = await richKnowledgeBase();
    // About 2 MB of articles: far more than the stream buffers ahead, so the generator is still inside its snapshot.
    await getDb().execute(sql`insert into kb_articles (account_id, knowledge_base_id, title, slug, body_html, body_text)
      select ${s.account.id}, ${s.kb.id}, 'Filler ' || g, 'filler-' || g,
        (select string_agg('<p>' || md5(g::text || '-' || p) || '</p>', '') from generate_series(1, 100) p), 'filler'
      from generate_series(1, 600) g`);
    for (let i = 0; i < 25; i++) {
      const reader = archiveStream({ accountId: s.account.id, knowledgeBaseId: s.kb.id, kind: 'backup' }).getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      await reader.cancel();
    }
    // Still answering: no connection was left inside an open snapshot.
    const again = await backupToFile({ accountId: s.account.id, knowledgeBaseId: s.kb.id });
    expect(again.text.trim().split('\n').at(-1)).toContain('"t":"end"');
  });
});
