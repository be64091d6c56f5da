import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { getDb, schema } from '../../../db/client';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, latestMail, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/** A mail provider's SMTP server on loopback that keeps what it is given. */
async function startCapture(user: string, pass: string) {
  const received: Buffer[] = [];
  const server = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _s, cb) => (auth.username === user && auth.password === pass ? cb(null, { user }) : cb(new Error('Invalid login'))),
    onData(stream, _s, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks));
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as { port: number }).port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('create an email inbox, its SMTP settings, and verify forwarding with the verification mail, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  const capture = await startCapture('mailer', 'mail-pass');
  try {
    await signIn(page, a);
    await page.goto(url('/settings/emails', a.domain));
    await expect(page).toHaveTitle('Emails | Settings | Parley');
    await expect(page.getByTestId('empty')).toBeVisible();
    await page.getByRole('link', { name: 'Create Inbox' }).click();
    await expect(page).toHaveURL(url('/settings/emails/new', a.domain));
    await expect(page.getByLabel('How mail reaches Parley')).toHaveValue('forwarding');

    // Bad input: the messages under their fields, what was typed kept.
    await page.getByLabel('Support address').fill('not-an-address');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(fieldError(page, 'Inbox Name is not allowed to be empty')).toBeVisible();
    await expect(fieldError(page, 'Enter a valid email address')).toBeVisible();
    await expect(page.getByLabel('Support address')).toHaveValue('not-an-address');

    const support = `help@${a.domain}.test`;
    await page.getByLabel('Inbox Name').fill('Support');
    await page.getByLabel('Support address').fill(support);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(toast(page)).toHaveText('Inbox Created');
    await expect(page).toHaveURL(new RegExp(`/settings/emails/\\d+$`));
    const inboxUrl = page.url();
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
    const forwarding = `${inbox.forwardingToken}@${process.env.INBOUND_EMAIL_DOMAIN}`;
    await expect(page.getByTestId('forwarding-address')).toHaveText(forwarding);
    await expect(page.getByTestId('verified-state')).toHaveText('Not verified yet');

    // Without SMTP settings the verification mail goes out through Parley's sender (here the development mailbox).
    await page.getByRole('button', { name: 'Send verification mail' }).click();
    await expect(toast(page)).toHaveText('Invitation sent to your email for forwarding');
    expect((await latestMail(support)).subject).toBe('Forwarding check for Support');

    // The inbox's own SMTP server; the password is never shown back.
    const smtp = page.getByTestId('smtp-form');
    await smtp.getByLabel('SMTP host').fill('127.0.0.1');
    await smtp.getByLabel('SMTP port').fill(String(capture.port));
    await smtp.getByLabel('SMTP user name').fill('mailer');
    await smtp.getByLabel('SMTP password').fill('mail-pass');
    // The provider's server offers no STARTTLS: saving with the STARTTLS default tests it and says so.
    await smtp.getByRole('button', { name: 'Save SMTP settings' }).click();
    await expect(toast(page)).toHaveText('Inbox Updated, but Parley cannot reach the mail server: The server does not offer STARTTLS: choose TLS or None');
    await expect(page.getByTestId('health-smtp-error')).toHaveText('The server does not offer STARTTLS: choose TLS or None');
    await expect(page.getByTestId('failing-channels')).toContainText('Sending mail (SMTP)');
    await page.getByTestId('smtp-form').getByLabel('Security').selectOption('none');
    await page.getByTestId('smtp-form').getByLabel('SMTP password').fill('mail-pass');
    await page.getByTestId('smtp-form').getByRole('button', { name: 'Save SMTP settings' }).click();
    await expect(toast(page)).toHaveText('Inbox Updated');
    await expect(page).toHaveURL(url('/settings/emails', a.domain));
    await expect(page.getByTestId('email-inboxes')).toContainText(forwarding);
    await page.goto(inboxUrl);
    await expect(page.getByTestId('smtp-state')).toContainText(`Replies leave through 127.0.0.1:${capture.port} from ${support}`);
    await expect(page.getByTestId('smtp-form').getByLabel('SMTP password')).toHaveValue('');
    expect(await page.content()).not.toContain('mail-pass');

    // Now the check leaves through that server; the support mailbox forwards it to Parley, which is then verified.
    await page.getByRole('button', { name: 'Send verification mail' }).click();
    await expect(toast(page)).toHaveText('Invitation sent to your email for forwarding');
    await expect.poll(() => capture.received.length).toBe(1);
    const forwarder = nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.E2E_SMTP_INBOUND_PORT), secure: false, ignoreTLS: true });
    await forwarder.sendMail({ envelope: { from: support, to: [forwarding] }, raw: capture.received[0] });
    forwarder.close();
    await page.reload();
    await expect(page.getByTestId('verified-state')).toContainText('Verified');
    // It opened no conversation.
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id))).toHaveLength(0);

    // Delete, after the confirmation.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(toast(page)).toHaveText('Inbox Deleted');
    await expect(page.getByTestId('empty')).toBeVisible();
  } finally {
    await capture.close();
  }
});

test('an agent without manage_emails sees the inbox locked', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const [inbox] = await getDb()
    .insert(schema.inboxes)
    .values({ accountId: a.account.id, name: 'Support', channelType: 'email', email: 'help@acme.test', forwardingToken: `tok${a.domain}`, secret: 'not-for-agents', settings: { mode: 'http' } })
    .returning();
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url(`/settings/emails/${inbox.id}`, a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await expect(page.getByRole('button', { name: /Update/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: /Send verification mail/ })).toBeDisabled();
  await expect(page.getByLabel('Inbox Name')).toBeDisabled();
  expect(await page.content()).not.toContain('not-for-agents');
});
