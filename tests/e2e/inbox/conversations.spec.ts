import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount, createTestUser } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

/** An account with two inboxes, an agent, a tag and a canned response; conversations opened through the model. */
async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, firstName: 'Ari' });
  const support = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const billing = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Billing', channelType: 'email', email: `billing@${a.domain}.test` });
  const [tag] = await getDb().insert(schema.tags).values({ accountId: a.account.id, name: 'vip', color: 'red' }).returning();
  const [canned] = await getDb()
    .insert(schema.cannedResponses)
    .values({ accountId: a.account.id, name: 'Shipping times', message: 'Parcels ship within two working days.' })
    .returning();
  const open = async (subject: string, text: string, email = 'cara@example.test') =>
    (
      await openConversation({
        accountId: a.account.id,
        inboxId: support.id,
        sourceType: 'email',
        subject,
        contact: { email, name: 'Cara Customer' },
        message: { kind: 'incoming', text },
      })
    ).conversation;
  return { ...a, agent, support, billing, tag, canned, open };
}

const conversation = async (id: number) => (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, id)))[0];
const toast = (page: Page) => page.getByTestId('toast');
const thread = (page: Page) => page.getByTestId('thread');
const ops = (page: Page) => page.getByTestId('operations');

test('filters are GET parameters, only the non-empty ones, without JavaScript', async ({ page }) => {
  const s = await setup();
  await s.open('Broken kettle', 'The lid came off', 'kay@example.test');
  const printer = await s.open('Printer jam', 'Paper stuck in tray 2', 'pete@example.test');
  await getDb().update(schema.conversations).set({ priority: 3 }).where(eq(schema.conversations.id, printer.id));
  await signIn(page, s);
  await page.goto(url('/inbox', s.domain));
  await expect(page).toHaveTitle('Inbox | Parley');
  await expect(page.getByTestId('conversations')).toContainText('Broken kettle');
  await expect(page.getByTestId('status-counts')).toContainText('Open2');

  const filters = page.getByTestId('filters');
  await filters.getByLabel('Priority').selectOption('high');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(url('/inbox?priority=high', s.domain));
  await expect(page.getByTestId('conversations')).toContainText('Printer jam');
  await expect(page.getByTestId('conversations')).not.toContainText('Broken kettle');

  await page.goto(url('/inbox', s.domain));
  await filters.getByLabel('Search').fill('tray');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(url('/inbox?q=tray', s.domain));
  await expect(page.getByTestId('total')).toHaveText('1 conversation');

  await page
    .getByTestId('inbox-counts')
    .getByRole('link', { name: /Billing/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`inbox=${s.billing.id}`));
  await expect(page.getByText('No conversations match these filters.')).toBeVisible();
});

test('the properties panel saves status, assignee, priority, tags and inbox together; snooze; without JavaScript', async ({ page }) => {
  const s = await setup();
  const c = await s.open('Where is my parcel?', 'Ordered two weeks ago');
  await signIn(page, s);
  await page.goto(url('/inbox', s.domain));
  await page.getByRole('link', { name: 'Where is my parcel?' }).click();
  await expect(page).toHaveURL(url(`/inbox/${c.id}`, s.domain));
  await expect(page.getByTestId('contact-panel')).toContainText('cara@example.test');

  // Four changes, one Save (ADR 035).
  await ops(page).getByLabel('Assignee').selectOption({ label: 'Ari Agent' });
  await ops(page).getByLabel('Status').selectOption('pending');
  await ops(page).getByLabel('Priority').selectOption('critical');
  await ops(page).getByRole('checkbox', { name: 'vip' }).check();
  await ops(page).getByRole('button', { name: 'Save properties' }).click();
  await expect(toast(page)).toHaveText('Properties Saved');
  await expect(thread(page)).toContainText('Assigned to Ari Agent by Olive Owner');
  const saved = await conversation(c.id);
  expect([saved.assigneeId, saved.status, saved.priority]).toEqual([s.agent.id, 'pending', 4]);
  await expect(ops(page).getByRole('checkbox', { name: 'vip' })).toBeChecked();
  await expect(ops(page).getByLabel('Status')).toHaveValue('pending');

  // A time in the past is refused with the message; a future one snoozes.
  await ops(page).getByLabel('Snooze until').fill('2001-01-01T09:00');
  await ops(page).getByRole('button', { name: 'Snooze' }).click();
  await expect(fieldError(page, 'Choose a time in the future')).toBeVisible();
  await ops(page).getByLabel('Snooze until').fill('2999-06-01T09:30');
  await ops(page).getByRole('button', { name: 'Snooze' }).click();
  await expect(toast(page)).toHaveText('Snooze Updated');
  const snoozed = await conversation(c.id);
  expect(snoozed.status).toBe('snoozed');
  // The owner's time zone is UTC here: the wall-clock time is kept.
  expect(snoozed.snoozedUntil?.toISOString()).toBe('2999-06-01T09:30:00.000Z');

  // Moving and untagging keep the snooze (an empty status changes nothing).
  await ops(page).getByLabel('Inbox').selectOption({ label: 'Billing' });
  await ops(page).getByRole('checkbox', { name: 'vip' }).uncheck();
  await ops(page).getByRole('button', { name: 'Save properties' }).click();
  await expect(toast(page)).toHaveText('Properties Saved');
  await expect(thread(page)).toContainText('Moved to Billing by Olive Owner');
  const moved = await conversation(c.id);
  expect([moved.inboxId, moved.status]).toEqual([s.billing.id, 'snoozed']);
  await expect(ops(page).getByRole('checkbox', { name: 'vip' })).not.toBeChecked();
});

test('send and resolve, send and set pending, without JavaScript', async ({ page }) => {
  const s = await setup();
  const c = await s.open('Invoice copy', 'Can I get a copy?');
  await signIn(page, s);
  await page.goto(url(`/inbox/${c.id}`, s.domain));
  await page.getByLabel('Message', { exact: true }).fill('Attached to your account page.');
  await page.getByRole('button', { name: 'Send and resolve' }).click();
  await expect(toast(page)).toHaveText('Email Sent, conversation resolved');
  await expect(thread(page)).toContainText('Attached to your account page.');
  expect((await conversation(c.id)).status).toBe('resolved');
  await page.getByLabel('Message', { exact: true }).fill('One more thing: it is also in your inbox.');
  await page.getByRole('button', { name: 'Send and set pending' }).click();
  await expect(toast(page)).toHaveText('Email Sent, conversation pending');
  expect((await conversation(c.id)).status).toBe('pending');
  // An empty message changes nothing, status included.
  await page.getByRole('button', { name: 'Send and resolve' }).click();
  await expect(fieldError(page, 'Message is required')).toBeVisible();
  expect((await conversation(c.id)).status).toBe('pending');
});

test('note, canned response, reply, edit and delete messages, without JavaScript', async ({ page }) => {
  const s = await setup();
  const c = await s.open('Shipping question', 'When will it arrive?');
  await signIn(page, s);
  await page.goto(url(`/inbox/${c.id}`, s.domain));

  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(fieldError(page, 'Message is required')).toBeVisible();
  await page.getByLabel('Message', { exact: true }).fill('Customer is a VIP, be quick');
  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(toast(page)).toHaveText('Note Added');
  const note = thread(page).locator('[data-kind="note"]');
  await expect(note).toContainText('Customer is a VIP, be quick');
  await expect(note).toContainText('Private note');

  // Canned response without JavaScript: a link that reloads the page with the text in the reply box.
  await page.getByText('Insert a canned response').click();
  await page.getByTestId('canned-responses').getByRole('link', { name: 'Shipping times' }).click();
  await expect(page).toHaveURL(new RegExp(`/inbox/${c.id}\\?canned=${s.canned.id}$`));
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('Parcels ship within two working days.');
  await page.getByLabel('Cc', { exact: true }).fill('boss@example.test');
  await page.getByLabel('Attachments').setInputFiles({ name: 'tracking.txt', mimeType: 'text/plain', buffer: Buffer.from('TRACK-123') });
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(toast(page)).toHaveText('Email Sent');
  await expect(page).toHaveURL(url(`/inbox/${c.id}`, s.domain));
  const reply = thread(page).locator('[data-kind="outgoing"]');
  await expect(reply).toContainText('Parcels ship within two working days.');
  await expect(reply).toContainText('Cc: boss@example.test');
  await expect(reply.getByRole('link', { name: 'tracking.txt' })).toHaveAttribute('href', /^\/attachments\/\d+$/);
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('');

  // A reply that left by email cannot be edited (the customer holds the original, ADR 033); the own note can.
  await expect(reply.getByText('Edit', { exact: true })).toHaveCount(0);
  await note.getByText('Edit', { exact: true }).click();
  await note.getByLabel('Edit message').fill('Customer is a VIP, be very quick');
  await note.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Message Edited');
  await expect(note).toContainText('Customer is a VIP, be very quick');
  await expect(note).toContainText('(edited)');

  // Delete the reply, then the note, each after the confirmation.
  await reply.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog')).toContainText('Are you sure you want to delete ?');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Message Deleted');
  await expect(thread(page).locator('[data-kind="outgoing"]')).toHaveCount(0);
  await note.getByRole('button', { name: 'Delete note' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Note Deleted');
  await expect(thread(page).locator('[data-kind="note"]')).toHaveCount(0);
});

test('merge, split and delete conversations, without JavaScript', async ({ page }) => {
  const s = await setup();
  const first = await s.open('Refund please', 'First request for a refund');
  const second = await s.open('Refund again', 'Second request, still waiting');
  await signIn(page, s);
  await page.goto(url(`/inbox/${first.id}`, s.domain));

  // The contact's other conversation is offered; ticking it merges it here.
  await ops(page)
    .getByRole('checkbox', { name: new RegExp(`#${second.id} Refund again`) })
    .check();
  await ops(page).getByRole('button', { name: 'Merge' }).click();
  // Nothing is merged before the confirmation, which shows what will move here (ADR 035).
  const confirm = page.getByTestId('merge-confirm');
  await expect(confirm.getByRole('heading')).toHaveText(`Merge 1 conversation into #${first.id}?`);
  await expect(confirm).toContainText(`#${second.id} Refund again`);
  await expect(confirm).toContainText('1 message');
  await expect(confirm).toContainText('Second request, still waiting');
  expect((await conversation(second.id)).mergedIntoId).toBeNull();
  await confirm.getByRole('button', { name: 'Merge it' }).click();
  await expect(toast(page)).toHaveText('Conversation Merged');
  await expect(thread(page)).toContainText('Second request, still waiting');
  await expect(thread(page)).toContainText(`Merged #${second.id} into this conversation`);
  expect((await conversation(second.id)).mergedIntoId).toBe(first.id);

  // Split the merged message out again.
  const moved = thread(page).locator('[data-kind="incoming"]', { hasText: 'Second request, still waiting' });
  await moved.getByRole('button', { name: 'Split' }).click();
  await expect(toast(page)).toHaveText('Conversation split');
  await expect(page).not.toHaveURL(url(`/inbox/${first.id}`, s.domain));
  await expect(thread(page)).toContainText('Second request, still waiting');
  await expect(thread(page)).toContainText(`Split from #${first.id}`);

  // Merge by typing an id, then delete.
  const third = await s.open('Unrelated', 'Another topic', 'zed@example.test');
  await page.goto(url(`/inbox/${first.id}`, s.domain));
  await ops(page).getByLabel('Conversation ids').fill(`#${third.id}`);
  await ops(page).getByRole('button', { name: 'Merge' }).click();
  await page.getByTestId('merge-confirm').getByRole('button', { name: 'Merge it' }).click();
  await expect(toast(page)).toHaveText('Conversation Merged');
  await expect(thread(page)).toContainText('Another topic');
  await ops(page).getByRole('button', { name: 'Delete conversation' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Conversation Deleted');
  await expect(page).toHaveURL(url('/inbox', s.domain));
  expect((await conversation(first.id)).deletedAt).not.toBeNull();
});

test('mass actions on a selection of the list, without JavaScript', async ({ page }) => {
  const s = await setup();
  const one = await s.open('Mass one', 'a');
  const two = await s.open('Mass two', 'b', 'bo@example.test');
  const three = await s.open('Mass three', 'c', 'cy@example.test');
  await signIn(page, s);
  await page.goto(url('/inbox', s.domain));
  const bulk = page.getByTestId('bulk-actions');
  const row = (id: number) => page.getByTestId(`conversation-${id}`);

  // Nothing ticked: the form says so.
  await bulk.getByLabel('Status').selectOption('resolved');
  await bulk.getByRole('button', { name: 'Set status' }).click();
  await expect(page.getByText('Select at least one conversation')).toBeVisible();

  await row(one.id).getByRole('checkbox').check();
  await row(two.id).getByRole('checkbox').check();
  await bulk.getByLabel('Assign to').selectOption({ label: 'Ari Agent' });
  await bulk.getByRole('button', { name: 'Assign' }).click();
  await expect(toast(page)).toHaveText('Conversations Assigned');
  await expect(row(one.id)).toContainText('Ari Agent');
  await expect(row(two.id)).toContainText('Ari Agent');
  await expect(row(three.id)).not.toContainText('Ari Agent');

  await row(one.id).getByRole('checkbox').check();
  await row(three.id).getByRole('checkbox').check();
  await bulk.getByLabel('Tag').selectOption({ label: 'vip' });
  await bulk.getByRole('button', { name: 'Add tag' }).click();
  await expect(toast(page)).toHaveText('Tags Updated');
  await expect(row(one.id)).toContainText('vip');
  await expect(row(three.id)).toContainText('vip');

  await row(two.id).getByRole('checkbox').check();
  await bulk.getByLabel('Priority').selectOption('high');
  await bulk.getByRole('button', { name: 'Set priority' }).click();
  await expect(toast(page)).toHaveText('Priority Updated');
  await expect(row(two.id)).toContainText('high');

  await row(two.id).getByRole('checkbox').check();
  await bulk.getByLabel('Move to').selectOption({ label: 'Billing' });
  await bulk.getByRole('button', { name: 'Move' }).click();
  await expect(toast(page)).toHaveText('Conversation Moved');
  await expect(row(two.id)).toContainText('Billing');

  await row(one.id).getByRole('checkbox').check();
  await row(two.id).getByRole('checkbox').check();
  await bulk.getByLabel('Status').selectOption('resolved');
  await bulk.getByRole('button', { name: 'Set status' }).click();
  await expect(toast(page)).toHaveText('Status Updated');
  await expect(row(one.id)).toHaveCount(0);
  await expect(page.getByTestId('status-counts')).toContainText('Resolved2');

  await row(three.id).getByRole('checkbox').check();
  await bulk.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog')).toContainText('Are you sure you want to delete ?');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Conversation Deleted');
  await expect(row(three.id)).toHaveCount(0);
  expect((await conversation(three.id)).deletedAt).not.toBeNull();
  expect((await conversation(one.id)).status).toBe('resolved');
});

test('an internal ticket: a field error, then the ticket, without JavaScript', async ({ page }) => {
  const s = await setup();
  await signIn(page, s);
  await page.goto(url('/inbox', s.domain));
  await page.getByRole('link', { name: 'New ticket' }).click();
  await expect(page).toHaveURL(url('/inbox/new', s.domain));
  await page.getByLabel('Inbox').selectOption({ label: 'Support' });
  await page.getByLabel('Contact email').fill('tess.at.example');
  await page.getByLabel('Contact name').fill('Tess Ticket');
  await page.getByLabel('Subject').fill('Printer on fire');
  await page.getByLabel('Message').fill('Smoke from tray 2, called by phone');
  await page.getByRole('button', { name: 'Create ticket' }).click();
  await expect(fieldError(page, 'Enter a valid email address')).toBeVisible();
  await expect(page.getByLabel('Subject')).toHaveValue('Printer on fire');
  await expect(page.getByLabel('Message')).toHaveValue('Smoke from tray 2, called by phone');
  await page.getByLabel('Contact email').fill('tess@example.test');
  await page.getByRole('button', { name: 'Create ticket' }).click();
  await expect(toast(page)).toHaveText('Ticket Created');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Printer on fire');
  await expect(thread(page)).toContainText('Smoke from tray 2, called by phone');
  await expect(page.getByTestId('contact-panel')).toContainText('Tess Ticket');
  const [row] = await getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, s.account.id), eq(schema.conversations.subject, 'Printer on fire')));
  expect(row.sourceType).toBe('internal_ticket');
});
