import { gzipSync } from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createArticle, getArticle, trashArticle, updateArticle } from '../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup() {
  const acc = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help' });
  const who = { accountId: acc.account.id, actorId: acc.owner.id, knowledgeBaseId: kb.id };
  const cat = await createCategory({ ...who, name: 'Billing & payments' });
  const get = (path: string, cookie?: string) => app.request(path, { domain: acc.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie?: string) => app.request(path, { domain: acc.domain, form, cookie });
  return { ...acc, kb, who, cat, get, post };
}

describe('public help centre', () => {
  it('serves home, category and article pages without script, with SEO tags; drafts and trash are never public', async () => {
    const s = await setup();
    const pub = await createArticle({
      ...s.who,
      title: 'Paying invoices',
      categoryId: s.cat.id,
      body: '<p>Open Billing and choose <b>Pay</b>.</p>',
      publish: true,
      seoDescription: 'How to pay an invoice',
    });
    const draft = await createArticle({ ...s.who, title: 'Secret roadmap', categoryId: s.cat.id, body: '<p>hidden</p>' });
    const gone = await createArticle({ ...s.who, title: 'Old refund policy', categoryId: s.cat.id, body: '<p>old</p>', publish: true });
    await trashArticle({ ...s.who, id: gone.id });

    const home = await s.get(`/hc/${s.kb.slug}`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('Paying invoices');
    expect(home.text).toContain('Billing &amp; payments');
    expect(home.text).not.toContain('Secret roadmap');
    expect(home.text).not.toContain('Old refund policy');
    expect(home.text).not.toContain('<script');

    const path = `/hc/${s.kb.slug}/articles/${pub.id}-paying-invoices`;
    const page = await s.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<p>Open Billing and choose <b>Pay</b>.</p>');
    expect(page.text).toContain('<title>Paying invoices | Help</title>');
    expect(page.text).toContain('<meta name="description" content="How to pay an invoice"');
    expect(page.text).toContain(`<link rel="canonical" href="http://${s.domain}.localhost:3000${path}"`);
    expect(page.text).toContain('<meta property="og:title" content="Paying invoices"');
    expect(page.text).not.toContain('<script');
    expect(page.text).toMatch(/<link rel="stylesheet" href="\/build\/_assets\/hc-\w+\.css/);
    expect((await s.get(`/hc/${s.kb.slug}/articles/${draft.id}-secret-roadmap`)).status).toBe(404);
    expect((await s.get(`/hc/${s.kb.slug}/articles/${gone.id}-old-refund-policy`)).status).toBe(404);
    const category = await s.get(`/hc/${s.kb.slug}/categories/${s.cat.id}-${s.cat.slug}`);
    expect(category.status).toBe(200);
    expect(category.text).toContain('Paying invoices');
    expect(category.text).not.toContain('Secret roadmap');

    const sitemap = await s.get(`/hc/${s.kb.slug}/sitemap.xml`);
    expect(sitemap.headers['content-type']).toContain('application/xml');
    expect(sitemap.text).toContain(`${path}</loc>`);
    expect(sitemap.text).not.toContain(`/articles/${draft.id}-`);

    // docsVisible off hides the whole site.
    await getDb().update(schema.knowledgeBases).set({ docsVisible: false }).where(eq(schema.knowledgeBases.id, s.kb.id));
    expect((await s.get(`/hc/${s.kb.slug}`)).status).toBe(404);
    expect((await s.get(path)).status).toBe(404);
  });

  it('answers 301 from an old or missing slug to the current one; a draft edit does not change the public copy', async () => {
    const s = await setup();
    const art = await createArticle({ ...s.who, title: 'Reset password', body: '<p>Use the link.</p>', publish: true });
    const old = await s.get(`/hc/${s.kb.slug}/articles/${art.id}-reset-password`);
    expect(old.status).toBe(200);
    await updateArticle({
      ...s.who,
      id: art.id,
      title: 'Reset your password',
      slug: 'reset-your-password',
      body: '<p>Use the e-mailed link.</p>',
      publish: true,
    });
    const moved = await s.get(`/hc/${s.kb.slug}/articles/${art.id}-reset-password`);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`/hc/${s.kb.slug}/articles/${art.id}-reset-your-password`);
    expect((await s.get(`/hc/${s.kb.slug}/articles/${art.id}`)).status).toBe(301);
    await updateArticle({ ...s.who, id: art.id, title: 'Reset your password', slug: 'reset-your-password', body: '<p>Draft wording</p>' });
    const live = await s.get(`/hc/${s.kb.slug}/articles/${art.id}-reset-your-password`);
    expect(live.text).toContain('Use the e-mailed link.');
    expect(live.text).not.toContain('Draft wording');
  });

  it('searches with stemming and ranking, finds a misspelled word, escapes snippets, and records searches and clicks', async () => {
    const s = await setup();
    const inv = await createArticle({
      ...s.who,
      title: 'Paying invoices',
      body: '<p>Every invoice can be paid by card. &lt;b&gt;not bold&lt;/b&gt;</p>',
      publish: true,
    });
    await createArticle({ ...s.who, title: 'Shipping', body: '<p>Parcels leave in two days; see your invoice for the tracking number.</p>', publish: true });
    await createArticle({ ...s.who, title: 'Invoice draft', body: '<p>unpublished invoice</p>' });
    const found = await s.get(`/hc/${s.kb.slug}/search?q=invoice`);
    expect(found.status).toBe(200);
    const order = [...found.text.matchAll(/articles\/\d+-([a-z-]+)\?s=/g)].map((m) => m[1]);
    expect(order).toEqual(['paying-invoices', 'shipping']);
    expect(found.text).toContain('<mark>invoice</mark>');
    // Text that looked like markup never becomes markup in a snippet.
    expect(found.text).not.toContain('<b>not bold');
    expect(found.text).toContain('not bold');
    expect(found.text).not.toContain('Invoice draft');

    const typo = await s.get(`/hc/${s.kb.slug}/search?q=invoces`);
    expect(typo.text).toContain('Paying invoices');
    const none = await s.get(`/hc/${s.kb.slug}/search?q=zebra+giraffe`);
    expect(none.text).toContain('No article matches your search');

    const searches = await getDb().select().from(schema.kbSearches).where(eq(schema.kbSearches.knowledgeBaseId, s.kb.id));
    expect(searches.map((r) => [r.query, r.resultCount])).toEqual(
      expect.arrayContaining([
        ['invoice', 2],
        ['zebra giraffe', 0],
      ]),
    );
    const first = searches.find((r) => r.query === 'invoice')!;
    await s.get(`/hc/${s.kb.slug}/articles/${inv.id}-paying-invoices?s=${first.id}`);
    const [clicked] = await getDb().select().from(schema.kbSearches).where(eq(schema.kbSearches.id, first.id));
    expect(clicked.clickedArticleId).toBe(inv.id);
  });

  it('counts one helpful answer per visitor and article, and views', async () => {
    const s = await setup();
    const art = await createArticle({ ...s.who, title: 'Opening hours', body: '<p>9 to 5</p>', publish: true });
    const path = `/hc/${s.kb.slug}/articles/${art.id}-opening-hours`;
    const first = await s.post(path, { helpful: 'yes' });
    expect(first.status).toBe(303);
    const cookie = String(first.headers['set-cookie']).split(';')[0];
    expect(cookie).toMatch(/^hc_visitor=/);
    await s.post(path, { helpful: 'yes' }, cookie);
    let row = await getArticle({ ...s.who, id: art.id });
    expect([row?.helpfulCount, row?.unhelpfulCount]).toEqual([1, 0]);
    await s.post(path, { helpful: 'no' }, cookie);
    await s.post(path, { helpful: 'no' });
    row = await getArticle({ ...s.who, id: art.id });
    expect([row?.helpfulCount, row?.unhelpfulCount]).toEqual([0, 2]);
    expect((await s.post(path, { helpful: 'maybe' })).status).toBe(400);
    await s.get(path);
    expect((await getArticle({ ...s.who, id: art.id }))?.viewCount).toBeGreaterThanOrEqual(1);
  });

  it("never shows account A's articles on account B's help centre, nor A's help centre on B's host", async () => {
    const a = await setup();
    const b = await setup();
    // Slugs are unique across accounts (ADR 056); A's slug on B's host finds nothing.
    expect(a.kb.slug).not.toBe(b.kb.slug);
    expect((await b.get(`/hc/${a.kb.slug}`)).status).toBe(404);
    const art = await createArticle({ ...a.who, title: 'Only for A', body: '<p>a</p>', publish: true });
    expect((await b.get(`/hc/${b.kb.slug}/articles/${art.id}-only-for-a`)).status).toBe(404);
    expect((await b.get(`/hc/${b.kb.slug}/search?q=only`)).text).not.toContain('Only for A');
    expect((await b.get(`/hc/${b.kb.slug}/sitemap.xml`)).text).not.toContain(`/articles/${art.id}-`);
    expect((await b.post(`/hc/${b.kb.slug}/articles/${art.id}-only-for-a`, { helpful: 'yes' })).status).toBe(404);
    const feedback = await getDb()
      .select()
      .from(schema.kbArticleFeedback)
      .where(and(eq(schema.kbArticleFeedback.articleId, art.id)));
    expect(feedback).toEqual([]);
  });
  it('weighs under 30 KB gzipped for an article page without custom CSS or JS, everything included (issue 13 target)', async () => {
    const s = await setup();
    const body = Array.from({ length: 12 }, (_, i) => `<h2>Step ${i + 1}</h2><p>Open Billing, choose the invoice and press <b>Pay</b>. Your card is charged at once and a receipt is e-mailed to the account owner.</p>`).join('');
    const pub = await createArticle({ ...s.who, title: 'Paying invoices', categoryId: s.cat.id, body, publish: true });
    const page = await s.get(`/hc/${s.kb.slug}/articles/${pub.id}-paying-invoices`);
    expect(page.status).toBe(200);
    // Everything the browser fetches for the page: the HTML, its stylesheets, scripts and images (none expected).
    const assets = [...page.text.matchAll(/<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src|img[^>]+src)="([^"]+)"/g)].map((m) => m[1]);
    const parts = [{ name: 'html', bytes: gzipSync(page.text).length }];
    for (const asset of assets) {
      const res = await s.get(asset);
      expect(res.status, asset).toBe(200);
      parts.push({ name: asset, bytes: gzipSync(res.text).length });
    }
    const total = parts.reduce((n, p) => n + p.bytes, 0);
    console.info(`public article page: ${(total / 1024).toFixed(1)} KB gzipped (${parts.map((p) => `${p.name} ${(p.bytes / 1024).toFixed(1)} KB`).join(', ')})`);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(false);
    expect(total).toBeLessThan(30 * 1024);
  });
});
