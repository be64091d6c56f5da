import http from 'node:http';
import { expect, test } from '@playwright/test';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { createChatbot, saveChatbotFlow, updateChatbotSettings } from '../../../app/models/chatbots/chatbots.server';
import { DEFAULT_CONDITIONS } from '../../../app/models/chatbots/constants';
import { createTestAccount } from '../../factories';
import { port } from '../helpers';

/**
 * A chatbot in the messenger widget on a customer's site (a page served by this test on its own origin): no agent
 * is online, yet the bot answers live, offers its question's buttons, and a pressed button moves the flow on.
 */
test.use({ javaScriptEnabled: true });

let site: http.Server;
let sitePort: number;
let inboxIdForSite = 0;

test.beforeAll(async () => {
  site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Pricing</title></head><body><h1>Pricing</h1>
<script src="http://localhost:${port()}/public/widget.js" data-inbox="${inboxIdForSite}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test('the bot greets and answers in the widget on a third-party page', async ({ browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Shop chat' });
  inboxIdForSite = inbox.id;
  const bot = await createChatbot({ accountId: a.account.id, actorId: a.owner.id, name: 'Shopbot' });
  await saveChatbotFlow({
    accountId: a.account.id,
    id: bot.id,
    steps: [
      { id: 's1', type: 'question', text: 'Are you here about pricing?', choices: [{ label: 'Yes, pricing', next: 's2' }, { label: 'Something else', next: 's3' }], next: null },
      { id: 's2', type: 'close', text: 'Plans start at 10 € a month. Bye!' },
      { id: 's3', type: 'handover', text: 'Someone will be with you shortly.', teamId: null, userId: null },
    ],
  });
  await updateChatbotSettings({ accountId: a.account.id, id: bot.id, name: 'Shopbot', enabled: true, inboxIds: [inbox.id], priority: 0, conditions: DEFAULT_CONDITIONS });

  const context = await browser.newContext({ javaScriptEnabled: true });
  const visitor = await context.newPage();
  const errors: string[] = [];
  visitor.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await visitor.goto(`http://127.0.0.1:${sitePort}/`);
  const widget = visitor.locator('[data-parley-widget]');
  await widget.getByRole('button', { name: 'Open chat' }).click();
  // Nobody is online, but the bot is: the chat shows rather than the offline form.
  await widget.getByLabel('Message').fill('Hi!');
  await widget.getByRole('button', { name: 'Send' }).click();
  await expect(widget.locator('[data-from="agent"]')).toContainText('Are you here about pricing?');
  await expect(widget.locator('[data-from="agent"]').first()).toContainText('Shopbot');
  await widget.getByRole('group', { name: 'Answers' }).getByRole('button', { name: 'Yes, pricing' }).click();
  await expect(widget.locator('[data-from="visitor"]').nth(1)).toHaveText('Yes, pricing');
  await expect(widget.locator('[data-from="agent"]').nth(1)).toContainText('Plans start at 10 € a month. Bye!');
  await expect(widget.getByRole('group', { name: 'Answers' })).toHaveCount(0);
  expect(errors).toEqual([]);
  await context.close();
});
