import http from 'node:http';
import { expect, test } from '@playwright/test';
import { and, desc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox, saveMessengerSection } from '../../../app/models/channels/messenger-settings.server';
import { MESSENGER_DEFAULTS } from '../../../app/models/channels/messenger-settings';
import { createArticle } from '../../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../../factories';
import { port, signIn, url } from '../helpers';

/**
 * The messenger widget on a customer's site: a static page served by this test on its own port (another origin)
 * loads widget.js; the visitor writes, the agent answers from the inbox, and the answer appears live.
 */
test.use({ javaScriptEnabled: true });

let site: http.Server;
let sitePort: number;
let inboxIdForSite = 0;

test.beforeAll(async () => {
  site = http.createServer((req, res) => {
    const page = req.url?.startsWith('/other') ? 'Other page' : 'Shop home';
    // The host page's own CSS tries hard to restyle everything; the widget's shadow root keeps it out.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${page}</title><style>* { color: rgb(255, 0, 0) !important; font-size: 40px !important; } button { display: none !important; }</style></head>
<body><h1>${page}</h1><a href="/other">Other page</a>
<script src="http://localhost:${port()}/public/widget.js" data-inbox="${inboxIdForSite}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

test('a visitor chats with an agent from another origin and sees the answer live', async ({ page, browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat' });
  inboxIdForSite = inbox.id;

  // The agent is signed in with the inbox open: they are online, so the widget offers the chat.
  await signIn(page, a);
  await page.goto(url('/inbox', a.domain));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  // What the agents' socket records for a connected agent (the widget reads agent_presence).
  await getDb()
    .insert(schema.agentPresence)
    .values({ accountId: a.account.id, userId: a.owner.id, connections: 1, lastSeenAt: new Date() })
    .onConflictDoUpdate({ target: schema.agentPresence.userId, set: { connections: 1, lastSeenAt: new Date() } });

  const visitorContext = await browser.newContext({ javaScriptEnabled: true });
  const visitor = await visitorContext.newPage();
  await visitor.goto(`http://127.0.0.1:${sitePort}/`);
  const widget = visitor.locator('[data-parley-widget]');
  await widget.getByRole('button', { name: 'Open chat' }).click();
  await expect(widget.getByRole('dialog')).toBeVisible();
  // Host CSS did not leak in.
  await expect(widget.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(await widget.getByRole('button', { name: 'Send' }).evaluate((b) => getComputedStyle(b).color)).not.toBe('rgb(255, 0, 0)');

  await widget.getByLabel('Message').fill('Hello from the shop');
  await widget.getByRole('button', { name: 'Send' }).click();
  await expect(widget.locator('[data-from="visitor"]')).toHaveText('Hello from the shop');

  // The agent sees it in the inbox and answers.
  const [conversation] = await getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, a.account.id), eq(schema.conversations.inboxId, inbox.id)))
    .orderBy(desc(schema.conversations.id))
    .limit(1);
  expect(conversation.sourceType).toBe('web');
  await expect(page.getByTestId(`conversation-${conversation.id}`)).toContainText('Hello from the shop');
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  // Typing indicators, both ways.
  await widget.getByLabel('Message').fill('I have a question about');
  await expect(page.getByTestId('visitor-typing')).toHaveText('Visitor is typing…');
  await page.getByLabel('Message', { exact: true }).fill('Hi! Happy to help.');
  await expect(widget.getByText('Olive is typing…')).toBeVisible();
  await page.getByRole('button', { name: 'Send reply' }).click();

  // Live on the visitor's side: no reload.
  await expect(widget.locator('[data-from="agent"]')).toContainText('Hi! Happy to help.');

  // A page change on the host keeps the conversation (token and conversation restored from localStorage).
  await visitor.getByRole('link', { name: 'Other page' }).click();
  await expect(visitor).toHaveTitle('Other page');
  await visitor.locator('[data-parley-widget]').getByRole('button', { name: 'Open chat' }).click();
  await expect(visitor.locator('[data-parley-widget]').locator('[data-from="agent"]')).toContainText('Hi! Happy to help.');

  // Page views reached the CRM.
  await expect
    .poll(async () => (await getDb().select().from(schema.pageViews).where(eq(schema.pageViews.accountId, a.account.id))).map((p) => new URL(p.url).pathname).sort())
    .toEqual(['/', '/other']);
  await visitorContext.close();
});

test('offline, the widget offers a help-centre search, then the ticket form, and opens a support_widget ticket', async ({ browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'After hours' });
  inboxIdForSite = inbox.id;
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const kb = await createKnowledgeBase({ ...who, name: 'Help' });
  await createArticle({ ...who, knowledgeBaseId: kb.id, title: 'Where is my invoice?', body: '<p>Invoices are under Billing, Invoices.</p>', publish: true });
  await saveMessengerSection({ ...who, inboxId: inbox.id, section: 'configure', value: { ...MESSENGER_DEFAULTS.configure, helpCentreId: kb.id } });
  const context = await browser.newContext({ javaScriptEnabled: true });
  const visitor = await context.newPage();
  await visitor.goto(`http://127.0.0.1:${sitePort}/`);
  const widget = visitor.locator('[data-parley-widget]');
  await widget.getByRole('button', { name: 'Open chat' }).click();
  await expect(widget.getByText('Leave us a message').first()).toBeVisible();
  // The search answers as the visitor types (a misspelt word included) with links to the help centre.
  await widget.getByLabel('Search the help centre').fill('invioce');
  const hit = widget.getByRole('link', { name: 'Where is my invoice?' });
  await expect(hit).toBeVisible();
  await expect(hit).toHaveAttribute('href', /\/articles\/\d+-where-is-my-invoice\?s=\d+$/);
  await expect(hit).toHaveAttribute('target', '_blank');
  const article = await context.newPage();
  await article.goto((await hit.getAttribute('href'))!);
  await expect(article.getByRole('heading', { name: 'Where is my invoice?' })).toBeVisible();
  await article.close();
  await widget.getByLabel('Name').fill('Ada Lovelace');
  await widget.getByLabel('Email').fill('ada@example.test');
  await widget.getByLabel('Subject').fill('Invoice copy');
  await widget.getByLabel('Message', { exact: true }).fill('Please send my invoice');
  await widget.getByRole('button', { name: 'Send' }).click();
  await expect(widget.getByRole('status')).toHaveText('Thanks! We received your message and will reply by email.');
  const [ticket] = await getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, a.account.id), eq(schema.conversations.sourceType, 'support_widget')));
  expect(ticket.subject).toBe('Invoice copy');
  await context.close();
});
