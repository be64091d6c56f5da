import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { signIn, url } from '../helpers';
import { BARE_HOST_SCREENS, EXCLUDED, seedScreensAccount, SIGNED_IN_SCREENS, SIGNED_OUT_SCREENS } from './screens';

/**
 * Every screen, with JavaScript on and off: no serious or critical axe violation, and (with JavaScript) no console
 * error, page error or React hydration warning (#418, #423, #425).
 */

type Seeded = Awaited<ReturnType<typeof seedScreensAccount>>;

async function axeProblems(page: Page) {
  // Legacy mode runs axe in the page at once; the default mode opens a blank page per check, several times slower.
  const result = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

/** A screen to check: its path, the host it is on ('' for the bare host), and whether it is signed in. */
type Screen = { raw: string; domain: string; signedIn: boolean };

/**
 * Each screen is loaded once, with JavaScript (axe, console errors, hydration warnings). The JavaScript-off check
 * runs on the HTML that same load received, without a second request to the server: see `withoutScripts`.
 */
async function crawl(browser: Browser, a: Seeded, screens: Screen[]) {
  const problems: string[] = [];
  const contexts = new Map<boolean, { on: Page; off: Page; html: Map<string, string> }>();
  let consoleErrors: string[] = [];
  async function pagesFor(signedIn: boolean) {
    let pages = contexts.get(signedIn);
    if (pages) return pages;
    const context = await browser.newContext({ javaScriptEnabled: true });
    const on = await context.newPage();
    on.on('console', (m) => {
      if (m.type() === 'error' || (m.type() === 'warning' && /hydrat|#41[89]|#42[35]/i.test(m.text()))) consoleErrors.push(m.text());
    });
    on.on('pageerror', (e) => consoleErrors.push(String(e)));
    if (signedIn) await signIn(on, a);
    const html = new Map<string, string>();
    const off = await context.newPage();
    await withoutScripts(off, html);
    pages = { on, off, html };
    contexts.set(signedIn, pages);
    return pages;
  }
  for (const { raw, domain, signedIn } of screens) {
    const { on, off, html } = await pagesFor(signedIn);
    const path = a.fill(raw);
    const target = url(path, domain);
    consoleErrors = [];
    // networkidle: the checks run once the screen has hydrated and its first requests have answered.
    const t0 = Date.now();
    const res = await on.goto(target, { waitUntil: 'networkidle' });
    const t1 = Date.now();
    const status = res?.status() ?? 0;
    if (status >= 500 || (status >= 400 && raw !== '/no-such-page')) problems.push(`${path}: HTTP ${status}`);
    for (const v of await axeProblems(on)) problems.push(`${path} (JavaScript on): ${v}`);
    const t2 = Date.now();
    // 404 answers of the page's own assets are not errors of the screen; every other console error is.
    for (const e of consoleErrors) if (!(raw === '/no-such-page' && /404/.test(e))) problems.push(`${path}: console: ${e.slice(0, 300)}`);
    if (res) {
      html.set(res.url(), await res.text());
      // The app of the JavaScript-on page (its socket, live updates) stops while the other page is checked.
      await on.goto('about:blank');
      await off.goto(res.url(), { waitUntil: 'load' });
      const t3 = Date.now();
      for (const v of await axeProblems(off)) problems.push(`${path} (JavaScript off): ${v}`);
      if (process.env.A11Y_DEBUG) console.log(`T ${path} load-on ${t1 - t0} axe-on ${t2 - t1} load-off ${t3 - t2} axe-off ${Date.now() - t3}`);
    }
  }
  for (const { on } of contexts.values()) await on.context().close();
  return problems;
}

/**
 * axe runs inside the page, which a context without JavaScript cannot do (its promise never settles). The pages
 * without JavaScript are therefore what the server sent (the HTML of the JavaScript-on load of the same screen)
 * with every script taken out and every `<noscript>` unwrapped: the DOM a browser without JavaScript builds, in
 * which axe can still run. Styles and images still come from the server.
 */
async function withoutScripts(page: Page, html: Map<string, string>) {
  await page.route('**/*', async (route) => {
    const type = route.request().resourceType();
    if (type === 'script') return route.abort();
    if (type !== 'document') return route.fallback();
    const body = html.get(route.request().url());
    if (body === undefined) return route.abort();
    return route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: body
        .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
        .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, '')
        .replace(/<\/?noscript>/gi, ''),
    });
  });
}

// Every screen in four parts, two at a time (one per worker): each part seeds one account and signs in once. On a
// machine half as fast as usual two halves ran past 7 minutes and a quarter took 4.5–4.8, so each has 10 minutes.
const ALL: Screen[] = [
  ...SIGNED_IN_SCREENS.map((raw) => ({ raw, domain: 'account', signedIn: true })),
  ...SIGNED_OUT_SCREENS.map((raw) => ({ raw, domain: 'account', signedIn: false })),
  ...BARE_HOST_SCREENS.map((raw) => ({ raw, domain: '', signedIn: false })),
];
const PARTS = 4;
const size = Math.ceil(ALL.length / PARTS);
for (let part = 0; part < PARTS; part++) {
  const screens = ALL.slice(part * size, (part + 1) * size);
  test(`every screen (part ${part + 1} of ${PARTS}), JavaScript on and off: no serious or critical accessibility violation, no console error`, async ({ browser }) => {
    test.setTimeout(600_000);
    const a = await seedScreensAccount();
    const problems = await crawl(
      browser,
      a,
      screens.map((s) => ({ ...s, domain: s.domain && a.domain })),
    );
    expect(problems).toEqual([]);
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
