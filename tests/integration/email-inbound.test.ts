import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { forwardingAddress, forwardingCheckValue, replyAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import '../../app/models/email/outbound.server';
import { renderEmailHtml } from '../../app/models/email/render.server';
import { createTrustedDomain } from '../../app/models/email/trusted-domains.server';
import { readAttachment } from '../../app/models/inbox/attachments.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { makePng } from '../helpers/png';

// Attachments go to a data directory of this file's own; forwarding addresses are at this inbound domain.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-in-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

const PNG_1x1 = makePng(1, 1);

let smtp: Awaited<ReturnType<typeof startInboundSmtp>>;
let app: Awaited<ReturnType<typeof startTestApp>>;
let mailer: nodemailer.Transporter;

beforeAll(async () => {
  smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
  app = await startTestApp();
  // A plain SMTP client, as a customer's mail server would connect (no TLS on loopback).
  mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  mailer.close();
  await smtp.close();
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function setup() {
  const a = await createTestAccount();
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
  return { ...a, inbox, to: forwardingAddress(inbox)! };
}

const conversationsOf = (accountId: number) =>
  getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, accountId)).orderBy(schema.conversations.id);
const messagesOf = (accountId: number, conversationId: number) =>
  getDb()
    .select()
    .from(schema.messages)
    .where(and(eq(schema.messages.accountId, accountId), eq(schema.messages.conversationId, conversationId)))
    .orderBy(schema.messages.id);

/** An agent's reply, delivered the way the engine does (here into the development mailbox). */
async function agentReply(s: Awaited<ReturnType<typeof setup>>, conversationId: number, text = 'We are on it') {
  const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId, kind: 'outgoing', text });
  await deliverMessage({ messageId: reply.id });
  const [sent] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
  expect(sent.deliveryStatus).toBe('sent');
  expect(sent.emailMessageId).toMatch(/^<parley\.[0-9a-f]{16}\.c\d+\.[0-9a-f]{12}@/);
  return sent;
}

describe('inbound SMTP', () => {
  it('turns a mail to the forwarding address into a conversation with its contact, attachment and sanitised HTML', async () => {
    const s = await setup();
    await createTrustedDomain({ accountId: s.account.id, actorId: s.owner.id, domainName: 'Example', domainUrl: 'https://www.example.test' });
    const info = await mailer.sendMail({
      from: 'Cara Customer <cara@billing.example.test>',
      to: s.to,
      subject: 'Broken invoice',
      text: 'My invoice is wrong, see the screenshot.',
      html: '<p onclick="steal()">My invoice is <b>wrong</b> <a href="https://example.test/i/1">link</a></p><script>alert(1)</script><img src="https://tracker.test/p.gif"><iframe src="https://evil.test"></iframe><form action="https://evil.test"><input name="x"></form><img src="cid:shot@x">',
      attachments: [
        // Declared as a generic file: the stored type is what the bytes are.
        { filename: 'screenshot.png', content: PNG_1x1, contentType: 'application/octet-stream' },
        { filename: 'inline.png', content: PNG_1x1, contentType: 'image/png', cid: 'shot@x' },
      ],
    });
    expect(info.accepted).toEqual([s.to]);

    const [conversation] = await conversationsOf(s.account.id);
    expect(conversation).toMatchObject({ subject: 'Broken invoice', sourceType: 'email', inboxId: s.inbox.id, status: 'open' });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conversation.contactId!));
    expect(contact).toMatchObject({ email: 'cara@billing.example.test', firstName: 'Cara', lastName: 'Customer', source: 'email' });
    const [message] = await messagesOf(s.account.id, conversation.id);
    expect(message).toMatchObject({ kind: 'incoming', senderContactId: contact.id, fromTrustedDomain: true });
    expect(message.text).toContain('My invoice is wrong');
    expect(message.emailMessageId).toBe(info.messageId);
    // Sanitised: no script, handler, frame or form; links open safely; the inline image points at its stored file.
    expect(message.html).not.toMatch(/script|onclick|iframe|<form|<input/i);
    expect(message.html).toContain('<a href="https://example.test/i/1" target="_blank" rel="noopener noreferrer">link</a>');
    const files = await getDb().select().from(schema.attachments).where(eq(schema.attachments.messageId, message.id)).orderBy(schema.attachments.filename);
    expect(files.map((f) => [f.filename, f.contentType, f.size, f.contentId])).toEqual([
      ['inline.png', 'image/png', PNG_1x1.length, 'shot@x'],
      ['screenshot.png', 'image/png', PNG_1x1.length, null],
    ]);
    files.reverse();
    expect(message.html).toContain(`<img src="/attachments/${files[1].id}" />`);
    expect(files[0].storageKey.startsWith(`${s.account.id}/`)).toBe(true);
    const stored = await readAttachment({ accountId: s.account.id, id: files[0].id });
    expect(Buffer.from(stored!.bytes).equals(PNG_1x1)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'attachments', files[0].storageKey))).toBe(true);
    // Remote images stay blank until the agent allows them; our own inline image always shows.
    const blocked = renderEmailHtml(message.html!, { allowRemoteImages: false });
    expect(blocked.remoteImages).toBe(1);
    expect(blocked.html).toContain('data-remote-src="https://tracker.test/p.gif"');
    expect(blocked.html).not.toMatch(/\ssrc="https:\/\/tracker/);
    expect(blocked.html).toContain(`src="/attachments/${files[1].id}"`);
    expect(renderEmailHtml(message.html!, { allowRemoteImages: true }).html).toContain('src="https://tracker.test/p.gif"');

    const events = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, s.account.id)).orderBy(schema.domainEvents.id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['contact_created', 'conversation_created', 'message_created']));
  });

  it('marks only senders of a trusted domain (or its subdomains)', async () => {
    const s = await setup();
    await createTrustedDomain({ accountId: s.account.id, actorId: s.owner.id, domainName: 'Partner', domainUrl: 'partner.test' });
    await mailer.sendMail({ from: 'x@partner.test', to: s.to, subject: 'Trusted', text: 'hi' });
    await mailer.sendMail({ from: 'y@notpartner.test', to: s.to, subject: 'Untrusted', text: 'hi' });
    await mailer.sendMail({ from: 'z@partner.test.evil.test', to: s.to, subject: 'Lookalike', text: 'hi' });
    const rows = await getDb()
      .select({ subject: schema.conversations.subject, trusted: schema.messages.fromTrustedDomain })
      .from(schema.messages)
      .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
      .where(eq(schema.messages.accountId, s.account.id));
    expect(Object.fromEntries(rows.map((r) => [r.subject, r.trusted]))).toEqual({ Trusted: true, Untrusted: false, Lookalike: false });
  });

  it('ignores a mail whose Message-ID the account already has', async () => {
    const s = await setup();
    const mail = { from: 'dup@example.test', to: s.to, subject: 'Twice', text: 'once', messageId: '<same-id@example.test>' };
    await mailer.sendMail(mail);
    await mailer.sendMail(mail);
    const conversations = await conversationsOf(s.account.id);
    expect(conversations).toHaveLength(1);
    expect(await messagesOf(s.account.id, conversations[0].id)).toHaveLength(1);
  });

  it('threads a reply by In-Reply-To/References, and opens a new conversation for a new subject', async () => {
    const s = await setup();
    await mailer.sendMail({ from: 'cara@example.test', to: s.to, subject: 'Help', text: 'First', messageId: '<first@example.test>' });
    const [conversation] = await conversationsOf(s.account.id);
    const reply = await agentReply(s, conversation.id);
    // The customer's client answers our reply.
    await mailer.sendMail({ from: 'cara@example.test', to: s.to, subject: 'Re: Help', text: 'Thanks!', inReplyTo: reply.emailMessageId!, references: ['<first@example.test>', reply.emailMessageId!] });
    // Only References (some clients): still the same conversation.
    await mailer.sendMail({ from: 'cara@example.test', to: s.to, subject: 'Re: Help', text: 'And more', references: ['<first@example.test>'] });
    await mailer.sendMail({ from: 'cara@example.test', to: s.to, subject: 'Another question', text: 'New topic' });
    const conversations = await conversationsOf(s.account.id);
    expect(conversations).toHaveLength(2);
    const thread = await messagesOf(s.account.id, conversation.id);
    expect(thread.map((m) => [m.kind, m.text.trim()])).toEqual([
      ['incoming', 'First'],
      ['outgoing', 'We are on it'],
      ['incoming', 'Thanks!'],
      ['incoming', 'And more'],
    ]);
  });

  it('threads by the signed reply address when the headers are gone, and not with a forged one', async () => {
    const s = await setup();
    await mailer.sendMail({ from: 'cara@example.test', to: s.to, subject: 'Printer', text: 'Jammed' });
    const [conversation] = await conversationsOf(s.account.id);
    const address = replyAddress(s.inbox, conversation.id)!;
    expect(address).toMatch(new RegExp(`^${s.inbox.forwardingToken}\\+c${conversation.id}\\.[0-9a-f]{12}@inbound\\.parley\\.test$`));
    await mailer.sendMail({ from: 'cara@example.test', to: address, subject: 'Printer (still)', text: 'Still jammed' });
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
    expect((await messagesOf(s.account.id, conversation.id)).map((m) => m.text.trim())).toEqual(['Jammed', 'Still jammed']);
    // A token made up for another conversation number is not trusted: the mail opens its own conversation.
    const forged = address.replace(`+c${conversation.id}.`, `+c${conversation.id + 1000}.`);
    await mailer.sendMail({ from: 'cara@example.test', to: forged, subject: 'Forged', text: 'x' });
    expect(await conversationsOf(s.account.id)).toHaveLength(2);
  });

  it('a bounce of one of our replies marks it failed and opens nothing', async () => {
    const s = await setup();
    await mailer.sendMail({ from: 'gone@example.test', to: s.to, subject: 'Bye', text: 'Leaving' });
    const [conversation] = await conversationsOf(s.account.id);
    const reply = await agentReply(s, conversation.id);
    const dsn = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.test>',
      `To: ${s.to}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Message-ID: <dsn-1@mx.example.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '--B',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.test',
      '',
      'Final-Recipient: rfc822; gone@example.test',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
      '',
      '--B',
      'Content-Type: text/rfc822-headers',
      '',
      'From: Support <no-reply@parley.local>',
      'To: gone@example.test',
      'Subject: Re: Bye',
      `Message-ID: ${reply.emailMessageId}`,
      '',
      '--B--',
      '',
    ].join('\r\n');
    await mailer.sendMail({ envelope: { from: '', to: [s.to] }, raw: dsn });
    const [after] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(after.deliveryStatus).toBe('failed');
    expect(after.deliveryError).toContain('550 5.1.1 User unknown');
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
    expect(await messagesOf(s.account.id, conversation.id)).toHaveLength(2);
    // A bounce of something that is not ours changes nothing and opens nothing either.
    await mailer.sendMail({ envelope: { from: '', to: [s.to] }, raw: dsn.replace(reply.emailMessageId!, '<unknown@elsewhere.test>') });
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });

  it('auto-replies and bulk mail open nothing (no loops)', async () => {
    const s = await setup();
    await mailer.sendMail({ from: 'ooo@example.test', to: s.to, subject: 'Out of office', text: 'Away', headers: { 'Auto-Submitted': 'auto-replied' } });
    await mailer.sendMail({ from: 'ooo@example.test', to: s.to, subject: 'Away', text: 'Away', headers: { 'X-Autoreply': 'yes' } });
    await mailer.sendMail({ from: 'news@example.test', to: s.to, subject: 'Newsletter', text: 'News', headers: { Precedence: 'bulk' } });
    await mailer.sendMail({ from: 'vacation@example.test', to: s.to, subject: 'Vacation', text: 'x', envelope: { from: '', to: [s.to] } });
    // Read from a mailbox (IMAP) the null sender shows as the Return-Path the mailbox recorded.
    expect(await ingestEmail({ inbox: s.inbox, via: 'imap', raw: Buffer.from('Return-Path: <>\r\nFrom: robot@example.test\r\nSubject: Away\r\n\r\nx') })).toEqual({ status: 'auto-reply' });
    // Mail from one of Parley's own forwarding addresses (an inbox answering itself) is dropped too.
    const other = await setup();
    await mailer.sendMail({ from: other.to, to: s.to, subject: 'Loop', text: 'x' });
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
    // Auto-Submitted: no is an ordinary mail.
    await mailer.sendMail({ from: 'person@example.test', to: s.to, subject: 'Real', text: 'x', headers: { 'Auto-Submitted': 'no' } });
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });

  it('refuses unknown recipients at RCPT with 550', async () => {
    const s = await setup();
    await expect(mailer.sendMail({ from: 'x@example.test', to: 'nobody@inbound.parley.test', subject: 'x', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
    await expect(mailer.sendMail({ from: 'x@example.test', to: `${s.inbox.forwardingToken}@other-domain.test`, subject: 'x', text: 'x' })).rejects.toMatchObject({
      responseCode: 550,
    });
    // One good recipient among bad ones: the mail is taken for the good one only.
    const info = await mailer.sendMail({ from: 'x@example.test', to: [s.to, 'nobody@inbound.parley.test'], subject: 'Partly', text: 'x' });
    expect(info.accepted).toEqual([s.to]);
    expect(info.rejected).toEqual(['nobody@inbound.parley.test']);
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });

  it('the forwarding check coming back through forwarding verifies the inbox instead of opening a conversation', async () => {
    const s = await setup();
    expect(s.inbox.forwardingVerifiedAt).toBeNull();
    await mailer.sendMail({
      from: 'no-reply@parley.local',
      to: s.to,
      subject: 'Forwarding check for Support',
      text: 'check',
      headers: { 'X-Parley-Forwarding-Check': forwardingCheckValue(s.inbox) },
    });
    expect((await getInbox({ accountId: s.account.id, id: s.inbox.id }))?.forwardingVerifiedAt).toBeInstanceOf(Date);
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
    // Another inbox's check value does not verify this one.
    const other = await setup();
    await mailer.sendMail({ from: 'no-reply@parley.local', to: other.to, subject: 'x', text: 'x', headers: { 'X-Parley-Forwarding-Check': forwardingCheckValue(s.inbox) } });
    expect((await getInbox({ accountId: other.account.id, id: other.inbox.id }))?.forwardingVerifiedAt).toBeNull();
    expect(await conversationsOf(other.account.id)).toHaveLength(0);
  });
});

function postRaw(pathname: string, body: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: app.port, path: pathname, method: 'POST', headers: { host: 'localhost:3000', 'content-type': 'message/rfc822', 'content-length': String(body.length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // The server may answer (413) and close before the whole body is written.
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(body);
  });
}

const rawMail = (subject: string) => Buffer.from(`From: Hal <hal@example.test>\r\nTo: support@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}-${Date.now()}@example.test>\r\n\r\nPosted by a mail service.\r\n`);

describe('raw-MIME HTTP endpoint', () => {
  it('takes a raw message with the inbox secret: 202, else 401, 404 or 413', async () => {
    const s = await setup();
    const url = `/webhooks/email/${s.inbox.id}`;
    const ok = await postRaw(url, rawMail('Posted'), { authorization: `Bearer ${s.inbox.secret}` });
    expect(ok.status).toBe(202);
    expect(JSON.parse(ok.text)).toMatchObject({ status: 'created' });
    const [conversation] = await conversationsOf(s.account.id);
    expect(conversation).toMatchObject({ subject: 'Posted', sourceType: 'email' });

    expect((await postRaw(url, rawMail('No auth'))).status).toBe(401);
    expect((await postRaw(url, rawMail('Bad'), { authorization: `Bearer ${s.inbox.secret}x` })).status).toBe(401);
    expect((await postRaw('/webhooks/email/999999', rawMail('Nobody'), { authorization: `Bearer ${s.inbox.secret}` })).status).toBe(404);
    expect((await postRaw('/webhooks/email/abc', rawMail('Nobody'), { authorization: `Bearer ${s.inbox.secret}` })).status).toBe(404);
    expect((await postRaw(url, Buffer.alloc(0), { authorization: `Bearer ${s.inbox.secret}` })).status).toBe(400);
    const huge = Buffer.alloc(31 * 1024 * 1024, 'a');
    expect((await postRaw(url, huge, { authorization: `Bearer ${s.inbox.secret}` })).status).toBe(413);
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });
});

describe('tenancy', () => {
  it('another account cannot read the inbox settings, download attachments or post with its own secret', async () => {
    const a = await setup();
    const b = await setup();
    await mailer.sendMail({ from: 'c@example.test', to: a.to, subject: 'Private', text: 'x', attachments: [{ filename: 'secret.png', content: PNG_1x1 }] });
    const [conversation] = await conversationsOf(a.account.id);
    const [message] = await messagesOf(a.account.id, conversation.id);
    const [file] = await getDb().select().from(schema.attachments).where(eq(schema.attachments.messageId, message.id));
    const cookieA = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const cookieB = await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id });

    // The owner downloads it: an attachment, typed by its bytes, never sniffed.
    const own = await app.request(`/attachments/${file.id}`, { domain: a.domain, cookie: cookieA });
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('image/png');
    expect(own.headers['content-disposition']).toBe(`attachment; filename="secret.png"; filename*=UTF-8''secret.png`);
    expect(own.headers['x-content-type-options']).toBe('nosniff');
    // B, on its own host, does not find A's attachment or inbox; nor does anyone signed out.
    expect((await app.request(`/attachments/${file.id}`, { domain: b.domain, cookie: cookieB })).status).toBe(404);
    expect((await app.request(`/attachments/${file.id}`, { domain: a.domain })).status).toBe(404);
    expect((await app.request(`/settings/emails/${a.inbox.id}`, { domain: b.domain, cookie: cookieB })).status).toBe(404);
    const page = await app.request(`/settings/emails/${a.inbox.id}`, { domain: a.domain, cookie: cookieA });
    expect(page.status).toBe(200);
    expect(page.text).toContain(a.to);
    // B's changes to A's inbox are not found either.
    expect((await app.request(`/settings/emails/${a.inbox.id}`, { domain: b.domain, cookie: cookieB, form: { intent: 'delete' } })).status).toBe(404);
    expect(await getInbox({ accountId: a.account.id, id: a.inbox.id })).toBeDefined();
    // B's secret does not open A's endpoint.
    expect((await postRaw(`/webhooks/email/${a.inbox.id}`, rawMail('Intruder'), { authorization: `Bearer ${b.inbox.secret}` })).status).toBe(401);
    expect(await conversationsOf(a.account.id)).toHaveLength(1);
  });
});
