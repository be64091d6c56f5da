import { expect, test } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { hydrated, latestMail, signIn, url } from '../helpers';

/** Issue 10 for a team: writing first to a contact, the bell, mentions, and the conversation's shortcuts (ADR 034, 035). */

async function setup() {
  const a = await createTestAccount({ firstName: 'Olive' });
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ari', email: `ari-${a.account.id}@example.test` });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const open = (subject: string) =>
    openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject, contact: { email: 'cara@example.test', name: 'Cara Customer' }, message: { kind: 'incoming', text: `About ${subject}` } });
  return { ...a, agent, inbox, open };
}

const toast = (page: import('@playwright/test').Page) => page.getByTestId('toast');

test('a new email to a contact from their page, without JavaScript', async ({ page }) => {
  const s = await setup();
  const { conversation } = await s.open('Earlier question');
  await signIn(page, s);
  await page.goto(url(`/customers/${conversation.contactId}`, s.domain));
  await page.getByRole('link', { name: 'Send email' }).click();
  await expect(page.getByLabel('To (email)')).toHaveValue('cara@example.test');
  await page.getByLabel('Subject').fill('Your renewal');
  await page.getByLabel('Message').fill('Your plan renews next week.');
  await page.getByRole('button', { name: 'Send email' }).click();
  await expect(toast(page)).toHaveText('Email Sent');
  await expect(page.getByTestId('thread')).toContainText('Your plan renews next week.');
  const mail = await latestMail('cara@example.test', { subject: /^Your renewal$/ });
  expect(mail.text).toBe('Your plan renews next week.');
});

test('an assignment and a mention ring the bell; one read, then all, without JavaScript', async ({ page }) => {
  const s = await setup();
  const { conversation } = await s.open('Printer jam');
  // The owner assigns it and mentions Ari in a note, through the screen.
  await signIn(page, s);
  await page.goto(url(`/inbox/${conversation.id}`, s.domain));
  await page.getByTestId('operations').getByLabel('Assignee').selectOption({ label: 'Ari Agent' });
  await page.getByTestId('operations').getByRole('button', { name: 'Save properties' }).click();
  await expect(toast(page)).toHaveText('Properties Saved');
  await page.getByLabel('Message', { exact: true }).fill('@Ari the customer called twice');
  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(toast(page)).toHaveText('Note Added');
  await page.context().clearCookies();

  await signIn(page, { domain: s.domain, email: s.agent.email, password: TEST_PASSWORD });
  // The engine tells Ari shortly after; the bell counts both.
  await expect(async () => {
    await page.goto(url('/home', s.domain));
    await expect(page.getByTestId('notifications-button')).toHaveAttribute('aria-label', 'Notifications, 2 unread');
  }).toPass({ timeout: 15_000 });
  await page.getByTestId('notifications-button').click();
  const list = page.getByTestId('notifications');
  await expect(list).toContainText(`Assigned to you: #${conversation.id} Printer jam`);
  await expect(list).toContainText(`You were mentioned in #${conversation.id} Printer jam`);
  await page.getByRole('button', { name: `Mark as read: You were mentioned in #${conversation.id} Printer jam` }).click();
  await expect(toast(page)).toHaveText('Notification marked as read');
  await expect(page.getByTestId('notifications-button')).toHaveAttribute('aria-label', 'Notifications, 1 unread');
  await page.getByRole('button', { name: 'Mark all as read' }).click();
  await expect(page.getByTestId('notifications-button')).toHaveAttribute('aria-label', 'Notifications, 0 unread');
  // Both will also reach Ari by email, in one batched mail (a timer a few minutes out; the integration test sends it).
  const waiting = await getDb()
    .select()
    .from(schema.notifications)
    .where(and(eq(schema.notifications.accountId, s.account.id), eq(schema.notifications.userId, s.agent.id)));
  expect(waiting.map((n) => n.emailedAt)).toEqual([null, null]);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('keyboard shortcuts: the ? sheet, reply, resolve, next', async ({ page }) => {
    const s = await setup();
    const older = await s.open('Older one');
    const newer = await s.open('Newer one');
    await signIn(page, s);
    await page.goto(url(`/inbox/${newer.conversation.id}`, s.domain));
    await hydrated(page);
    await page.keyboard.press('?');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText('Assign to me');
    await page.keyboard.press('Escape');
    await page.keyboard.press('r');
    const box = page.getByLabel('Message', { exact: true });
    await expect(box).toBeFocused();
    // Typing @ar offers Ari; picking writes the handle the server reads.
    await box.pressSequentially('Thanks @Ar');
    await page.getByTestId('mention-suggestions').getByRole('button', { name: /@AriAgent/ }).click();
    await expect(box).toHaveValue('Thanks @AriAgent ');
    await box.fill('Sorted, thanks for waiting.');
    await page.keyboard.press('Control+Enter');
    await expect(toast(page)).toHaveText('Email Sent');
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('e');
    await expect(toast(page)).toHaveText('Status Updated');
    await page.keyboard.press('j');
    await expect(page).toHaveURL(url(`/inbox/${older.conversation.id}`, s.domain));
  });
});
