import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { deleteEmailInbox, readEmailSettings } from '../../../app/models/email/email-inboxes.server';
import { createTestAccount, TEST_PASSWORD } from '../../factories';
import { startMailOAuthStandIn } from '../../helpers/stand-ins/mail-oauth';
import { signIn, url } from '../helpers';

/**
 * Settings → Emails → Connect with Google, without JavaScript (ADR 158). The Parley under test calls Google at
 * E2E_GOOGLE_PORT with the Calendar client (global-setup), which Gmail falls back to; Microsoft 365 has no client
 * there, so its button is replaced by what the operator must set.
 */
test.describe.configure({ mode: 'serial' });
let google: Awaited<ReturnType<typeof startMailOAuthStandIn>>;
test.beforeAll(async ({}, info) => {
  // Other Google specs may hold the fixed port a moment.
  info.setTimeout(180_000);
  google = await startMailOAuthStandIn({
    port: Number(process.env.E2E_GOOGLE_PORT),
    clientId: 'parley-e2e.apps.googleusercontent.com',
    clientSecret: 'e2e-secret',
    email: 'help@gmail.test',
    waitForPortMs: 120_000,
  });
});
test.afterAll(async () => {
  await google?.close();
});

test('connect a Gmail mailbox with the Connect with Google button; an unconfigured provider says what the operator must set', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.owner.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/emails', a.domain));
  await expect(page.getByTestId('connect-microsoft-unconfigured')).toContainText(
    'the operator must set MICROSOFT_OAUTH_CLIENT_ID and MICROSOFT_OAUTH_CLIENT_SECRET',
  );
  await expect(page.getByRole('button', { name: 'Connect with Microsoft 365' })).toHaveCount(0);

  // A plain form post, Google's consent page (the stand-in approves at once), back to the new inbox.
  await page.getByRole('button', { name: 'Connect with Google' }).click();
  await expect(page).toHaveURL(new RegExp(`/settings/emails/\\d+$`));
  await expect(page.getByTestId('toast')).toHaveText('help@gmail.test connected with Google');
  await expect(page.getByTestId('oauth-reconnect')).toContainText('Connected with Google as help@gmail.test');
  await expect(page.getByRole('button', { name: 'Reconnect with Google' })).toBeVisible();
  expect(google.consentRequests.at(-1)?.get('scope')).toBe('https://mail.google.com/ email');

  const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
  expect(readEmailSettings(inbox).imap).toMatchObject({ host: 'imap.gmail.com', auth: 'xoauth2', user: 'help@gmail.test' });
  // Nothing here can reach imap.gmail.com: the inbox goes, so the server's IMAP manager stops trying.
  await deleteEmailInbox({ accountId: a.account.id, actorId: a.owner.id, id: inbox.id });
});
