import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { signIn, url } from '../helpers';
import { BARE_HOST_SCREENS, EXCLUDED, seedScreensAccount, SIGNED_IN_SCREENS, SIGNED_OUT_SCREENS } from './screens';

/**
 * Every screen, once with JavaScript off and once with it on: no serious or critical axe violation, and
 * (with JavaScript) no console error, page error or React hydration warning (#418, #423, #425).
 */

type Seeded = Awaited<ReturnType<typeof seedScreensAccount>>;

async function axeProblems(page: Page) {
  // Legacy mode runs axe in the page at once; the default mode opens a blank page per check, several times slower.
  const result = await new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

async function crawl(page: Page, a: Seeded, paths: readonly string[], domain: string, js: boolean) {
  const problems: string[] = [];
  let consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || (m.type() === 'warning' && /hydrat|#41[89]|#42[35]/i.test(m.text()))) consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  for (const raw of paths) {
    const path = a.fill(raw);
    consoleErrors = [];
    const res = await page.goto(url(path, domain), { waitUntil: js ? 'networkidle' : 'load' });
    const status = res?.status() ?? 0;
    if (status >= 500 || (status >= 400 && raw !== '/no-such-page')) problems.push(`${path}: HTTP ${status}`);
    const t0 = Date.now();
    for (const v of await axeProblems(page)) problems.push(`${path}: ${v}`);
    if (process.env.A11Y_DEBUG) console.log(path, status, Date.now() - t0, 'ms', problems.filter((p) => p.startsWith(`${path}:`)).join('; '));
    // 404 answers of the page's own assets are not errors of the screen; every other console error is.
    // Without JavaScript the scripts are refused on purpose; console errors are checked with JavaScript on.
    if (js) for (const e of consoleErrors) if (!(raw === '/no-such-page' && /404/.test(e))) problems.push(`${path}: console: ${e.slice(0, 300)}`);
  }
  return problems;
}

/**
 * axe runs inside the page, which a context without JavaScript cannot do (its promise never settles). The pages
 * without JavaScript are therefore what the server sends with every script taken out and every `<noscript>`
 * unwrapped: the DOM a browser without JavaScript builds, in which axe can still run.
 */
async function withoutScripts(page: Page) {
  await page.route('**/*', async (route) => {
    const type = route.request().resourceType();
    if (type === 'script') return route.abort();
    if (type !== 'document') return route.fallback();
    // Node cannot resolve *.localhost as Chromium does: ask the loopback address with the account's Host.
    const target = new URL(route.request().url());
    const host = target.host;
    target.hostname = '127.0.0.1';
    const res = await route.fetch({ url: target.toString(), headers: { ...(await route.request().allHeaders()), host }, maxRedirects: 0 });
    const ct = res.headers()['content-type'] ?? '';
    if (!ct.includes('text/html')) return route.fulfill({ response: res });
    const body = (await res.text())
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
      .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, '')
      .replace(/<\/?noscript>/gi, '');
    return route.fulfill({ response: res, body });
  });
}

for (const js of [false, true]) {
  test.describe(`every screen, JavaScript ${js ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled: true });
    test.beforeEach(async ({ page }) => {
      if (!js) await withoutScripts(page);
    });
    // Two halves, so that the two workers share the signed-in screens.
    const half = Math.ceil(SIGNED_IN_SCREENS.length / 2);
    for (const [part, screens] of [SIGNED_IN_SCREENS.slice(0, half), SIGNED_IN_SCREENS.slice(half)].entries()) {
      test(`signed in (part ${part + 1}): no serious or critical accessibility violation, no console error`, async ({ page }) => {
        test.setTimeout(300_000);
        const a = await seedScreensAccount();
        await signIn(page, a);
        expect(await crawl(page, a, screens, a.domain, js)).toEqual([]);
      });
    }
    test('signed out: no serious or critical accessibility violation, no console error', async ({ page }) => {
      test.setTimeout(120_000);
      const a = await seedScreensAccount();
      const problems = await crawl(page, a, SIGNED_OUT_SCREENS, a.domain, js);
      problems.push(...(await crawl(page, a, BARE_HOST_SCREENS, '', js)));
      expect(problems).toEqual([]);
    });
  });
}

test('every route file is a listed screen or excluded with a reason', () => {
  const files = fs.readdirSync('app/routes').filter((f) => f.endsWith('.tsx'));
  const screens = [...SIGNED_IN_SCREENS, ...SIGNED_OUT_SCREENS, ...BARE_HOST_SCREENS].map((p) => p.split('?')[0]);
  const missing: string[] = [];
  for (const file of files) {
    const base = file.replace(/\.tsx$/, '');
    if (EXCLUDED[file] || Object.keys(EXCLUDED).some((k) => k.endsWith('*') && file.startsWith(k.slice(0, -1)))) continue;
    // A layout (another file continues its name) is drawn by its children.
    if (files.some((f) => f !== file && f.startsWith(`${base}.`))) continue;
    const pattern = base
      .split('.')
      .filter((s) => !/^_(app|auth)$/.test(s) && s !== '_index')
      .map((s) => s.replace(/_$/, ''))
      .map((s) => (s.startsWith('$') ? (s === '$' ? '.+' : '[^/]+') : s.replace(/\[(.)\]/g, '\\$1')))
      .join('/');
    const re = new RegExp(`^/${pattern}$`);
    if (!screens.some((s) => re.test(s) || (s.includes('{') && re.test(s.replace(/\{\w+\}/g, 'x'))))) missing.push(file);
  }
  expect(missing).toEqual([]);
});
