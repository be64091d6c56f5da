import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { CHANNEL_TYPES } from '../../db/schema/inbox';
// The engine's job table loads every sending channel, as the engine does.
import '../../engine/jobs/index';
import { deliverMessage, deliveryPathOf, loadOutgoing } from '../../app/models/channels/delivery.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { emailChatReplyIfAway, markVisitorPresence, postVisitorMessage, startVisitor, submitOfflineTicket } from '../../app/models/channels/widget.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { editMessage, MessageNotEditableError } from '../../app/models/inbox/messages.server';
import { openInternalTicket } from '../../app/models/inbox/tickets.server';
import { createContactForm, submitContactForm } from '../../app/models/productivity/contact-forms.server';
import { QUEUES } from '../../app/utils/jobs.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount } from '../factories';

/**
 * ADR 033: every agent reply reaches the customer by a real road or fails visibly. Mail goes to a real SMTP server
 * on loopback; the customer's answer comes back through Parley's own inbound SMTP server, as it would from the wild.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-delivery-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';
process.env.MAIL_FROM = 'Parley <no-reply@mail.parley.test>';

type Captured = { raw: Buffer; to: string[] };
const received: Captured[] = [];
let outbound: SMTPServer;
let inbound: Awaited<ReturnType<typeof startInboundSmtp>>;
let inboundPort: number;

beforeAll(async () => {
  outbound = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ raw: Buffer.concat(chunks), to: session.envelope.rcptTo.map((r) => r.address) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => outbound.listen(0, '127.0.0.1', resolve));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(outbound.server.address() as { port: number }).port}`;
  resetSingleton('config');
  resetSingleton('smtp-transport');
  inbound = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
  inboundPort = inbound.port;
});
afterEach(() => {
  received.length = 0;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  resetSingleton('config');
  resetSingleton('smtp-transport');
  await new Promise<void>((r) => outbound.close(() => r()));
  await inbound.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function reload(messageId: number) {
  const [m] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, messageId));
  return m;
}

async function mailTo(address: string): Promise<ParsedMail> {
  const hit = received.find((r) => r.to.includes(address));
  if (!hit) throw new Error(`no mail to ${address}; got ${received.map((r) => r.to.join(',')).join(' | ')}`);
  return simpleParser(hit.raw);
}

/** The customer answers the mail from their own client: to its Reply-To, quoting its Message-ID, over SMTP. */
async function customerAnswers(mail: ParsedMail, from: string, text: string) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inboundPort, secure: false, ignoreTLS: true });
  const to = mail.replyTo?.value[0].address ?? mail.from!.value[0].address!;
  await transport.sendMail({ from, to, subject: `Re: ${mail.subject}`, text, inReplyTo: mail.messageId, references: [mail.messageId!] });
  return to;
}

async function threadOf(conversationId: number) {
  return getDb()
    .select({ kind: schema.messages.kind, text: schema.messages.text })
    .from(schema.messages)
    .where(eq(schema.messages.conversationId, conversationId))
    .orderBy(schema.messages.id);
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function replyAndDeliver(a: { account: { id: number }; owner: { id: number } }, conversationId: number, text: string) {
  const reply = await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'outgoing', text });
  await deliverMessage({ messageId: reply.id });
  return reload(reply.id);
}

describe('replies to conversations without a sender of their own go by email and thread back', () => {
  it('a contact-form ticket', async () => {
    const a = await createTestAccount({ firstName: 'Olive' });
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website form', channelType: 'contact_form' });
    const form = await createContactForm({
      accountId: a.account.id,
      actorId: a.owner.id,
      headerText: 'Talk to us',
      subHeaderText: '',
      submitText: 'Send',
      submitMsg: 'Thanks',
      inboxId: inbox.id,
      allowPhone: false,
      allowAttachments: false,
      allowCaptcha: false,
    });
    const opened = await submitContactForm({ accountId: a.account.id, formId: form.id, name: 'Cara', email: 'cara@example.test', subject: 'Order 991', message: 'Where is it?' });
    const sent = await replyAndDeliver(a, opened.conversation.id, 'It ships tomorrow.');
    expect(sent).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'email', deliveryError: null });
    const mail = await mailTo('cara@example.test');
    expect(mail.from?.value[0]).toMatchObject({ address: 'no-reply@mail.parley.test', name: 'Olive Owner from Website form' });
    expect(mail.subject).toBe('Re: Order 991');
    expect(mail.text?.trim()).toBe('It ships tomorrow.');
    expect(mail.messageId).toBe(sent.emailMessageId);
    expect(mail.replyTo?.value[0].address).toMatch(/^[a-z0-9]+\+c\d+\.[0-9a-f]{12}@inbound\.parley\.test$/);

    await customerAnswers(mail, 'cara@example.test', 'Great, thanks!');
    const thread = await waitFor(async () => {
      const t = await threadOf(opened.conversation.id);
      return t.some((m) => m.text.includes('Great, thanks!')) && t;
    });
    expect(thread.filter((m) => m.kind !== 'system').map((m) => [m.kind, m.text.trim()])).toEqual([
      ['incoming', 'Where is it?'],
      ['outgoing', 'It ships tomorrow.'],
      ['incoming', 'Great, thanks!'],
    ]);
    // No second conversation was opened by the answer.
    const all = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id));
    expect(all).toHaveLength(1);
  });

  it('an offline-widget ticket', async () => {
    const a = await createTestAccount({ firstName: 'Olive' });
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat' });
    const { visitor } = await startVisitor({ inbox });
    const { conversationId } = await submitOfflineTicket({ visitor, values: { name: 'Dee', email: 'dee@example.test', subject: 'Refund', message: 'I want a refund' } });
    const sent = await replyAndDeliver(a, conversationId, 'Refund issued.');
    expect(sent).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'email' });
    const mail = await mailTo('dee@example.test');
    expect(mail.subject).toBe('Re: Refund');
    await customerAnswers(mail, 'dee@example.test', 'Received it, thank you');
    await waitFor(async () => (await threadOf(conversationId)).some((m) => m.kind === 'incoming' && m.text.includes('Received it')));
  });

  it('an internal ticket with a customer email', async () => {
    const a = await createTestAccount();
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Phone desk', channelType: 'internal' });
    const opened = await openInternalTicket({
      accountId: a.account.id,
      actorId: a.owner.id,
      inboxId: inbox.id,
      contact: { email: 'eve@example.test', name: 'Eve' },
      subject: 'Called about billing',
      message: 'Wants a copy of the invoice',
    });
    const sent = await replyAndDeliver(a, opened.conversation.id, 'Here is your invoice copy.');
    expect(sent).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'email' });
    expect((await mailTo('eve@example.test')).text?.trim()).toBe('Here is your invoice copy.');
  });
});

describe('web chat', () => {
  async function chat(opts: { email?: string } = {}) {
    const a = await createTestAccount();
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat' });
    const started = await startVisitor({ inbox });
    const posted = await postVisitorMessage({ visitor: started.visitor, text: 'Hello?', email: opts.email ?? null });
    return { ...a, inbox, visitor: started.visitor, conversationId: posted.conversationId };
  }

  it('reaches a present visitor in the widget', async () => {
    const s = await chat();
    await markVisitorPresence({ accountId: s.account.id, visitorId: s.visitor.id, present: true });
    const sent = await replyAndDeliver(s, s.conversationId, 'Hi there');
    expect(sent).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'widget' });
  });

  it('waits for a visitor who left and gave an email, then emails the reply', async () => {
    const s = await chat({ email: 'fay@example.test' });
    await markVisitorPresence({ accountId: s.account.id, visitorId: s.visitor.id, present: false });
    const waiting = await replyAndDeliver(s, s.conversationId, 'Are you still there?');
    expect(waiting.deliveryStatus).toBe('queued');
    expect(waiting.deliveryError).toMatch(/goes to fay@example\.test by email at/);
    const [job] = await getDb().execute<{ start_after: Date }>(
      `select start_after from pgboss.job where name = '${QUEUES.chatEmail}' and data->>'messageId' = '${waiting.id}'`,
    );
    expect(new Date(job.start_after).getTime()).toBeGreaterThan(Date.now() + 100_000);
    // Backdate the visitor's last sight so the timer finds them still away.
    await getDb().update(schema.widgetVisitors).set({ lastSeenAt: new Date(Date.now() - 60_000) }).where(eq(schema.widgetVisitors.id, s.visitor.id));
    await emailChatReplyIfAway({ messageId: waiting.id });
    expect(await reload(waiting.id)).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'email', deliveryError: null });
    expect((await mailTo('fay@example.test')).text?.trim()).toBe('Are you still there?');
  });

  it('does not email a visitor who came back in the meantime', async () => {
    const s = await chat({ email: 'gil@example.test' });
    await markVisitorPresence({ accountId: s.account.id, visitorId: s.visitor.id, present: false });
    const waiting = await replyAndDeliver(s, s.conversationId, 'Back soon?');
    expect(waiting.deliveryStatus).toBe('queued');
    // The visitor opens the page again: the reply is in front of them.
    await startVisitor({ inbox: s.inbox, token: (await import('../../app/models/channels/widget.server')).signVisitorToken({ accountId: s.account.id, inboxId: s.inbox.id, visitorId: s.visitor.id }) });
    expect(await reload(waiting.id)).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'widget' });
    await emailChatReplyIfAway({ messageId: waiting.id });
    expect(received).toHaveLength(0);
  });

  it('fails visibly when the visitor left without an email', async () => {
    const s = await chat();
    await markVisitorPresence({ accountId: s.account.id, visitorId: s.visitor.id, present: false });
    const failed = await replyAndDeliver(s, s.conversationId, 'Anyone?');
    expect(failed.deliveryStatus).toBe('failed');
    expect(failed.deliveryError).toMatch(/the visitor has left and gave no email address/);
  });
});

describe('every channel type', () => {
  it('has a deliverer for its replies, or fails them with the reason', async () => {
    const a = await createTestAccount();
    for (const channelType of CHANNEL_TYPES) {
      const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: `Inbox ${channelType}`, channelType });
      const opened = await openInternalTicket({ accountId: a.account.id, actorId: a.owner.id, inboxId: inbox.id, contact: { email: 'x@example.test' }, subject: 's', message: 'm' });
      // As if the conversation came in through the channel itself (not a ticket).
      const sourceType = ({ web: 'web', sms: 'sms', facebook: 'facebook', twitter: 'twitter', google_business: 'google_business_message', email: 'email', contact_form: 'support_form', internal: 'internal_ticket' } as const)[channelType];
      await getDb().update(schema.conversations).set({ sourceType }).where(eq(schema.conversations.id, opened.conversation.id));
      await getDb().update(schema.contacts).set({ phone: null }).where(eq(schema.contacts.accountId, a.account.id));
      const reply = await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: opened.conversation.id, kind: 'outgoing', text: 'hello' });
      const outgoing = (await loadOutgoing(reply.id))!;
      const result = await deliverMessage({ messageId: reply.id }).catch((err: Error) => ({ thrown: err.message }));
      const after = await reload(reply.id);
      // Either it left (with the road it took) or it failed with a reason shown on the message: never "sent" for nothing.
      if (after.deliveryStatus === 'sent') expect(after.deliveredVia, channelType).toBeTruthy();
      // A web chat whose visitor is away waits for them, saying until when and where it goes next.
      else if (channelType === 'web') expect([after.deliveryStatus, after.deliveryError]).toEqual(['queued', expect.stringMatching(/by email at/)]);
      else expect([after.deliveryStatus, after.deliveryError], `${channelType}: ${JSON.stringify(result)}`).toEqual(['failed', expect.stringMatching(/\w/)]);
      expect(['email', channelType]).toContain(deliveryPathOf(outgoing));
    }
  });
});

describe('editing', () => {
  it('refuses replies that left by email, keeps notes and web-chat replies editable', async () => {
    const a = await createTestAccount();
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Desk', channelType: 'internal' });
    const opened = await openInternalTicket({ accountId: a.account.id, actorId: a.owner.id, inboxId: inbox.id, contact: { email: 'h@example.test' }, subject: 's', message: 'm' });
    const emailed = await replyAndDeliver(a, opened.conversation.id, 'Sent by mail');
    await expect(editMessage({ accountId: a.account.id, actorId: a.owner.id, id: emailed.id, text: 'changed' })).rejects.toThrow(MessageNotEditableError);
    expect((await reload(emailed.id)).text).toBe('Sent by mail');
    const note = await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: opened.conversation.id, kind: 'note', text: 'n' });
    expect(await editMessage({ accountId: a.account.id, actorId: a.owner.id, id: note.id, text: 'n2' })).toMatchObject({ text: 'n2' });

    const web = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat' });
    const { visitor } = await startVisitor({ inbox: web });
    const posted = await postVisitorMessage({ visitor, text: 'hi' });
    await markVisitorPresence({ accountId: a.account.id, visitorId: visitor.id, present: true });
    const chatReply = await replyAndDeliver(a, posted.conversationId, 'Typo');
    expect(chatReply.deliveredVia).toBe('widget');
    const edited = await editMessage({ accountId: a.account.id, actorId: a.owner.id, id: chatReply.id, text: 'Fixed' });
    expect(edited).toMatchObject({ text: 'Fixed' });
    expect(edited!.editedAt).toBeTruthy();
    const [row] = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.id, chatReply.id), eq(schema.messages.accountId, a.account.id)));
    expect(row.text).toBe('Fixed');
  });
});
