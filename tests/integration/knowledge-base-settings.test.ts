import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { CNAME_MESSAGE, GA_KEY_MESSAGE } from '../../app/models/knowledge-base/constants';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup() {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  await createArticle({ accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id, title: 'Running shoes', body: '<p>Runners run in running shoes.</p>', publish: true });
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie?: string) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, kb, owner, agentCookie, get, post };
}

describe('knowledge base settings: General and SEO', () => {
  it('General: the specification messages, a saved change that the help centre shows, re-stemming on a new language, and the public switch', async () => {
    const s = await setup();
    const page = `/knowledgebase/${s.kb.id}/general`;
    expect((await s.get(page, s.owner)).status).toBe(200);
    const bad = await s.post(page, { intent: 'save', helpName: 'ab', cname: 'not a domain', language: 'xx', docsVisible: 'on' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be at least 3 characters');
    expect(bad.text).toContain(CNAME_MESSAGE);
    expect(bad.text).toContain('Choose a language');
    expect((await s.post(page, { intent: 'save', helpName: 'x'.repeat(31), language: 'en', docsVisible: 'on' })).text).toContain(
      'Length must be less than or equal to 30 characters',
    );
    const [before] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.id, s.kb.id));
    expect(before.helpName).toBe('Help');

    const saved = await s.post(page, { intent: 'save', helpName: 'Acme Help Centre', cname: 'Help.Example.com', language: 'en', docsVisible: 'on' });
    expect(saved.status).toBe(302);
    const [after] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.id, s.kb.id));
    expect(after).toMatchObject({ helpName: 'Acme Help Centre', cname: 'help.example.com', language: 'en', docsVisible: true });
    expect((await s.get(`/hc/${s.kb.slug}`)).text).toContain('Acme Help Centre');
    // English stems "run" to find "running"; the article was indexed with the default configuration before.
    expect((await s.get(`/hc/${s.kb.slug}/search?q=run`)).text).toContain('Running shoes');
    const [{ config }] = await getDb().execute<{ config: string }>(sql`select search_config::text as config from kb_articles where knowledge_base_id = ${s.kb.id}`);
    expect(config).toBe('english');
    // Another language re-stems every article at once.
    expect((await s.post(page, { intent: 'save', helpName: 'Acme Help Centre', language: 'fr', docsVisible: 'on' })).status).toBe(302);
    const [{ config: french }] = await getDb().execute<{ config: string }>(sql`select search_config::text as config from kb_articles where knowledge_base_id = ${s.kb.id}`);
    expect(french).toBe('french');

    // Off: the whole help centre answers 404, with its sitemap; robots.txt no longer lists it.
    expect((await s.post(page, { intent: 'save', helpName: 'Acme Help Centre', language: 'en' })).status).toBe(302);
    expect((await s.get(`/hc/${s.kb.slug}`)).status).toBe(404);
    expect((await s.get(`/hc/${s.kb.slug}/sitemap.xml`)).status).toBe(404);
    expect((await s.get('/robots.txt')).text).not.toContain(`/hc/${s.kb.slug}`);
  });

  it('SEO: the key message, analytics only when a key is set (anonymised when asked) with a policy that allows it, titles on the home page', async () => {
    const s = await setup();
    const page = `/knowledgebase/${s.kb.id}/seo`;
    const home = `/hc/${s.kb.slug}`;
    const plain = await s.get(home);
    expect(plain.text).not.toContain('googletagmanager');
    expect(String(plain.headers['content-security-policy'])).not.toContain('googletagmanager');

    const bad = await s.post(page, { intent: 'save', gaKey: '12345', seoTitle: 'ab', seoDescription: 'x'.repeat(161) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain(GA_KEY_MESSAGE);
    expect(bad.text).toContain('Length must be at least 3 characters');
    expect(bad.text).toContain('Length must be less than or equal to 160 characters');

    expect((await s.post(page, { intent: 'save', gaKey: 'G-ABC123XYZ', anonymizedIp: 'on', seoTitle: 'Acme answers', seoDescription: 'Everything about Acme' })).status).toBe(302);
    const withGa = await s.get(home);
    expect(withGa.text).toContain('https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ');
    expect(withGa.text).toContain('{"anonymize_ip":true}');
    expect(withGa.text).toContain('<title>Acme answers</title>');
    expect(withGa.text).toContain('Everything about Acme');
    const policy = String(withGa.headers['content-security-policy']);
    expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' https:\/\/www\.googletagmanager\.com/);
    // Every script on the page carries the nonce.
    const nonce = /'nonce-([^']+)'/.exec(policy)![1];
    for (const tag of withGa.text.match(/<script\b[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
    // Never on an agent page.
    const agentPage = await s.get(page, s.owner);
    expect(String(agentPage.headers['content-security-policy'])).not.toContain('googletagmanager');
    expect(agentPage.text).not.toContain('gtag/js');

    expect((await s.post(page, { intent: 'save', gaKey: 'UA-123456-1', seoTitle: '', seoDescription: '' })).status).toBe(302);
    const notAnonymised = await s.get(home);
    expect(notAnonymised.text).toContain('id=UA-123456-1');
    expect(notAnonymised.text).not.toContain('anonymize_ip');
    expect((await s.post(page, { intent: 'save', gaKey: '' })).status).toBe(302);
    expect((await s.get(home)).text).not.toContain('googletagmanager');
  });

  it('refuses agents without customize_docs, and another account knowledge base is not found', async () => {
    const s = await setup();
    const other = await setup();
    for (const path of [`/knowledgebase/${s.kb.id}/general`, `/knowledgebase/${s.kb.id}/seo`]) {
      expect((await s.post(path, { intent: 'save', helpName: 'Taken over', language: 'en', docsVisible: 'on', gaKey: '' }, s.agentCookie)).status).toBe(403);
      expect((await other.post(path, { intent: 'save', helpName: 'Taken over', language: 'en', docsVisible: 'on', gaKey: '' })).status).toBe(404);
    }
    const [kb] = await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.id, s.kb.id));
    expect(kb.helpName).toBe('Help');
  });

  it('robots.txt: the account host offers only its public help centres and their sitemaps; the bare host its landing page', async () => {
    const s = await setup();
    const robots = await s.get('/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers['content-type']).toContain('text/plain');
    expect(robots.text).toContain(`Allow: /hc/${s.kb.slug}\nDisallow: /`);
    expect(robots.text).toMatch(new RegExp(`Sitemap: https?://${s.domain}\\.[^/]+/hc/${s.kb.slug}/sitemap\\.xml`));
    const bare = await app.request('/robots.txt', {});
    expect(bare.text).toBe('User-agent: *\nAllow: /$\nDisallow: /\n');
  });
});
