import { expect, test } from '@playwright/test';
import { getDb } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { addMessage } from '../../../app/models/inbox/messages.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { signIn, url } from '../helpers';

test.use({ javaScriptEnabled: true });

async function setup() {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const open = async (subject: string, text: string) =>
    (
      await openConversation({
        accountId: a.account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject,
        contact: { email: 'cara@example.test', name: 'Cara Customer' },
        message: { kind: 'incoming', text },
      })
    ).conversation;
  return { ...a, inbox, open };
}

test('a new conversation and a new message appear without a reload', async ({ page }) => {
  const s = await setup();
  const existing = await s.open('Existing thread', 'Hello');
  await signIn(page, s);
  await page.goto(url('/inbox', s.domain));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  // A mark on the window: a reload would wipe it.
  await page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 1));
  // The list is patched from the rows the server sends (ADR 045): no data request, once the connection's own is done.
  await page.waitForLoadState('networkidle');
  const dataRequests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('.data')) dataRequests.push(r.url());
  });

  const fresh = await s.open('Arrived just now', 'Live hello');
  await expect(page.getByTestId(`conversation-${fresh.id}`)).toContainText('Arrived just now');
  await expect(page.getByTestId('status-counts').getByRole('link', { name: /Open/ })).toContainText('2');
  await getDb().transaction((tx) =>
    addMessage(tx, { accountId: s.account.id, conversationId: existing.id, kind: 'incoming', text: 'A follow-up in the list' })
  );
  await expect(page.getByTestId(`conversation-${existing.id}`)).toContainText('A follow-up in the list');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(1);
  expect(dataRequests).toEqual([]);

  await page.getByRole('link', { name: 'Existing thread' }).click();
  await expect(page).toHaveURL(url(`/inbox/${existing.id}`, s.domain));
  await page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 2));
  // What the agent is typing survives others' messages arriving.
  await page.getByLabel('Message', { exact: true }).fill('Half-written answer');
  await page.waitForLoadState('networkidle');
  dataRequests.length = 0;
  await getDb().transaction((tx) => addMessage(tx, { accountId: s.account.id, conversationId: existing.id, kind: 'incoming', text: 'Are you there?' }));
  await expect(page.getByTestId('thread')).toContainText('Are you there?');
  // A live reload runs the conversation's own loader only, not the shell's and the root's.
  expect(dataRequests.length).toBeGreaterThan(0);
  for (const u of dataRequests) expect(new URL(u).searchParams.get('_routes')).toBe('routes/_app.inbox.$conversationId');
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('Half-written answer');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(2);
  // With JavaScript the same forms post without a reload, and the box empties after the agent's own post.
  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Note Added');
  await expect(page.getByTestId('thread').locator('[data-kind="note"]')).toContainText('Half-written answer');
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('');
  await page.getByTestId('operations').getByLabel('Status').selectOption('pending');
  await page.getByTestId('operations').getByRole('button', { name: 'Save properties' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Properties Saved');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(2);
});

test('a canned response fills the reply box without a reload', async ({ page }) => {
  const s = await setup();
  const c = await s.open('Canned', 'Hi');
  const { schema } = await import('../../../db/client');
  await getDb().insert(schema.cannedResponses).values({ accountId: s.account.id, name: 'Thanks', message: 'Thank you for writing to us.' });
  await signIn(page, s);
  await page.goto(url(`/inbox/${c.id}`, s.domain));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  await page.getByLabel('Message', { exact: true }).fill('Hello Cara. ');
  await page.getByText('Insert a canned response').click();
  await page.getByTestId('canned-responses').getByRole('link', { name: 'Thanks' }).click();
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('Hello Cara. Thank you for writing to us.');
  await expect(page).toHaveURL(url(`/inbox/${c.id}`, s.domain));
});

test('agents see who else is viewing a conversation', async ({ page, browser }) => {
  const s = await setup();
  const agent = await createTestUser({ accountId: s.account.id, firstName: 'Ari' });
  const c = await s.open('Shared look', 'Hi');
  await signIn(page, s);
  await page.goto(url(`/inbox/${c.id}`, s.domain));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  await expect(page.getByTestId('presence')).toHaveCount(0);

  const context = await browser.newContext({ javaScriptEnabled: true });
  const other = await context.newPage();
  await signIn(other, { domain: s.domain, email: agent.email, password: TEST_PASSWORD });
  await other.goto(url(`/inbox/${c.id}`, s.domain));
  await expect(page.getByTestId('presence')).toHaveText('Also viewing: Ari Agent');
  await expect(other.getByTestId('presence')).toHaveText('Also viewing: Olive Owner');

  // Leaving the conversation clears it for the others.
  await other.getByRole('link', { name: '← Inbox' }).click();
  await expect(page.getByTestId('presence')).toHaveCount(0);
  await context.close();
});
