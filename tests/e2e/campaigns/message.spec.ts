import http from 'node:http';
import { expect, test } from '@playwright/test';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createTestAccount } from '../../factories';
import { port, signIn, url } from '../helpers';

/**
 * A message campaign (ADR 082): the agent writes and starts it without JavaScript; a visitor on a customer's page (a
 * page served by this test on its own origin) sees it in the widget after its seconds on the page, replies, and the
 * agent finds the conversation from the campaign's report, with the shown and replied figures.
 */
let site: http.Server;
let sitePort: number;
let inboxIdForSite = 0;

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Shop</title></head><body><h1>${req.url === '/pricing' ? 'Pricing' : 'About'}</h1>
<script src="http://localhost:${port()}/public/widget.js" data-inbox="${inboxIdForSite}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test('a message campaign shows in the widget on a matching page, the visitor replies and the agent sees the conversation', async ({ browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Shop chat' });
  inboxIdForSite = inbox.id;

  const agentContext = await browser.newContext({ javaScriptEnabled: false });
  const page = await agentContext.newPage();
  await signIn(page, a);
  await page.goto(url('/campaigns', a.domain));
  await page.getByText('Create Campaign').click();
  await page.getByTestId('new-message').click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('.field-error', { hasText: 'Name is not allowed to be empty' })).toBeVisible();
  await page.getByLabel('Name').fill('Pricing help');
  await page.getByLabel('Message', { exact: true }).fill('Questions about our plans? Ask me here.');
  await page.getByLabel(/^Pages \(one/).fill('/pricing');
  await page.getByLabel('Seconds on the page before it shows').fill('1');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Campaign Created');
  await page.getByRole('button', { name: 'Send or schedule' }).click();
  await expect(page.getByTestId('campaign-status')).toHaveText('Live');

  const visitorContext = await browser.newContext({ javaScriptEnabled: true });
  const visitor = await visitorContext.newPage();
  const errors: string[] = [];
  visitor.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // Another page of the site: the campaign does not show there.
  await visitor.goto(`http://127.0.0.1:${sitePort}/about`);
  const widget = visitor.locator('[data-parley-widget]');
  await expect(widget.getByRole('button', { name: 'Open chat' })).toBeVisible({ timeout: 20_000 });
  await expect(widget.locator('[data-from="agent"]')).toHaveCount(0);
  await visitor.goto(`http://127.0.0.1:${sitePort}/pricing`);
  await expect(widget.locator('[data-from="agent"]')).toContainText('Questions about our plans? Ask me here.', { timeout: 20_000 });
  await expect(widget.locator('[data-from="agent"]')).toContainText('Olive');
  await widget.getByLabel('Message').fill('Do you have a plan for schools?');
  await widget.getByRole('button', { name: 'Send' }).click();
  await expect(widget.locator('[data-from="visitor"]')).toHaveText('Do you have a plan for schools?');
  await expect(widget.locator('[data-from="agent"]')).toHaveCount(1);
  expect(errors).toEqual([]);

  await page.reload();
  await expect(page.getByTestId('figure-shown')).toContainText('1');
  await expect(page.getByTestId('figure-replied')).toContainText('1');
  await page.getByRole('list', { name: 'Replies' }).getByRole('link').click();
  await expect(page.getByText('Do you have a plan for schools?').first()).toBeVisible();
  await expect(page.getByText('Questions about our plans? Ask me here.').first()).toBeVisible();
  await visitorContext.close();
  await agentContext.close();
});
