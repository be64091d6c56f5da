import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { SMS_MESSAGES } from '../../../app/models/channels/sms-schemas';
import { createTestAccount } from '../../factories';
import { startSmsGateway } from '../../helpers/stand-ins/sms-gateway';
import { startTwilioStandIn } from '../../helpers/stand-ins/twilio';
import { fieldError, hydrated, signIn, url } from '../helpers';

// The Parley under test calls Twilio at E2E_TWILIO_PORT (global-setup): one stand-in for this file's tests.
test.describe.configure({ mode: 'serial' });
let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
// A custom gateway on loopback: saving an inbox posts it a signed check first (ADR 039).
let gateway: Awaited<ReturnType<typeof startSmsGateway>>;
test.beforeAll(async () => {
  twilio = await startTwilioStandIn({ port: Number(process.env.E2E_TWILIO_PORT) });
  gateway = await startSmsGateway({ secret: () => '' });
});
test.afterAll(async () => {
  await twilio.close();
  await gateway.close();
});

const toast = (page: Page) => page.getByTestId('toast');

test('SMS form with Twilio, without JavaScript: every message, number fetch, create, then an update that cannot change the provider or credentials', async ({ page }) => {
  const a = await createTestAccount();
  twilio.addAccount({ accountSid: `AC${a.account.id}e2e`, authToken: 'e2e-auth-token', numbers: [{ phone_number: '+15005550006', friendly_name: 'Main line' }] });
  await signIn(page, a);
  await page.goto(url('/settings/sms', a.domain));
  await expect(page).toHaveTitle('SMS | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Inbox' }).click();
  await expect(page).toHaveURL(url('/settings/sms/new', a.domain));

  // Nothing chosen: the provider is required.
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SMS_MESSAGES.providerRequired)).toBeVisible();

  await page.getByLabel('Inbox Name').fill('Support texts');
  await page.getByLabel('Provider').selectOption('twilio');
  await page.getByRole('button', { name: 'Choose provider' }).click();
  await expect(page.getByTestId('twilio-fields')).toBeVisible();
  await expect(page.getByLabel('Inbox Name')).toHaveValue('Support texts');
  await page.getByLabel('Inbox Name').fill('');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  for (const message of [
    SMS_MESSAGES.nameRequired,
    SMS_MESSAGES.accountSidRequired,
    SMS_MESSAGES.sidRequired,
    SMS_MESSAGES.authTokenRequired,
    SMS_MESSAGES.phone,
    SMS_MESSAGES.assignees,
    SMS_MESSAGES.threading,
  ]) {
    await expect(fieldError(page, message).first()).toBeVisible();
  }
  await expect(page.getByLabel('Inbox Name')).toHaveAttribute('maxlength', '20');
  await page.getByLabel('Auto-resolve after (days)').fill('-2');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SMS_MESSAGES.autoResolve)).toBeVisible();

  // Wrong token: Twilio's refusal is shown, nothing is fetched.
  await page.getByLabel('Inbox Name').fill('Support texts');
  await page.getByLabel('Account SID').fill(`AC${a.account.id}e2e`);
  await page.getByLabel('Authentication Key').fill(`AC${a.account.id}e2e`);
  await page.getByLabel('Auth Token', { exact: true }).fill('wrong');
  await page.getByRole('button', { name: 'Fetch numbers' }).click();
  await expect(page.getByText('Twilio answered 401: Authenticate (error 20003)')).toBeVisible();
  await page.getByLabel('Auth Token', { exact: true }).fill('e2e-auth-token');
  await page.getByRole('button', { name: 'Fetch numbers' }).click();
  await expect(page.getByLabel('Phone Number')).toBeVisible();
  await expect(page.getByLabel('Inbox Name')).toHaveValue('Support texts');
  await page.getByLabel('Phone Number').selectOption('+15005550006');
  await page.getByLabel('Threading Interval').selectOption({ label: '01 Week' });
  await page.getByLabel('Auto-resolve after (days)').fill('3');
  await page.getByTestId('assignees').getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Inbox Created');
  const row = page.getByTestId('sms-inboxes').getByRole('row', { name: /Support texts/ });
  await expect(row).toContainText('Twilio');
  await expect(row).toContainText('+15005550006');
  await expect(row).toContainText('01 Week');

  await page.getByTestId('sms-inboxes').getByRole('link', { name: 'Support texts' }).click();
  await expect(page.getByLabel('Provider')).toBeDisabled();
  const fixed = page.getByTestId('fixed-fields');
  await expect(fixed.getByLabel('Phone Number')).toBeDisabled();
  await expect(fixed.getByLabel('Phone Number')).toHaveValue('+15005550006');
  await expect(fixed.getByLabel('Account SID')).toBeDisabled();
  await expect(fixed.getByLabel('Auth Token', { exact: true })).toBeDisabled();
  await expect(fixed.getByLabel('Auth Token', { exact: true })).not.toHaveValue('e2e-auth-token');
  await expect(page.getByTestId('webhook-urls')).toContainText('/webhooks/twilio/');
  await expect(page.getByLabel('Threading Interval')).toHaveValue('7');
  await page.getByLabel('Inbox Name').fill('Texts');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Inbox Updated');
  const [inbox] = await getDb().select().from(schema.inboxes).where(and(eq(schema.inboxes.accountId, a.account.id), eq(schema.inboxes.channelType, 'sms')));
  expect(inbox.name).toBe('Texts');
  expect(inbox.settings).toMatchObject({ provider: 'twilio', phoneNumber: '+15005550006', authToken: 'e2e-auth-token', threadingInterval: 7, autoResolvedDays: 3 });
});

test('SMS form with a custom gateway, without JavaScript: the shared secret is shown in a disabled field and the webhook URL is required', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/sms/new', a.domain));
  await page.getByLabel('Inbox Name').fill('Gateway');
  await page.getByLabel('Provider').selectOption('custom_sms');
  await page.getByRole('button', { name: 'Choose provider' }).click();
  const custom = page.getByTestId('custom-fields');
  await expect(custom).toBeVisible();
  const token = custom.getByLabel('Auth Token', { exact: true });
  await expect(token).toBeDisabled();
  const secret = await token.inputValue();
  expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
  await expect(custom.getByLabel('Phone Number')).toHaveAttribute('maxlength', '14');
  await custom.getByLabel('Phone Number').fill('12345');
  await page.getByLabel('Threading Interval').selectOption({ label: 'Never' });
  await page.getByTestId('assignees').getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SMS_MESSAGES.phone)).toBeVisible();
  await expect(fieldError(page, SMS_MESSAGES.webhookUrlRequired)).toBeVisible();
  // The same secret survives the failed submission.
  await expect(page.getByTestId('custom-fields').getByLabel('Auth Token', { exact: true })).toHaveValue(secret);
  await page.getByTestId('custom-fields').getByLabel('Phone Number').fill('+4915112345');
  await page.getByLabel('Webhook URL').fill(gateway.url);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Inbox Created');
  await expect(page.getByTestId('sms-inboxes').getByRole('row', { name: /Gateway/ })).toContainText('Custom SMS');
  const [inbox] = await getDb().select().from(schema.inboxes).where(and(eq(schema.inboxes.accountId, a.account.id), eq(schema.inboxes.channelType, 'sms')));
  expect(inbox.secret).toBe(secret);

  await page.getByTestId('sms-inboxes').getByRole('link', { name: 'Gateway' }).click();
  await expect(page.getByLabel('Provider')).toBeDisabled();
  await expect(page.getByLabel('Webhook URL')).toHaveValue(gateway.url);
  await expect(page.getByTestId('webhook-urls')).toContainText(`/webhooks/sms/${inbox.id}`);
  await expect(page.locator('body')).not.toContainText(secret);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('Create stays disabled while the form is invalid, and the Twilio numbers come as soon as the credentials are typed', async ({ page }) => {
    const a = await createTestAccount();
    twilio.addAccount({ accountSid: `AC${a.account.id}js`, authToken: 'js-auth-token', numbers: [{ phone_number: '+15005550007', friendly_name: 'JS line' }] });
    await signIn(page, a);
    await page.goto(url('/settings/sms/new', a.domain));
    await hydrated(page);
    const create = page.getByRole('button', { name: 'Create', exact: true });
    await expect(create).toBeDisabled();
    await page.getByLabel('Inbox Name').fill('Texts by script');
    await page.getByLabel('Provider').selectOption('twilio');
    await page.getByLabel('Account SID').fill(`AC${a.account.id}js`);
    await page.getByLabel('Authentication Key').fill(`AC${a.account.id}js`);
    await page.getByLabel('Auth Token', { exact: true }).fill('js-auth-token');
    // No "Fetch numbers" click: the numbers arrive by themselves.
    await expect(page.getByLabel('Phone Number')).toBeVisible();
    await page.getByLabel('Phone Number').selectOption('+15005550007');
    await page.getByLabel('Threading Interval').selectOption({ label: '01 Day' });
    await expect(create).toBeDisabled();
    await page.getByTestId('assignees').getByRole('checkbox').first().check();
    await expect(create).toBeEnabled();
    await page.getByLabel('Inbox Name').fill('');
    await expect(create).toBeDisabled();
    await page.getByLabel('Inbox Name').fill('Texts by script');
    await create.click();
    await expect(toast(page)).toHaveText('Inbox Created');
    await expect(page.getByTestId('sms-inboxes').getByRole('row', { name: /Texts by script/ })).toContainText('+15005550007');
  });
});
