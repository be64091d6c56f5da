import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

// The help centres' own host for this file only (ADR 056); read by the app's config on first use.
process.env.HELP_HOST = 'help.test:3000';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup(title: string) {
  const acc = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help' });
  const who = { accountId: acc.account.id, actorId: acc.owner.id, knowledgeBaseId: kb.id };
  const article = await createArticle({ ...who, title, body: `<p>${title} body</p>`, publish: true });
  const cookie = (await sessionCookie({ domain: acc.domain, accountId: acc.account.id, userId: acc.owner.id })).split(';')[0];
  return { ...acc, kb, article, cookie, host: `${kb.slug}.help.test:3000` };
}

describe('the help host', () => {
  it("serves each knowledge base on its own host, only its own articles, with robots.txt and canonical links there", async () => {
    const a = await setup('Alpha refunds');
    const b = await setup('Bravo secrets');
    expect(a.kb.slug).not.toBe(b.kb.slug);

    const home = await app.request('/', { host: a.host });
    expect(home.status).toBe(200);
    expect(home.text).toContain('Alpha refunds');
    expect(home.text).not.toContain('Bravo secrets');

    const page = await app.request(`/articles/${a.article.id}-${a.article.slug}`, { host: a.host });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<link rel="canonical" href="http://${a.host}/articles/${a.article.id}-${a.article.slug}"`);
    // B's article, asked for on A's host, is not there (every query is scoped by A's account and knowledge base).
    expect((await app.request(`/articles/${b.article.id}-${b.article.slug}`, { host: a.host })).status).toBe(404);
    expect((await app.request(`/hc/${b.kb.slug}`, { host: a.host })).status).toBe(404);

    const search = await app.request('/search?q=secrets', { host: a.host });
    expect(search.status).toBe(200);
    expect(search.text).not.toContain('Bravo secrets');

    const robots = await app.request('/robots.txt', { host: a.host });
    expect(robots.status).toBe(200);
    expect(robots.text).toContain(`Sitemap: http://${a.host}/sitemap.xml`);
    const sitemap = await app.request('/sitemap.xml', { host: a.host });
    expect(sitemap.text).toContain(`<loc>http://${a.host}/articles/${a.article.id}-${a.article.slug}</loc>`);

    // The account host keeps /hc/{slug} working, and names the help host as the canonical address.
    const onAccountHost = await app.request(`/hc/${a.kb.slug}/articles/${a.article.id}-${a.article.slug}`, { domain: a.domain });
    expect(onAccountHost.status).toBe(200);
    expect(onAccountHost.text).toContain(`<link rel="canonical" href="http://${a.host}/articles/`);
  });

  it('never receives nor sets the agent session cookie, and reaches no agent route', async () => {
    const a = await setup('Cookie article');
    // The cookie works on the account host...
    const agent = await app.request('/knowledgebase', { domain: a.domain, cookie: a.cookie });
    expect(agent.status).toBe(200);
    // ...but the help host strips it: agent routes are out of reach, even by climbing out with dot segments.
    for (const path of ['/knowledgebase', '/hc/../knowledgebase', '/../../knowledgebase', '/signin']) {
      const res = await app.request(path, { host: a.host, cookie: a.cookie });
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('Sign out');
    }
    // Feedback gets a visitor cookie for the whole help host, never a session cookie.
    const feedback = await app.request(`/articles/${a.article.id}-${a.article.slug}`, {
      host: a.host,
      form: { helpful: 'yes' },
      cookie: a.cookie,
    });
    expect(feedback.status).toBe(303);
    const set = ([] as string[]).concat(feedback.headers['set-cookie'] ?? []);
    expect(set.some((c) => c.startsWith('hc_visitor=') && c.includes('Path=/;'))).toBe(true);
    expect(set.some((c) => c.startsWith('__parley_session'))).toBe(false);
    // The session cookie made on the account host is host-only: a browser never sends it to the help host.
    expect(a.cookie).toMatch(/^__parley_session=/);
    const full = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    expect(full.toLowerCase()).not.toContain('domain=');
  });

  it('serves a custom domain (cname) and hides the site when docsVisible is off', async () => {
    const a = await setup('Custom domain article');
    const cname = `docs-${a.kb.id}.example.org`;
    await getDb().update(schema.knowledgeBases).set({ cname }).where(eq(schema.knowledgeBases.id, a.kb.id));
    const home = await app.request('/', { host: cname });
    expect(home.status).toBe(200);
    expect(home.text).toContain('Custom domain article');
    await getDb().update(schema.knowledgeBases).set({ docsVisible: false }).where(eq(schema.knowledgeBases.id, a.kb.id));
    expect((await app.request('/', { host: a.host })).status).toBe(404);
    expect((await app.request('/', { host: cname })).status).toBe(404);
  });

  it('saves General, SEO and Custom CSS & JS with the specification\'s messages; custom JS runs only on the help host, under its CSP', async () => {
    const a = await setup('Styled article');
    const b = await setup('Other account article');
    const form = (path: string, f: Record<string, string>) => app.request(`/knowledgebase/${a.kb.id}/${path}`, { domain: a.domain, form: f, cookie: a.cookie });

    const bad = await form('general', { helpName: 'ab', cname: 'not a domain', language: 'xx' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be at least 3 characters');
    expect(bad.text).toContain('Enter a valid domain, e.g. help.example.com');
    expect(bad.text).toContain('Choose a language from the list');
    expect((await form('general', { helpName: 'Acme Answers', cname: `Docs-${a.kb.id}.Example.com`, language: 'fr', docsVisible: 'on' })).status).toBe(302);
    const [saved] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.id, a.kb.id));
    expect(saved).toMatchObject({ helpName: 'Acme Answers', cname: `docs-${a.kb.id}.example.com`, language: 'fr', docsVisible: true });
    // Another account cannot take the same domain.
    const taken = await app.request(`/knowledgebase/${b.kb.id}/general`, {
      domain: b.domain,
      cookie: b.cookie,
      form: { helpName: 'Bravo', cname: `docs-${a.kb.id}.example.com`, language: 'en', docsVisible: 'on' },
    });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('Another help centre already uses this domain');

    const seo = await form('seo', { gaKey: 'analytics', seoTitle: 'x', seoDescription: 'y' });
    expect(seo.status).toBe(400);
    expect(seo.text).toContain('Enter Valid Google Analytics Key');
    expect(seo.text).toContain('Length must be at least 3 characters');
    expect((await form('seo', { gaKey: 'G-ABC123XYZ', anonymizedIp: 'on', seoTitle: 'Acme help', seoDescription: 'Answers' })).status).toBe(302);

    // The plan lock: the page shows it, the server refuses to save.
    await setAccountPlan({ domain: a.domain, planKey: 'starter' });
    const lockedPage = await app.request(`/knowledgebase/${a.kb.id}/custom-css-js`, { domain: a.domain, cookie: a.cookie });
    expect(lockedPage.text).toContain('data-testid="plan-locked"');
    expect((await form('custom-css-js', { customCss: 'body{}', customJs: 'window.x=1' })).status).toBe(403);
    await setAccountPlan({ domain: a.domain, planKey: 'enterprise' });
    const js = 'window.acmeCustom = "</script><b>"';
    expect((await form('custom-css-js', { customCss: '.hc-header{background:#123456}', customJs: js })).status).toBe(302);

    const path = `/articles/${a.article.id}-${a.article.slug}`;
    const onHelp = await app.request(path, { host: a.host });
    expect(onHelp.status).toBe(200);
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(String(onHelp.headers['content-security-policy']))?.[1];
    expect(nonce).toBeTruthy();
    expect(onHelp.text).toContain(`<script nonce="${nonce}" data-testid="hc-custom-js">window.acmeCustom = "<\\/script><b>"</script>`);
    expect(onHelp.text).toContain('.hc-header{background:#123456}');
    expect(onHelp.text).toContain('https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ');
    expect(onHelp.text).toContain('anonymize_ip:true');
    expect(String(onHelp.headers['content-security-policy'])).toContain('https://www.googletagmanager.com');

    // The same article on the account host, and the agent's own article page: no custom code, no analytics, the strict CSP.
    for (const res of [
      await app.request(`/hc/${a.kb.slug}${path}`, { domain: a.domain, cookie: a.cookie }),
      await app.request(`/knowledgebase/${a.kb.id}/articles/${a.article.id}`, { domain: a.domain, cookie: a.cookie }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('acmeCustom = ');
      expect(res.text).not.toContain('hc-custom-css');
      expect(res.text).not.toContain('googletagmanager');
      expect(String(res.headers['content-security-policy'])).not.toContain('googletagmanager');
    }
    // Account B's help host never carries A's code or settings.
    const other = await app.request('/', { host: b.host });
    expect(other.text).not.toContain('acmeCustom');
    expect(other.text).not.toContain('Acme Answers');
    expect(other.text).not.toContain('G-ABC123XYZ');
  });

  it('Redirect Rules: list, create, edit, delete; refuse loops through other rules; answer 301 on both hosts', async () => {
    const a = await setup('Moved article');
    const form = (f: Record<string, string>) => app.request(`/knowledgebase/${a.kb.id}/redirect-rules`, { domain: a.domain, form: f, cookie: a.cookie });
    const target = `/articles/${a.article.id}-${a.article.slug}`;
    const bad = await form({ intent: 'save', source: 'old page', destination: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a path like /articles/12-reset-password');
    expect((await form({ intent: 'save', source: '/articles/1-old', destination: '/articles/2-middle' })).status).toBe(302);
    expect((await form({ intent: 'save', source: '/articles/2-middle', destination: target })).status).toBe(302);
    const loop = await form({ intent: 'save', source: target, destination: '/articles/1-old' });
    expect(loop.status).toBe(400);
    expect(loop.text).toContain(`This rule would make a redirect loop: ${target} → /articles/1-old → /articles/2-middle → ${target}`);
    expect((await form({ intent: 'save', source: '/articles/1-old', destination: '/articles/2-middle' })).text).toContain('A rule for this source already exists');

    const page = await app.request(`/knowledgebase/${a.kb.id}/redirect-rules`, { domain: a.domain, cookie: a.cookie });
    expect(page.text).toContain('/articles/2-middle');
    const [first] = await getDb().select().from(schema.kbRedirects).where(eq(schema.kbRedirects.source, '/articles/1-old'));
    // Editing the first rule into a self-loop through the second is refused too.
    expect((await form({ intent: 'save', id: String(first.id), source: target, destination: '/articles/2-middle' })).text).toContain('redirect loop');
    expect((await form({ intent: 'save', id: String(first.id), source: '/articles/1-older', destination: '/articles/2-middle' })).status).toBe(302);

    const onAccount = await app.request(`/hc/${a.kb.slug}/articles/2-middle`, { domain: a.domain });
    expect(onAccount.status).toBe(301);
    expect(onAccount.headers.location).toBe(`/hc/${a.kb.slug}${target}`);
    const onHelp = await app.request('/articles/1-older', { host: a.host });
    expect(onHelp.status).toBe(301);
    expect(onHelp.headers.location).toBe(`/hc/${a.kb.slug}/articles/2-middle`);

    expect((await form({ intent: 'delete', id: String(first.id) })).status).toBe(302);
    expect((await app.request('/articles/1-older', { host: a.host })).status).toBe(404);
    // Another account cannot delete A's rule.
    const b = await setup('Other');
    const [second] = await getDb().select().from(schema.kbRedirects).where(eq(schema.kbRedirects.knowledgeBaseId, a.kb.id));
    const foreign = await app.request(`/knowledgebase/${b.kb.id}/redirect-rules`, { domain: b.domain, cookie: b.cookie, form: { intent: 'delete', id: String(second.id) } });
    expect(foreign.status).toBe(404);
  });
});
