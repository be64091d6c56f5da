import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtSettingsSections, GUIDE_PAGES } from '../../app/models/help/guide';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { findSettingsItem } from '../../app/models/shell/navigation';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-help-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The text of an element with this id up to the next heading: what the reader lands on. */
function sectionText(html: string, id: string) {
  const at = html.indexOf(`id="${id}"`);
  if (at < 0) return '';
  const rest = html.slice(html.indexOf('>', at) + 1);
  const end = rest.search(/<h[1-3][ >]/);
  return rest
    .slice(0, end < 0 ? undefined : end)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('Help Center (ADR 037)', () => {
  it('every "Learn more" link of every built settings page answers 200 with its own section of the guide', { timeout: 120_000 }, async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const links = new Map<string, string>();
    // Billing-only pages (Invoices) answer 404 with billing off, as this server has it (ADR 074).
    for (const { slug } of builtSettingsSections().filter((s) => !findSettingsItem(s.slug)?.billing)) {
      const res = await app.request(`/settings/${slug}`, { domain, cookie });
      expect(res.status, slug).toBe(200);
      for (const m of res.text.matchAll(/<a [^>]*href="([^"]+)"[^>]*>Learn more<\/a>/g)) links.set(m[1].replace(/&amp;/g, '&'), slug);
    }
    expect(links.size).toBeGreaterThan(15);
    for (const [href, from] of links) {
      expect(href, from).toMatch(/^\/help-center\/[a-z-]+#[a-z-]+$/);
      const [pathname, id] = href.split('#');
      const res = await app.request(pathname, { domain, cookie });
      expect(res.status, href).toBe(200);
      // Real content: a heading with the section's id and at least a sentence under it.
      expect(sectionText(res.text, id).length, `${href} (from /settings/${from})`).toBeGreaterThan(80);
    }
  });

  it('every built settings page has its section, and every guide page renders', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const pages = new Map<string, string>();
    for (const p of GUIDE_PAGES) {
      const res = await app.request(`/help-center/${p.slug}`, { domain, cookie });
      expect(res.status, p.slug).toBe(200);
      expect(res.text).toContain('data-testid="guide-page"');
      pages.set(p.slug, res.text);
    }
    for (const s of builtSettingsSections()) expect(sectionText(pages.get(s.page)!, s.slug).length, `${s.page}#${s.slug}`).toBeGreaterThan(40);
    expect((await app.request('/help-center/no-such-page', { domain, cookie })).status).toBe(404);
    expect((await app.request('/help-center/..%2Fdecisions%2F001-embedded-postgresql-by-default', { domain, cookie })).status).toBe(404);
  });

  it('searches the guide on the server, without JavaScript', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const res = await app.request('/help-center?q=business+hours', { domain, cookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-testid="help-results"');
    expect(res.text).toContain('href="/help-center/automations#business-hours"');
    const none = await app.request(`/help-center?q=${encodeURIComponent('zzqx <script>')}`, { domain, cookie });
    expect(none.status).toBe(200);
    expect(none.text).toContain('Nothing found');
    expect(none.text).not.toContain('zzqx <script>');
  });
});
