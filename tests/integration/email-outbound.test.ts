import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { forwardingAddress, replyAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox, setSmtpSettings } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { sendForwardingCheck } from '../../app/models/email/outbound.server';
import { saveAttachment } from '../../app/models/inbox/attachments.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount } from '../factories';
import { makePng } from '../helpers/png';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-out-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';
process.env.MAIL_FROM = 'Parley <no-reply@mail.parley.test>';

type Captured = { raw: Buffer; from: string; to: string[]; user: string | null };

/** A local SMTP server that keeps what it receives: the stand-in for a real mail provider, on a real socket. */
async function startCapture(opts: { user?: string; pass?: string; refuse?: string } = {}) {
  const received: Captured[] = [];
  const server = new SMTPServer({
    authOptional: !opts.user,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) return cb(null, { user: auth.username });
      cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      if (opts.refuse && address.address === opts.refuse) return cb(Object.assign(new Error('550 5.1.1 No such user'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          raw: Buffer.concat(chunks),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function useSmtpUrl(url: string | undefined) {
  if (url) process.env.SMTP_URL = url;
  else delete process.env.SMTP_URL;
  resetSingleton('config');
  resetSingleton('smtp-transport');
}

let inbound: Awaited<ReturnType<typeof startInboundSmtp>>;
const captures: { close: () => Promise<void> }[] = [];

beforeAll(async () => {
  useSmtpUrl(undefined);
  inbound = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
});
afterEach(() => useSmtpUrl(undefined));
afterAll(async () => {
  await Promise.all(captures.map((c) => c.close()));
  await inbound.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function capture(opts?: Parameters<typeof startCapture>[0]) {
  const c = await startCapture(opts);
  captures.push(c);
  return c;
}

/** An inbox with a conversation opened by a customer's mail (through the real ingestion path). */
async function withConversation() {
  const a = await createTestAccount({ firstName: 'Olive' });
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
  const raw = Buffer.from(
    `From: Cara Customer <cara@example.test>\r\nTo: ${forwardingAddress(inbox)}\r\nSubject: Broken invoice\r\nMessage-ID: <cara-1-${inbox.id}@example.test>\r\n\r\nPlease help.\r\n`,
  );
  const result = await ingestEmail({ inbox, raw, via: 'http' });
  if (result.status !== 'created') throw new Error(`expected a conversation, got ${result.status}`);
  return { ...a, inbox, conversationId: result.conversationId, customerMessageId: `<cara-1-${inbox.id}@example.test>` };
}

async function reload(messageId: number) {
  const [m] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, messageId));
  return m;
}

describe('outgoing replies', () => {
  it("leave through the inbox's own SMTP, from the support address, with threading headers, cc/bcc and attachments", async () => {
    const s = await withConversation();
    const server = await capture({ user: 'inbox-user', pass: 'inbox-pass' });
    await setSmtpSettings({ accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id, input: { host: '127.0.0.1', port: server.port, secure: false, user: 'inbox-user', password: 'inbox-pass' } });
    const reply = await postMessage({
      accountId: s.account.id,
      actorId: s.owner.id,
      conversationId: s.conversationId,
      kind: 'outgoing',
      text: 'Here is the corrected invoice.',
      email: { cc: ['boss@example.test'], bcc: ['audit@example.test'] },
    });
    const png = makePng(2, 2);
    await saveAttachment({ accountId: s.account.id, messageId: reply.id, filename: 'invoice.png', contentType: 'image/png', bytes: png });
    await deliverMessage({ messageId: reply.id });

    const sent = await reload(reply.id);
    expect(sent.deliveryStatus).toBe('sent');
    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail.user).toBe('inbox-user');
    expect(mail.from).toBe(s.inbox.email);
    expect(mail.to.sort()).toEqual(['audit@example.test', 'boss@example.test', 'cara@example.test']);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.from?.value[0]).toMatchObject({ address: s.inbox.email, name: 'Olive Owner from Support' });
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : []).toEqual(['cara@example.test']);
    expect(parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value.map((a) => a.address) : []).toEqual(['boss@example.test']);
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(parsed.subject).toBe('Re: Broken invoice');
    expect(parsed.messageId).toBe(sent.emailMessageId);
    expect(parsed.inReplyTo).toBe(s.customerMessageId);
    expect(parsed.references).toBe(s.customerMessageId);
    expect(parsed.text?.trim()).toBe('Here is the corrected invoice.');
    expect(parsed.attachments.map((a) => [a.filename, a.contentType, a.content.equals(png)])).toEqual([['invoice.png', 'image/png', true]]);

    // The customer's answer to it threads back; the next reply references the whole thread.
    await ingestEmail({
      inbox: s.inbox,
      raw: Buffer.from(`From: cara@example.test\r\nTo: ${s.inbox.email}\r\nSubject: Re: Broken invoice\r\nMessage-ID: <cara-2@example.test>\r\nIn-Reply-To: ${sent.emailMessageId}\r\n\r\nThanks\r\n`),
      via: 'http',
    });
    const second = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing', text: 'Welcome' });
    await deliverMessage({ messageId: second.id });
    const parsed2 = await simpleParser(server.received[1].raw);
    expect(parsed2.inReplyTo).toBe('<cara-2@example.test>');
    expect(parsed2.references).toEqual([s.customerMessageId, sent.emailMessageId, '<cara-2@example.test>']);
  });

  it("without the inbox's own SMTP, leave through SMTP_URL from Parley's address, replies directed to the inbox", async () => {
    const s = await withConversation();
    const server = await capture();
    useSmtpUrl(`smtp://127.0.0.1:${server.port}`);
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing', text: 'On it' });
    await deliverMessage({ messageId: reply.id });
    expect(server.received).toHaveLength(1);
    const parsed = await simpleParser(server.received[0].raw);
    // DKIM-friendly: the domain Parley sends for, the agent's and inbox's name, answers to the signed reply address.
    expect(parsed.from?.value[0]).toMatchObject({ address: 'no-reply@mail.parley.test', name: 'Olive Owner from Support' });
    expect(parsed.replyTo?.value[0].address).toBe(replyAddress(s.inbox, s.conversationId));
    expect(parsed.messageId).toBe((await reload(reply.id)).emailMessageId);
    expect(parsed.messageId).toMatch(/@mail\.parley\.test>$/);
    expect(parsed.inReplyTo).toBe(s.customerMessageId);
  });

  it('without any SMTP, are kept in the development mailbox and count as sent', async () => {
    const s = await withConversation();
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing', text: 'Stored reply' });
    await deliverMessage({ messageId: reply.id });
    expect((await reload(reply.id)).deliveryStatus).toBe('sent');
    const [row] = await getDb()
      .select()
      .from(schema.outboundEmails)
      .where(and(eq(schema.outboundEmails.accountId, s.account.id), eq(schema.outboundEmails.to, 'cara@example.test')))
      .orderBy(desc(schema.outboundEmails.id));
    expect(row).toMatchObject({ transport: 'mailbox', status: 'stored', subject: 'Re: Broken invoice', text: 'Stored reply' });
  });

  it('a refused recipient fails the message with the server\'s answer (and the job retries)', async () => {
    const s = await withConversation();
    const server = await capture({ refuse: 'cara@example.test' });
    useSmtpUrl(`smtp://127.0.0.1:${server.port}`);
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing', text: 'x' });
    await expect(deliverMessage({ messageId: reply.id })).rejects.toThrow(/550/);
    const failed = await reload(reply.id);
    expect(failed.deliveryStatus).toBe('failed');
    expect(failed.deliveryError).toMatch(/550/);
  });
  it("a recipient the inbox's own SMTP server refuses (550 5.1.1) fails the message with the server's code and reason, as through SMTP_URL", async () => {
    const s = await withConversation();
    const server = await capture({ refuse: 'cara@example.test' });
    await setSmtpSettings({ accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id, input: { host: '127.0.0.1', port: server.port, secure: false, user: '', password: '' } });
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'outgoing', text: 'x' });
    await expect(deliverMessage({ messageId: reply.id })).rejects.toThrow(/550 5\.1\.1 No such user/);
    const failed = await reload(reply.id);
    expect(failed.deliveryStatus).toBe('failed');
    expect(failed.deliveryError).toMatch(/550 5\.1\.1 No such user/);
    expect(failed.deliveryError).not.toMatch(/Delivery through the inbox's SMTP server failed/);
    expect(server.received).toHaveLength(0);

    // The same refusal through SMTP_URL reads the same.
    const t = await withConversation();
    useSmtpUrl(`smtp://127.0.0.1:${server.port}`);
    const viaUrl = await postMessage({ accountId: t.account.id, actorId: t.owner.id, conversationId: t.conversationId, kind: 'outgoing', text: 'x' });
    await expect(deliverMessage({ messageId: viaUrl.id })).rejects.toThrow();
    expect((await reload(viaUrl.id)).deliveryError).toBe(failed.deliveryError);

    // A server that cannot be reached still says only that it failed (ADR 021).
    const u = await withConversation();
    const gone = await capture();
    await gone.close();
    await setSmtpSettings({ accountId: u.account.id, actorId: u.owner.id, id: u.inbox.id, input: { host: '127.0.0.1', port: gone.port, secure: false, user: '', password: '' } });
    const unreachable = await postMessage({ accountId: u.account.id, actorId: u.owner.id, conversationId: u.conversationId, kind: 'outgoing', text: 'x' });
    await expect(deliverMessage({ messageId: unreachable.id })).rejects.toThrow();
    expect((await reload(unreachable.id)).deliveryError).toBe("Delivery through the inbox's SMTP server failed");
  });
});

describe('forwarding check', () => {
  it('is mailed to the support address and, forwarded to Parley, verifies the inbox without opening a conversation', async () => {
    const s = await withConversation();
    const server = await capture({ user: 'u', pass: 'p' });
    await setSmtpSettings({ accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id, input: { host: '127.0.0.1', port: server.port, secure: false, user: 'u', password: 'p' } });
    await sendForwardingCheck({ accountId: s.account.id, id: s.inbox.id });
    expect(server.received).toHaveLength(1);
    expect(server.received[0].to).toEqual([s.inbox.email]);
    // The support mailbox forwards it, unchanged, to the forwarding address.
    const forwarder = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    await forwarder.sendMail({ envelope: { from: s.inbox.email!, to: [forwardingAddress(s.inbox)!] }, raw: server.received[0].raw });
    forwarder.close();
    expect((await getInbox({ accountId: s.account.id, id: s.inbox.id }))?.forwardingVerifiedAt).toBeInstanceOf(Date);
    const conversations = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id));
    expect(conversations).toHaveLength(1);
  });
});
