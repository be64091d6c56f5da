import http from 'node:http';
import { expect, test } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createTestAccount } from '../../factories';
import { port } from '../helpers';

/**
 * The widget on a site with a strict Content-Security-Policy: Parley's script and connections allowed, no inline
 * styles (style-src 'self' only), and hostile page CSS (letter-spacing with !important). The README documents
 * this policy; the widget must be styled, usable, and cause no CSP violation.
 */
test.use({ javaScriptEnabled: true });

let site: http.Server;
let sitePort: number;
let inboxId = 0;

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    const parley = `http://localhost:${port()}`;
    const policy = `default-src 'self'; script-src ${parley}; connect-src ${parley} ws://localhost:${port()}; style-src 'self'`;
    if (req.url === '/site.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      return void res.end('* { letter-spacing: 6px !important; color: rgb(255, 0, 0) !important; } div { text-transform: uppercase !important; }');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy });
    res.end(`<!doctype html><html><head><title>Strict shop</title><link rel="stylesheet" href="/site.css"></head>
<body><h1>Strict shop</h1>
<script src="${parley}/public/widget.js" data-inbox="${inboxId}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test("the widget is styled and works on a page whose policy allows no inline styles, and the page's CSS stays out", async ({ browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Strict chat' });
  inboxId = inbox.id;
  // An agent connected: the widget offers the chat.
  await getDb()
    .insert(schema.agentPresence)
    .values({ accountId: a.account.id, userId: a.owner.id, connections: 1, lastSeenAt: new Date() })
    .onConflictDoUpdate({ target: schema.agentPresence.userId, set: { connections: 1, lastSeenAt: new Date() } });

  const context = await browser.newContext({ javaScriptEnabled: true });
  const visitor = await context.newPage();
  const violations: string[] = [];
  const errors: string[] = [];
  visitor.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await visitor.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __violations: string[] }).__violations ??= [];
      (window as unknown as { __violations: string[] }).__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await visitor.goto(`http://127.0.0.1:${sitePort}/`);
  const widget = visitor.locator('[data-parley-widget]');
  const launcher = widget.getByRole('button', { name: 'Open chat' });
  await expect(launcher).toBeVisible();
  // Styled: the launcher is the round 56 px button in the inbox's colour, fixed in the corner.
  const look = await launcher.evaluate((b) => {
    const s = getComputedStyle(b);
    return { width: s.width, radius: s.borderRadius, background: s.backgroundColor, position: getComputedStyle(b.parentElement!).position };
  });
  expect(look).toMatchObject({ width: '56px', radius: '50%', position: 'fixed' });
  expect(look.background).not.toBe('rgba(0, 0, 0, 0)');

  await launcher.click();
  await expect(widget.getByRole('dialog')).toBeVisible();
  // The page's letter-spacing, colour and text-transform (all !important) do not reach the widget.
  const text = await widget.getByRole('dialog').evaluate((d) => {
    const s = getComputedStyle(d);
    return { letterSpacing: s.letterSpacing, color: s.color, transform: s.textTransform };
  });
  expect(text).toEqual({ letterSpacing: 'normal', color: 'rgb(31, 41, 55)', transform: 'none' });

  await widget.getByLabel('Message').fill('Hello from a strict site');
  await widget.getByRole('button', { name: 'Send' }).click();
  await expect(widget.locator('[data-from="visitor"]')).toHaveText('Hello from a strict site');
  await expect
    .poll(async () =>
      (
        await getDb()
          .select({ id: schema.conversations.id })
          .from(schema.conversations)
          .where(and(eq(schema.conversations.accountId, a.account.id), eq(schema.conversations.inboxId, inbox.id)))
      ).length,
    )
    .toBe(1);

  expect(await visitor.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? [])).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});
