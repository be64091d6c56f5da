import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { getDb, schema } from '../../../db/client';
import { createEmailInbox, setSmtpSettings } from '../../../app/models/email/email-inboxes.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/** The mail provider of the inbox (its own SMTP settings): a real SMTP server on loopback that keeps what it gets. */
async function startCapture() {
  const received: Buffer[] = [];
  const server = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _s, cb) => (auth.username === 'support' && auth.password === 'smtp-pass' ? cb(null, { user: 'support' }) : cb(new Error('Invalid login'))),
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

/** The customer's mail server talking to Parley's inbound SMTP port. */
function customerMailer() {
  return nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.E2E_SMTP_INBOUND_PORT), secure: false, ignoreTLS: true });
}

test('an email becomes a conversation; the reply leaves over SMTP with threading headers; the answer lands in the same conversation (no JavaScript)', async ({ page }) => {
  const a = await createTestAccount();
  const capture = await startCapture();
  const mailer = customerMailer();
  try {
    const support = `help@${a.domain}.test`;
    const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: support, mode: 'forwarding' });
    await setSmtpSettings({
      accountId: a.account.id,
      actorId: a.owner.id,
      id: inbox.id,
      input: { host: '127.0.0.1', port: capture.port, secure: false, user: 'support', password: 'smtp-pass' },
    });
    const forwarding = `${inbox.forwardingToken}@${process.env.INBOUND_EMAIL_DOMAIN}`;

    // 1. The customer writes to the support address, which forwards to Parley.
    const first = await mailer.sendMail({
      from: 'Cara Customer <cara@example.test>',
      to: forwarding,
      subject: 'My order never arrived',
      text: 'Order 4711 was due last week.',
    });
    const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id));
    expect(conversation).toMatchObject({ subject: 'My order never arrived', sourceType: 'email' });

    await signIn(page, a);
    await page.goto(url('/inbox', a.domain));
    await page.getByRole('link', { name: 'My order never arrived' }).click();
    await expect(page).toHaveURL(url(`/inbox/${conversation.id}`, a.domain));
    const thread = page.getByTestId('thread');
    await expect(thread.locator('[data-kind="incoming"]')).toContainText('Order 4711 was due last week.');
    await expect(page.getByTestId('contact-panel')).toContainText('cara@example.test');

    // 2. The agent replies; the engine sends it through the inbox's SMTP server.
    await page.getByLabel('Message', { exact: true }).fill('Sorry! A new parcel leaves today.');
    await page.getByLabel('Cc', { exact: true }).fill('logistics@example.test');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect(toast(page)).toHaveText('Email Sent');
    await expect.poll(() => capture.received.length, { timeout: 15_000 }).toBe(1);
    const reply: ParsedMail = await simpleParser(capture.received[0]);
    expect(reply.from?.value[0].address).toBe(support);
    expect(reply.subject).toBe('Re: My order never arrived');
    expect(reply.inReplyTo).toBe(first.messageId);
    expect(reply.references).toBe(first.messageId);
    expect(reply.cc && !Array.isArray(reply.cc) ? reply.cc.text : '').toBe('logistics@example.test');
    expect(reply.text?.trim()).toBe('Sorry! A new parcel leaves today.');
    const [sent] = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversation.id)).orderBy(schema.messages.id).offset(1);
    expect(sent).toMatchObject({ kind: 'outgoing', emailMessageId: reply.messageId });
    // The server has the mail a moment before the engine records it as sent: the page is read after that.
    await expect
      .poll(async () => (await getDb().select({ s: schema.messages.deliveryStatus }).from(schema.messages).where(eq(schema.messages.id, sent.id)))[0]?.s, { timeout: 15_000 })
      .toBe('sent');
    await page.reload();
    await expect(thread.locator('[data-kind="outgoing"]')).toContainText('sent');

    // 3. The customer answers (their mail client sets In-Reply-To and References); it joins the same conversation.
    await mailer.sendMail({
      from: 'Cara Customer <cara@example.test>',
      to: forwarding,
      subject: 'Re: My order never arrived',
      text: 'Thank you, it just arrived!',
      inReplyTo: reply.messageId,
      references: [first.messageId, reply.messageId!],
    });
    await page.reload();
    await expect(thread.locator('[data-kind="incoming"]')).toHaveCount(2);
    await expect(thread.locator('[data-kind="incoming"]', { hasText: 'Thank you, it just arrived!' })).toHaveCount(1);
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id))).toHaveLength(1);
  } finally {
    mailer.close();
    await capture.close();
  }
});
