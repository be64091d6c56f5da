import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startGoogleCalendarStandIn } from '../../helpers/stand-ins/google-calendar';
import { latestMail, port, signIn, url } from '../helpers';

// The Parley under test calls Google at E2E_GOOGLE_PORT (global-setup); every test here runs without JavaScript.
test.describe.configure({ mode: 'serial' });
let google: Awaited<ReturnType<typeof startGoogleCalendarStandIn>>;
test.beforeAll(async ({}, info) => {
  // The reviews' Google spec may hold the fixed port a moment (it waits for this one likewise).
  info.setTimeout(180_000);
  google = await startGoogleCalendarStandIn({ port: Number(process.env.E2E_GOOGLE_PORT), clientId: 'parley-e2e.apps.googleusercontent.com', clientSecret: 'e2e-secret', email: 'olive@gmail.test', waitForPortMs: 120_000 });
});
test.afterAll(async () => {
  await google.close();
});

async function createMeeting(page: Page, domain: string, name: string) {
  await page.goto(url('/settings/meetings', domain));
  await page.getByTestId('create-meeting').click();
  await expect(page).toHaveURL(url('/settings/meetings/create', domain));
  await page.getByLabel('Meeting Name', { exact: true }).fill(name);
  await page.getByLabel('Slot length', { exact: true }).selectOption('60');
  await page.getByLabel('Days', { exact: true }).selectOption('everyday');
  await page.getByLabel('From', { exact: true }).fill('09:00');
  await page.getByLabel('To', { exact: true }).fill('17:00');
  await page.getByLabel('Time zone of these hours', { exact: true }).selectOption('Europe/London');
  await page.getByLabel('Booking window', { exact: true }).selectOption('3');
  await page.getByLabel('1 hour', { exact: true }).check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(url('/settings/meetings', domain));
  await expect(page.getByTestId('meeting-types')).toContainText(name);
}

test('create a meeting type, book it in another time zone, get the invitation, cancel by its link', async ({ page, request }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await createMeeting(page, a.domain, 'Product demo');
  const bookingHref = await page.getByTestId('meeting-types').getByRole('link', { name: /\/meet\// }).getAttribute('href');

  // A visitor, signed out, in New York.
  const visitor = await page.context().browser()!.newContext({ javaScriptEnabled: false });
  const v = await visitor.newPage();
  await v.goto(url(bookingHref!, a.domain));
  await v.getByLabel('Times shown in').selectOption('America/New_York');
  await v.getByRole('button', { name: 'Show times' }).click();
  await expect(v.getByTestId('booking-page')).toContainText('(America/New_York)');
  await v.getByTestId('booking-days').getByRole('link').nth(1).click();
  const firstTime = v.getByTestId('booking-times').getByRole('radio').first();
  const start = Number(await firstTime.getAttribute('value'));
  const nyTime = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' }).format(start);
  await expect(v.getByTestId('booking-times')).toContainText(nyTime);
  await firstTime.check();
  await v.getByLabel('Name').fill('Vera Visitor');
  await v.getByLabel('Email').fill(`vera@${a.domain}.test`);
  await v.getByLabel('Note (optional)').fill('Pricing questions');
  await v.getByRole('button', { name: 'Book' }).click();
  await expect(v.getByRole('heading', { name: 'You are booked' })).toBeVisible();
  await expect(v.getByTestId('booking-when')).toContainText('America/New_York');

  // The confirmation email, its invitation, and the link in it.
  const mail = await latestMail(`vera@${a.domain}.test`, { subject: /^Booked: Product demo$/ });
  const manage = /https?:\/\/\S+\/meet\/booking\/\S+/.exec(mail.text)![0];
  // Node does not resolve *.localhost as Chromium does: the file is fetched from the loopback address with the account's Host.
  const ics = await request.get(`http://127.0.0.1:${port()}${new URL(manage).pathname}/ics`, { headers: { host: `${a.domain}.localhost:${port()}` } });
  expect(ics.headers()['content-type']).toContain('text/calendar');
  expect(await ics.text()).toContain('METHOD:REQUEST');

  // CRM → Meetings counts it; the contact has it on the timeline.
  await page.goto(url('/customers/meetings', a.domain));
  await expect(page.getByTestId('crm-meetings')).toContainText('Product demo');
  await expect(page.getByTestId('menu-meetings')).toContainText('1');
  await page.getByRole('link', { name: 'Product demo' }).first().click();
  await expect(page.getByTestId('bookings')).toContainText('Vera Visitor');

  // Reschedule by the link: another time, the page says it moved, the updated invitation arrives.
  await v.goto(url(new URL(manage).pathname, a.domain));
  await v.getByTestId('reschedule-link').click();
  await expect(v.getByTestId('reschedule-page')).toBeVisible();
  // The booked day, as on the booking page: the first day may have one time left late in the afternoon.
  await v.getByTestId('booking-days').getByRole('link').nth(1).click();
  await v.locator(`[data-testid="booking-times"] input[type="radio"]:not([value="${start}"])`).first().check();
  await v.getByRole('button', { name: 'Move my meeting' }).click();
  await expect(v.getByRole('heading', { name: 'Your meeting moved' })).toBeVisible({ timeout: 30_000 });
  await latestMail(`vera@${a.domain}.test`, { subject: /^Rescheduled: Product demo$/ });

  await v.goto(url(new URL(manage).pathname, a.domain));
  await v.getByRole('button', { name: 'Cancel meeting' }).click();
  await expect(v.getByTestId('booking-cancelled')).toBeVisible();
  await latestMail(`vera@${a.domain}.test`, { subject: /^Cancelled: Product demo$/ });
  await visitor.close();
});

test('connect the Google Calendar stand-in and see a busy time leave the booking page', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await createMeeting(page, a.domain, 'Support call');
  await page.getByTestId('connect-google').click();
  await expect(page).toHaveURL(url('/settings/meetings', a.domain));
  await expect(page.getByTestId('calendar-connection')).toContainText('Google Calendar connected (olive@gmail.test)');

  const href = await page.getByTestId('meeting-types').getByRole('link', { name: /\/meet\// }).getAttribute('href');
  await page.goto(url(`${href}?tz=Europe/London`, a.domain));
  // Tomorrow has all eight times; late in the afternoon today may have one.
  await page.getByTestId('booking-days').getByRole('link').nth(1).click();
  const radios = page.getByTestId('booking-times').getByRole('radio');
  const second = Number(await radios.nth(1).getAttribute('value'));
  await expect(page.locator(`input[value="${second}"]`)).toHaveCount(1);
  google.busy.push({ start: new Date(second).toISOString(), end: new Date(second + 3_600_000).toISOString() });
  // Page views may reuse free/busy for 30 s: a booking attempt reads it fresh and is refused; then the page no longer offers it.
  await page.locator(`input[value="${second}"]`).check();
  await page.getByLabel('Name').fill('Late Larry');
  await page.getByLabel('Email').fill('larry@example.test');
  await page.getByRole('button', { name: 'Book' }).click();
  await expect(page.getByTestId('slot-taken')).toContainText('This time was just booked by someone else');
  await expect(page.locator(`input[value="${second}"]`)).toHaveCount(0);

  await page.goto(url('/settings/meetings', a.domain));
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await expect(page.getByTestId('connect-google')).toBeVisible();
  expect(await getDb().select().from(schema.calendarConnections).where(eq(schema.calendarConnections.accountId, a.account.id))).toHaveLength(0);
});

test('log time on a conversation and see the totals; see a settings change in the audit log', async ({ page }) => {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Refund please', contact: { email: `cara@${a.domain}.test`, name: 'Cara Customer' }, message: { kind: 'incoming', text: 'Hello' } });
  await signIn(page, a);
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('time-panel').getByRole('link', { name: 'Log time and see entries' }).click();
  await page.getByLabel('Time spent (minutes, or h:mm)').fill('1:15');
  await page.getByLabel('Note').fill('Checked the invoice');
  await page.getByLabel('Billable').check();
  await page.getByRole('button', { name: 'Log time' }).click();
  await expect(page.getByTestId('time-total')).toContainText('Total 1h 15m, billable 1h 15m');
  await page.getByTestId('time-tracking').getByRole('button', { name: 'Start timer' }).click();
  await expect(page.getByRole('button', { name: 'Stop timer' })).toBeVisible();
  await page.getByRole('button', { name: 'Stop timer' }).click();
  await expect(page.getByTestId('time-per-agent')).toContainText('1h 15m');
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await expect(page.getByTestId('conversation-time-total')).toContainText('1h 15m logged');

  const [before] = await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, a.account.id));
  await page.goto(url('/settings/account-settings', a.domain));
  await page.getByLabel('Organisation name').fill('Renamed Company');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.goto(url('/settings/audit-logs?type=account_updated', a.domain));
  const row = page.getByTestId('audit-log').getByRole('row').nth(1);
  await expect(row).toContainText('Account updated');
  const change = row.locator('li', { hasText: 'Renamed Company' });
  await expect(change.locator('del')).toHaveText(before.name);
  await expect(change.locator('ins')).toHaveText('Renamed Company');
  const [acct] = await getDb().select().from(schema.accounts).where(and(eq(schema.accounts.id, a.account.id)));
  expect(acct.name).toBe('Renamed Company');
});
