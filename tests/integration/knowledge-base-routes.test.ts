import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { PlanFeatures } from '../../db/schema/accounts';
import { createArticle, getArticle, listVersions } from '../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { createTestAccount, createTestUser, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup(features?: PlanFeatures) {
  const a = await createTestAccount();
  if (features) await givePlan(a.account.id, features);
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, owner: a.owner, ownerCookie: owner, agentCookie, get, post };
}

describe('knowledge base screens', () => {
  it('creates a knowledge base (straight into the only one), a category and an article, with the specification messages on bad input', async () => {
    const s = await setup();
    const bad = await s.post('/knowledgebase?index', { intent: 'create', name: 'x'.repeat(21), detail: 'y'.repeat(151) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be less than or equal to 20 characters');
    expect(bad.text).toContain('Length must be less than or equal to 150 characters');
    expect((await s.post('/knowledgebase?index', { intent: 'create', name: '  ' })).text).toContain('Name is not allowed to be empty');
    const made = await s.post('/knowledgebase?index', { intent: 'create', name: 'Help', detail: 'Answers' });
    expect(made.status).toBe(302);
    const [kb] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, s.account.id));
    expect(made.headers.location).toBe(`/knowledgebase/${kb.id}/articles`);
    // A second one goes back to the list.
    expect((await s.post('/knowledgebase?index', { intent: 'create', name: 'Internal' })).headers.location).toBe('/knowledgebase');

    const shell = await s.get(`/knowledgebase/${kb.id}/articles`);
    expect(shell.status).toBe(200);
    for (const label of [
      'Articles',
      'Categories',
      'Customization',
      'General',
      'Advanced',
      'SEO',
      'Version Control',
      'Backup &amp; Restore',
      'Custom CSS &amp; JS',
      'Redirect Rules',
      'Import &amp; Export',
    ]) {
      expect(shell.text).toContain(`<span>${label}</span>`);
    }

    expect((await s.post(`/knowledgebase/${kb.id}/categories/new`, { intent: 'save', name: 'Billing' })).status).toBe(302);
    const [cat] = await getDb().select().from(schema.kbCategories).where(eq(schema.kbCategories.knowledgeBaseId, kb.id));
    const noTitle = await s.post(`/knowledgebase/${kb.id}/articles/new`, { intent: 'publish', title: '', body: '<p>x</p>' });
    expect(noTitle.status).toBe(400);
    expect(noTitle.text).toContain('Title is not allowed to be empty');
    const seo = await s.post(`/knowledgebase/${kb.id}/articles/new`, { intent: 'publish', title: 'Ok', body: '', seoTitle: 'ab' });
    expect(seo.text).toContain('Length must be at least 3 characters');
    const created = await s.post(`/knowledgebase/${kb.id}/articles/new`, {
      intent: 'publish',
      title: 'Pay an invoice',
      categoryId: String(cat.id),
      body: '<p>Open <b>Billing</b></p><script>steal()</script>',
    });
    expect(created.status).toBe(302);
    const id = Number(created.headers.location?.split('/').pop());
    const article = await getArticle({ accountId: s.account.id, knowledgeBaseId: kb.id, id });
    expect(article).toMatchObject({ status: 'published', categoryId: cat.id, bodyHtml: '<p>Open <b>Billing</b></p>' });
    const list = await s.get(`/knowledgebase/${kb.id}/articles?filter=publish&sort=titleAZ`);
    expect(list.text).toContain('Pay an invoice');
    expect((await s.get(`/knowledgebase/${kb.id}/articles?filter=draft`)).text).not.toContain('Pay an invoice');

    // Trash and restore through the list.
    expect((await s.post(`/knowledgebase/${kb.id}/articles?index&filter=publish`, { intent: 'trash', id: String(id) })).status).toBe(302);
    expect((await s.get(`/knowledgebase/${kb.id}/articles?filter=trash`)).text).toContain('Pay an invoice');
    expect((await s.post(`/knowledgebase/${kb.id}/articles?index&filter=trash`, { intent: 'restore', id: String(id) })).status).toBe(302);
    expect((await getArticle({ accountId: s.account.id, knowledgeBaseId: kb.id, id }))?.trashedAt).toBeNull();

    // Two edits make versions 2 and 3; compare them, restore version 1.
    await s.post(`/knowledgebase/${kb.id}/articles/${id}`, { intent: 'save', title: 'Pay an invoice', body: '<p>Open Billing then Pay</p>' });
    await s.post(`/knowledgebase/${kb.id}/articles/${id}`, { intent: 'save', title: 'Paying invoices', body: '<p>Open Billing then Pay now</p>' });
    const versions = (await listVersions({ accountId: s.account.id, knowledgeBaseId: kb.id, articleId: id }))!.versions;
    expect(versions.map((v) => v.number)).toEqual([3, 2, 1]);
    const compare = await s.get(`/knowledgebase/${kb.id}/articles/${id}/version-control/compare?a=${versions[1].id}&b=${versions[0].id}`);
    expect(compare.headers.location).toBe(`/knowledgebase/${kb.id}/articles/${id}/version-control/${versions[1].id}-${versions[0].id}`);
    const diff = await s.get(compare.headers.location!);
    expect(diff.status).toBe(200);
    expect(diff.text).toContain('<ins>now</ins>');
    expect(diff.text).toMatch(/<del>Pay an invoice<\/del>|<del>Pay<\/del>/);
    const restored = await s.post(`/knowledgebase/${kb.id}/articles/${id}/version/${versions[2].id}`, { intent: 'restore' });
    expect(restored.status).toBe(302);
    expect((await getArticle({ accountId: s.account.id, knowledgeBaseId: kb.id, id }))?.bodyText).toBe('Open Billing');
  });

  it('enforces the role permissions on the server', async () => {
    const s = await setup();
    const kb = await createKnowledgeBase({ accountId: s.account.id, actorId: s.owner.id, name: 'Help' });
    // Agents read articles (view_articles) but neither write them, nor categories, nor create knowledge bases.
    expect((await s.get(`/knowledgebase/${kb.id}/articles`, s.agentCookie)).status).toBe(200);
    expect((await s.post(`/knowledgebase/${kb.id}/articles/new`, { intent: 'save', title: 'Nope', body: '' }, s.agentCookie)).status).toBe(403);
    expect((await s.post(`/knowledgebase/${kb.id}/categories/new`, { intent: 'save', name: 'Nope' }, s.agentCookie)).status).toBe(403);
    expect((await s.post('/knowledgebase?index', { intent: 'create', name: 'Nope' }, s.agentCookie)).status).toBe(403);
    const articles = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, kb.id));
    expect(articles).toEqual([]);
    expect(
      await getDb()
        .select()
        .from(schema.knowledgeBases)
        .where(and(eq(schema.knowledgeBases.accountId, s.account.id), eq(schema.knowledgeBases.name, 'Nope'))),
    ).toEqual([]);
  });

  it('locks version control, backup, custom CSS & JS and import/export without the plan feature, and the server refuses', async () => {
    const s = await setup({ knowledgeBase: { enabled: true } });
    const kb = await createKnowledgeBase({ accountId: s.account.id, actorId: s.owner.id, name: 'Help' });
    const who = { accountId: s.account.id, knowledgeBaseId: kb.id, actorId: s.owner.id };
    const art = await createArticle({ ...who, title: 'One', body: '<p>a</p>' });
    const [v1] = (await listVersions({ ...who, articleId: art.id }))!.versions;
    const shell = await s.get(`/knowledgebase/${kb.id}/articles/${art.id}`);
    expect(shell.status).toBe(200);
    expect(shell.text.match(/data-denied="feature"/g)?.length).toBeGreaterThanOrEqual(5);
    // Custom CSS & JS shows its locked state (ADR 056) and refuses to save.
    const custom = await s.get(`/knowledgebase/${kb.id}/custom-css-js`);
    expect(custom.text).toContain('data-testid="plan-locked"');
    expect(custom.text).toContain(FEATURE_DENIED_MESSAGE);
    expect((await s.post(`/knowledgebase/${kb.id}/custom-css-js`, { customJs: 'x()' })).status).toBe(403);
    // Backup & Restore and Import & Export show their locked state too (ADR 059); the posts are refused.
    for (const page of ['backup-and-restore', 'import-export']) {
      expect((await s.get(`/knowledgebase/${kb.id}/${page}`)).text).toContain('data-testid="plan-locked"');
      expect((await s.post(`/knowledgebase/${kb.id}/${page}`, { intent: 'import-zendesk', url: 'https://a.zendesk.com' })).status, page).toBe(403);
    }
    for (const page of ['version-control', `articles/${art.id}/version/${v1.id}`]) {
      const res = await s.get(`/knowledgebase/${kb.id}/${page}`);
      expect(res.status, page).toBe(403);
      expect(res.text).toContain(FEATURE_DENIED_MESSAGE);
    }
    const refused = await s.post(`/knowledgebase/${kb.id}/articles/${art.id}/version/${v1.id}`, { intent: 'publish' });
    expect(refused.status).toBe(403);
    expect((await getArticle({ ...who, id: art.id }))?.status).toBe('draft');
  });

  it("shows another account's knowledge base, article or category as not found", async () => {
    const a = await setup();
    const b = await setup();
    const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Secret' });
    const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
    const art = await createArticle({ ...who, title: 'Secret draft', body: '<p>hidden</p>' });
    const cat = await createCategory({ ...who, name: 'Hidden' });
    for (const path of [`/knowledgebase/${kb.id}/articles`, `/knowledgebase/${kb.id}/articles/${art.id}`, `/knowledgebase/${kb.id}/categories/${cat.id}`]) {
      const res = await b.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('Secret draft');
    }
    expect((await b.post(`/knowledgebase/${kb.id}/articles/${art.id}`, { intent: 'trash' })).status).toBe(404);
    expect((await b.get('/knowledgebase')).text).not.toContain('Secret');
  });
});
