import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanFeatures } from '../../db/schema/accounts';
import { createArticle, listVersions, publishVersion, updateArticle } from '../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { listRecentVersions } from '../../app/models/knowledge-base/help-settings.server';
import { createKnowledgeBase, getKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { contrastRatio } from '../../app/models/knowledge-base/constants';
import { FEATURE_DENIED_MESSAGE } from '../../app/models/plans/catalogue';
import { createTestAccount, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { postMultipart } from '../helpers/multipart';

process.env.HELP_HOST = 'help.test:3000';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup(features?: PlanFeatures) {
  const acc = await createTestAccount();
  if (features) await givePlan(acc.account.id, features);
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help' });
  const who = { accountId: acc.account.id, actorId: acc.owner.id, knowledgeBaseId: kb.id };
  const cookie = await sessionCookie({ domain: acc.domain, accountId: acc.account.id, userId: acc.owner.id });
  const get = (path: string) => app.request(path, { domain: acc.domain, cookie });
  const post = (path: string, form: Record<string, string>) => app.request(path, { domain: acc.domain, cookie, form });
  return { ...acc, kb, who, cookie, get, post };
}

const emptyLinks = (rows: { label: string; url: string }[] = []) =>
  Object.fromEntries(
    Array.from({ length: 6 }, (_, i) => [
      [`headerLinks[${i}].label`, rows[i]?.label ?? ''],
      [`headerLinks[${i}].url`, rows[i]?.url ?? ''],
    ]).flat(),
  );

describe('Customization', () => {
  it('checks contrast and links, stores the logo, and the public help centre (account host and help host) shows them', async () => {
    const s = await setup();
    const path = `/knowledgebase/${s.kb.id}/customization`;
    expect((await s.get(path)).status).toBe(200);

    const lowContrast = await postMultipart(app.port, path, {
      domain: s.domain,
      cookie: s.cookie,
      fields: { brandColor: '#FFFF00', headerTextColor: '', ...emptyLinks() },
    });
    expect(lowContrast.status).toBe(400);
    expect(lowContrast.text).toContain('The header text needs a contrast of at least 4.5:1 with the brand colour; these two give 1.1:1');
    expect(lowContrast.text).toContain('value="#FFFF00"');

    const badLinks = await postMultipart(app.port, path, {
      domain: s.domain,
      cookie: s.cookie,
      fields: {
        brandColor: 'blue',
        ...emptyLinks([
          { label: 'Status', url: 'javascript:alert(1)' },
          { label: '', url: 'https://example.com' },
        ]),
      },
    });
    expect(badLinks.status).toBe(400);
    for (const m of ['Enter a colour as #RRGGBB, e.g. #1F6FEB', 'Enter a web address starting with http:// or https://', 'Enter a label for this link'])
      expect(badLinks.text).toContain(m);

    const badLogo = await postMultipart(app.port, path, {
      domain: s.domain,
      cookie: s.cookie,
      fields: { brandColor: '#1f6feb', ...emptyLinks() },
      files: [{ name: 'logo', filename: 'logo.svg', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }],
    });
    expect(badLogo.status).toBe(400);
    expect(badLogo.text).toContain('logo.svg is not a PNG, JPEG, GIF or WebP image');
    expect((await getKnowledgeBase({ accountId: s.account.id, id: s.kb.id }))!.brandColor).toBeNull();

    const ok = await postMultipart(app.port, path, {
      domain: s.domain,
      cookie: s.cookie,
      fields: {
        brandColor: '#1F6FEB',
        headerTextColor: '#fff',
        ...emptyLinks([
          { label: 'Status', url: 'https://status.example.com' },
          { label: '', url: '' },
          { label: 'Shop', url: 'http://shop.example.com/' },
        ]),
      },
      files: [{ name: 'logo', filename: 'logo.png', bytes: PNG }],
    });
    expect(ok.status).toBe(302);
    const saved = (await getKnowledgeBase({ accountId: s.account.id, id: s.kb.id }))!;
    expect(saved).toMatchObject({
      brandColor: '#1f6feb',
      headerTextColor: '#ffffff',
      headerLinks: [
        { label: 'Status', url: 'https://status.example.com' },
        { label: 'Shop', url: 'http://shop.example.com/' },
      ],
    });
    expect(saved.logoToken).toMatch(/^[0-9a-f]{32}$/);
    expect(contrastRatio('#1f6feb', '#ffffff')).toBeGreaterThan(4.5);

    for (const page of [await app.request(`/hc/${s.kb.slug}`, { domain: s.domain }), await app.request('/', { host: `${s.kb.slug}.help.test:3000` })]) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-branded=""');
      expect(page.text).toMatch(/style="--hc-brand:#1f6feb;--hc-header-text:#ffffff"/);
      expect(page.text).toContain(`src="/kb-images/${saved.logoToken}"`);
      expect(page.text).toContain('<a href="https://status.example.com">Status</a>');
      expect(page.text).toContain('<a href="http://shop.example.com/">Shop</a>');
    }
    // A missing page of a customized help centre keeps its look.
    const missing = await app.request(`/hc/${s.kb.slug}/articles/999999-nothing`, { domain: s.domain });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Page not found');
    expect(missing.text).toContain('data-branded=""');
    // The logo loads on the help host.
    expect((await app.request(`/kb-images/${saved.logoToken}`, { host: `${s.kb.slug}.help.test:3000` })).status).toBe(200);

    // Remove the logo and the colours: the plain header again.
    const plain = await postMultipart(app.port, path, { domain: s.domain, cookie: s.cookie, fields: { brandColor: '', removeLogo: 'on', ...emptyLinks() } });
    expect(plain.status).toBe(302);
    const home = await app.request(`/hc/${s.kb.slug}`, { domain: s.domain });
    expect(home.text).not.toContain('data-branded');
    expect(home.text).not.toContain('hc-logo');
    expect(home.text).not.toContain('Status</a>');
  });
});

describe('Advanced', () => {
  it('switches feedback, last updated, view count and related articles on the public page, and orders the lists', async () => {
    const s = await setup();
    const cat = await createCategory({ ...s.who, name: 'Billing' });
    const zebra = await createArticle({ ...s.who, title: 'Zebra invoices', categoryId: cat.id, body: '<p>z</p>', publish: true });
    const apple = await createArticle({ ...s.who, title: 'Apple refunds', categoryId: cat.id, body: '<p>a</p>', publish: true });
    const articleUrl = `/hc/${s.kb.slug}/articles/${zebra.id}-${zebra.slug}`;
    const categoryUrl = `/hc/${s.kb.slug}/categories/${cat.id}-${cat.slug}`;

    // Defaults: feedback, last updated and related on; views off; manual order (Zebra was created first).
    let page = await app.request(articleUrl, { domain: s.domain });
    expect(page.text).toContain('Was this helpful?');
    expect(page.text).toContain('Last updated ');
    expect(page.text).not.toContain('Viewed');
    expect(page.text).toContain('Related articles');
    expect(page.text).toContain('Apple refunds');
    let list = (await app.request(categoryUrl, { domain: s.domain })).text;
    expect(list.indexOf('Zebra invoices')).toBeLessThan(list.indexOf('Apple refunds'));

    const bad = await s.post(`/knowledgebase/${s.kb.id}/advance`, { articleOrder: 'random' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose an order from the list');

    const saved = await s.post(`/knowledgebase/${s.kb.id}/advance`, { showViewCount: 'on', articleOrder: 'titleAZ' });
    expect(saved.status).toBe(302);
    page = await app.request(articleUrl, { domain: s.domain });
    expect(page.text).not.toContain('Was this helpful?');
    expect(page.text).not.toContain('Last updated ');
    expect(page.text).toMatch(/Viewed (once|\d+ times)/);
    expect(page.text).not.toContain('Related articles');
    list = (await app.request(categoryUrl, { domain: s.domain })).text;
    expect(list.indexOf('Apple refunds')).toBeLessThan(list.indexOf('Zebra invoices'));
    // Feedback switched off is refused by the server too.
    const feedback = await app.request(articleUrl, { domain: s.domain, form: { helpful: 'yes' } });
    expect(feedback.status).toBe(403);
    expect(apple.id).toBeGreaterThan(0);
  });
});

describe('Version Control', () => {
  it('lists recent versions of the knowledge base, keeps a limited number (never the published one) after a confirmation', async () => {
    const s = await setup();
    const article = await createArticle({ ...s.who, title: 'Shipping', body: '<p>v1</p>' });
    for (let i = 2; i <= 5; i++) await updateArticle({ ...s.who, id: article.id, title: 'Shipping', body: `<p>v${i}</p>` });
    const versions = (await listVersions({ ...s.who, articleId: article.id }))!.versions;
    expect(versions.map((v) => v.number)).toEqual([5, 4, 3, 2, 1]);
    const v2 = versions.find((v) => v.number === 2)!;
    await publishVersion({ ...s.who, articleId: article.id, versionId: v2.id });

    const page = await s.get(`/knowledgebase/${s.kb.id}/version-control`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Version 5');
    expect(page.text).toContain(`/articles/${article.id}/version-control/${versions[1].id}-${versions[0].id}`);

    const tooFew = await s.post(`/knowledgebase/${s.kb.id}/version-control`, { versionsKept: '1' });
    expect(tooFew.status).toBe(400);
    expect(tooFew.text).toContain('Keep at least 2 versions, so that two can be compared');

    const unconfirmed = await s.post(`/knowledgebase/${s.kb.id}/version-control`, { versionsKept: '2' });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Keeping 2 versions removes 2 older versions for good. Tick the box to confirm.');
    expect((await listVersions({ ...s.who, articleId: article.id }))!.versions).toHaveLength(5);

    const confirmed = await s.post(`/knowledgebase/${s.kb.id}/version-control`, { versionsKept: '2', confirmRemoval: 'on' });
    expect(confirmed.status).toBe(302);
    expect((await listVersions({ ...s.who, articleId: article.id }))!.versions.map((v) => v.number)).toEqual([5, 4, 2]);
    // The next save keeps the limit, and still the published version.
    await updateArticle({ ...s.who, id: article.id, title: 'Shipping', body: '<p>v6</p>' });
    expect((await listVersions({ ...s.who, articleId: article.id }))!.versions.map((v) => v.number)).toEqual([6, 5, 2]);
    // Empty keeps everything from now on.
    expect((await s.post(`/knowledgebase/${s.kb.id}/version-control`, { versionsKept: '' })).status).toBe(302);
    expect((await getKnowledgeBase({ accountId: s.account.id, id: s.kb.id }))!.versionsKept).toBeNull();
  });

  it("is refused without the plan feature, and never lists another account's versions", async () => {
    const locked = await setup({ knowledgeBase: { enabled: true } });
    const get = await locked.get(`/knowledgebase/${locked.kb.id}/version-control`);
    expect(get.status).toBe(403);
    expect(get.text).toContain(FEATURE_DENIED_MESSAGE);
    expect((await locked.post(`/knowledgebase/${locked.kb.id}/version-control`, { versionsKept: '5' })).status).toBe(403);
    expect((await getKnowledgeBase({ accountId: locked.account.id, id: locked.kb.id }))!.versionsKept).toBeNull();

    const a = await setup();
    const b = await setup();
    await createArticle({ ...b.who, title: 'Secret of B', body: '<p>b</p>' });
    const listed = await listRecentVersions({ accountId: a.account.id, knowledgeBaseId: b.kb.id, page: 1, pageSize: 25 });
    expect(listed).toEqual({ rows: [], total: 0 });
    expect((await a.get(`/knowledgebase/${b.kb.id}/version-control`)).status).toBe(404);
  });
});
