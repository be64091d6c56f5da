import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { checkMailServer, createEmailInbox, readEmailSettings, setSmtpSettings, trustServerCertificate } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { listQuarantinedEmails, retryQuarantinedEmail } from '../../app/models/email/quarantine.server';
import { readAttachment } from '../../app/models/inbox/attachments.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { tnefWithBinaryProperties, uncompressedRtf } from '../helpers/tnef';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-robust-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

let smtp: Awaited<ReturnType<typeof startInboundSmtp>>;
let app: Awaited<ReturnType<typeof startTestApp>>;
let mailer: nodemailer.Transporter;

beforeAll(async () => {
  smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
  app = await startTestApp();
  mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
});
afterAll(async () => {
  mailer.close();
  await smtp.close();
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function setup(mode: 'forwarding' | 'http' = 'forwarding') {
  const a = await createTestAccount();
  const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode });
  return { ...a, inbox, to: forwardingAddress(inbox)! };
}

const conversationsOf = (accountId: number) =>
  getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, accountId)).orderBy(schema.conversations.id);
const messagesOf = (accountId: number) =>
  getDb().select().from(schema.messages).where(and(eq(schema.messages.accountId, accountId), eq(schema.messages.kind, 'incoming'))).orderBy(schema.messages.id);
const attachmentNames = async (accountId: number, messageId: number) =>
  (
    await getDb()
      .select({ filename: schema.attachments.filename })
      .from(schema.attachments)
      .where(and(eq(schema.attachments.accountId, accountId), eq(schema.attachments.messageId, messageId)))
      .orderBy(schema.attachments.id)
  ).map((r) => r.filename);

/** A text part whose decoded bytes hold NUL (base64 of "Hello\0world"), as the real-world sample had. */
const nulMail = (to: string, id: string) =>
  Buffer.from(
    `From: Nia <nia@example.test>\r\nTo: ${to}\r\nSubject: Has a NUL\r\nMessage-ID: <${id}@example.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from('Hello\u0000 world\u0000!').toString('base64')}\r\n`,
  );
const plainMail = (to: string, subject: string, id: string) =>
  Buffer.from(`From: Nia <nia@example.test>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${id}@example.test>\r\n\r\n${subject} body\r\n`);

/**
 * A mail the database truly refuses even after cleaning: a Message-ID of ~3 KB of varied three-byte characters
 * is over the B-tree's entry limit of the messages' Message-ID index (SQLSTATE 54000), and does not compress.
 */
function unstorableMail(to: string) {
  let id = '';
  for (let i = 0; i < 990; i++) id += String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
  return Buffer.from(`From: Nia <nia@example.test>\r\nTo: ${to}\r\nSubject: Cannot be stored\r\nMessage-ID: <${id}@example.test>\r\n\r\nSecret customer text\r\n`, 'utf8');
}

function postRaw(pathname: string, body: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: pathname, method: 'POST', headers: { 'content-type': 'message/rfc822', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads SMTP replies line by line, as a sending MTA does. */
async function smtpDialogue(commands: string[]) {
  const socket = net.connect({ host: '127.0.0.1', port: smtp.port });
  const replies: string[] = [];
  let buffer = '';
  let waiting: (() => void) | null = null;
  socket.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      if (/^\d{3} /.test(line)) {
        replies.push(line);
        waiting?.();
      }
    }
  });
  const next = (n: number) => new Promise<void>((resolve) => (waiting = () => replies.length >= n && resolve()));
  await next(1);
  for (const c of commands) {
    const n = replies.length + 1;
    socket.write(`${c}\r\n`);
    await next(n);
  }
  socket.end('QUIT\r\n');
  return replies;
}

describe('one bad message never stops a channel', () => {
  it('SMTP: a text part with NUL bytes is stored without them, and the next mail arrives at once', async () => {
    const s = await setup();
    const info = await mailer.sendMail({ envelope: { from: 'nia@example.test', to: [s.to] }, raw: nulMail(s.to, 'nul-smtp') });
    expect(info.accepted).toEqual([s.to]);
    const started = Date.now();
    await mailer.sendMail({ envelope: { from: 'nia@example.test', to: [s.to] }, raw: plainMail(s.to, 'Next one', 'next-smtp') });
    expect(Date.now() - started).toBeLessThan(2000);
    const messages = await messagesOf(s.account.id);
    expect(messages.map((m) => m.text)).toEqual(['Hello world!', 'Next one body']);
  });

  it('HTTP endpoint: the NUL-byte mail is stored (202, not 500); a mail the database refuses is quarantined (202), retryable, with the database’s reason (what the log shows) and none of the customer’s text', async () => {
    const s = await setup('http');
    const inbox = (await getInbox({ accountId: s.account.id, id: s.inbox.id }))!;
    const auth = { authorization: `Bearer ${inbox.secret}` };
    const url = `/webhooks/email/${inbox.id}`;
    const nul = await postRaw(url, nulMail('support@example.test', 'nul-http'), auth);
    expect(nul.status).toBe(202);
    expect(JSON.parse(nul.text)).toMatchObject({ status: 'created' });

    const bad = await postRaw(url, unstorableMail('support@example.test'), auth);
    expect(bad.status).toBe(202);
    const result = JSON.parse(bad.text);
    expect(result).toMatchObject({ status: 'quarantined' });
    expect(result.reason).toMatch(/^54000: index row size/);
    expect(result.reason).not.toContain('Secret customer text');

    const next = await postRaw(url, plainMail('support@example.test', 'After the bad one', 'after-http'), auth);
    expect(next.status).toBe(202);
    expect((await conversationsOf(s.account.id)).map((c) => c.subject)).toEqual(['Has a NUL', 'After the bad one']);

    const listed = await listQuarantinedEmails({ accountId: s.account.id, inboxId: inbox.id });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ via: 'http', attempts: 1 });
    // Another account cannot retry it; a retry that fails again keeps it with one more attempt.
    const other = await createTestAccount();
    expect(await retryQuarantinedEmail({ accountId: other.account.id, inboxId: inbox.id, id: listed[0].id })).toBeUndefined();
    expect(await retryQuarantinedEmail({ accountId: s.account.id, inboxId: inbox.id, id: listed[0].id })).toMatchObject({ ok: false });
    expect((await listQuarantinedEmails({ accountId: s.account.id, inboxId: inbox.id }))[0].attempts).toBe(2);

    // Its managers download it byte for byte from the inbox page; an agent may not, another account finds nothing.
    const download = `/settings/emails/${inbox.id}/quarantine/${listed[0].id}`;
    const ownerCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const page = await app.request(`/settings/emails/${inbox.id}`, { domain: s.domain, cookie: ownerCookie });
    expect(page.text).toContain(`href="${download}"`);
    const got = await app.request(download, { domain: s.domain, cookie: ownerCookie });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('message/rfc822');
    expect(got.headers['content-disposition']).toBe(`attachment; filename="quarantined-${listed[0].id}.eml"`);
    expect(got.headers['cache-control']).toContain('no-store');
    expect(Buffer.from(got.text, 'utf8').equals(unstorableMail('support@example.test'))).toBe(true);
    const agent = await createTestUser({ accountId: s.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: agent.id });
    expect((await app.request(download, { domain: s.domain, cookie: agentCookie })).status).toBe(403);
    const otherCookie = await sessionCookie({ domain: other.domain, accountId: other.account.id, userId: other.owner.id });
    expect((await app.request(download, { domain: other.domain, cookie: otherCookie })).status).toBe(404);
    expect((await app.request(`/settings/emails/${inbox.id}/quarantine/99999999`, { domain: s.domain, cookie: ownerCookie })).status).toBe(404);
  });

  it('SMTP: a mail the database refuses is accepted (250) into quarantine, so the MTA stops retrying; replies carry the code once with an enhanced status', async () => {
    const s = await setup();
    const info = await mailer.sendMail({ envelope: { from: 'nia@example.test', to: [s.to] }, raw: unstorableMail(s.to) });
    expect(info.accepted).toEqual([s.to]);
    expect(await listQuarantinedEmails({ accountId: s.account.id, inboxId: s.inbox.id })).toHaveLength(1);

    const replies = await smtpDialogue(['EHLO mta.example.test', 'MAIL FROM:<a@example.test>', 'RCPT TO:<nobody@inbound.parley.test>']);
    expect(replies.at(-1)).toBe('550 5.1.1 No such recipient here');
  });
});

describe('what mail carries', () => {
  it("Outlook's winmail.dat is unpacked into its files, listed by their long names (not the 8.3 title)", async () => {
    const s = await setup();
    const tnef = fs.readFileSync(path.resolve('tests/fixtures/winmail.dat'));
    const raw = Buffer.from(
      [
        'From: Olga <olga@example.test>',
        `To: ${s.to}`,
        'Subject: From Outlook',
        'Message-ID: <tnef-1@example.test>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Please see the attached files.',
        '--b1',
        'Content-Type: application/ms-tnef; name="winmail.dat"',
        'Content-Disposition: attachment; filename="winmail.dat"',
        'Content-Transfer-Encoding: base64',
        '',
        tnef.toString('base64').replace(/.{76}/g, '$&\r\n'),
        '--b1--',
        '',
      ].join('\r\n'),
    );
    const result = await ingestEmail({ inbox: s.inbox, raw, via: 'smtp' });
    expect(result.status).toBe('created');
    const [message] = await messagesOf(s.account.id);
    expect(await attachmentNames(s.account.id, message.id)).toEqual(['zappa_av1.jpg', 'bookmark.htm']);
  });

  it("an Outlook mail whose body is only in winmail.dat's compressed RTF is read as text; HTML Outlook wrapped in RTF is shown as HTML", async () => {
    const s = await setup();
    const onlyTnef = (id: string, tnef: Buffer) =>
      Buffer.from(
        [
          'From: Olga <olga@example.test>',
          `To: ${s.to}`,
          `Subject: RTF ${id}`,
          `Message-ID: <${id}@example.test>`,
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b1"',
          '',
          '--b1',
          'Content-Type: application/ms-tnef; name="winmail.dat"',
          'Content-Disposition: attachment; filename="winmail.dat"',
          'Content-Transfer-Encoding: base64',
          '',
          tnef.toString('base64').replace(/.{76}/g, '$&\r\n'),
          '--b1--',
          '',
        ].join('\r\n'),
      );
    // node-tnef's own test file: a body written in WordPad's RichEdit, LZFu-compressed (PR_RTF_COMPRESSED), no plain body.
    expect((await ingestEmail({ inbox: s.inbox, raw: onlyTnef('rtf-1', fs.readFileSync(path.resolve('tests/fixtures/winmail.dat'))), via: 'smtp' })).status).toBe('created');
    // HTML in RTF (\fromhtml1), as Outlook sends an HTML mail in TNEF: built here (tests/helpers/tnef.ts), uncompressed ("MELA").
    const rtf = String.raw`{\rtf1\ansi\ansicpg1252\fromhtml1 \deff0{\fonttbl{\f0\fswiss Arial;}}{\*\htmltag19 <html>}{\*\htmltag50 <body>}\htmlrtf \pard\plain\htmlrtf0 {\*\htmltag84 <p>}Gr\'fc\'dfe aus {\*\htmltag84 <b>}Wien{\*\htmltag92 </b>}{\*\htmltag92 </p>}{\*\htmltag58 </body>}{\*\htmltag27 </html>}}`;
    const htmlTnef = tnefWithBinaryProperties([{ id: 0x1009, data: uncompressedRtf(rtf) }]);
    expect((await ingestEmail({ inbox: s.inbox, raw: onlyTnef('rtf-2', htmlTnef), via: 'smtp' })).status).toBe('created');

    const [fromRtf, fromHtml] = await messagesOf(s.account.id);
    expect(fromRtf.text).toBe(['Casdasdfasdfasd', 'Casdasdfasdfasd', '', 'Casdasdfasdfasd', '', 'Casdasdfasdfasd', '', 'Casdasdfasdfasd', '', 'Casdasdfasdfasd'].join('\n'));
    expect(await attachmentNames(s.account.id, fromRtf.id)).toEqual(['zappa_av1.jpg', 'bookmark.htm']);
    expect(fromHtml.html).toContain('<p>Grüße aus <b>Wien</b></p>');
    expect(fromHtml.text).toBe('Grüße aus Wien');
  });

  it('a forwarded message is shown inline (sender, date, subject, body, its files); a mail that is only a forwarded message is not empty', async () => {
    const s = await setup();
    const inner = [
      'From: Dan <dan@example.test>',
      'To: cara@example.test',
      'Subject: Original question',
      'Date: Mon, 2 Nov 2026 10:00:00 +0000',
      'Message-ID: <inner-1@example.test>',
      'Content-Type: multipart/mixed; boundary="ib"',
      '',
      '--ib',
      'Content-Type: text/plain',
      '',
      'The printer is on fire.',
      '--ib',
      'Content-Type: text/plain; name="notes.txt"',
      'Content-Disposition: attachment; filename="notes.txt"',
      '',
      'notes',
      '--ib--',
      '',
    ].join('\r\n');
    const attached = `From: Cara <cara@example.test>\r\nTo: ${s.to}\r\nSubject: Fwd: Original question\r\nMessage-ID: <fwd-1@example.test>\r\nContent-Type: multipart/mixed; boundary="ob"\r\n\r\n--ob\r\nContent-Type: text/plain\r\n\r\nSee below.\r\n--ob\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment\r\n\r\n${inner}\r\n--ob--\r\n`;
    await ingestEmail({ inbox: s.inbox, raw: Buffer.from(attached), via: 'smtp' });
    const whole = `From: Cara <cara@example.test>\r\nTo: ${s.to}\r\nSubject: Fwd: only\r\nMessage-ID: <fwd-2@example.test>\r\nContent-Type: message/rfc822\r\n\r\n${inner}`;
    await ingestEmail({ inbox: s.inbox, raw: Buffer.from(whole), via: 'smtp' });

    const [first, second] = await messagesOf(s.account.id);
    for (const m of [first, second]) {
      expect(m.html).toContain('Forwarded message');
      expect(m.html).toContain('From: Dan &lt;dan@example.test&gt;');
      expect(m.html).toContain('Date: Mon, 02 Nov 2026 10:00:00 GMT');
      expect(m.html).toContain('Subject: Original question');
      expect(m.html).toContain('The printer is on fire.');
      expect(m.html).toContain('Attachments: notes.txt');
      expect(m.text).toContain('The printer is on fire.');
      expect(await attachmentNames(s.account.id, m.id)).toEqual(['notes.txt', 'Original question.eml']);
    }
    expect(first.text).toMatch(/^See below\./);
  });

  it('a forwarded message keeps its original .eml as an attachment, byte for byte, once (a forward inside it stays inside it)', async () => {
    const s = await setup();
    const innermost = 'From: Eve <eve@example.test>\r\nTo: dan@example.test\r\nSubject: First\r\nMessage-ID: <innermost-1@example.test>\r\n\r\nWhere is my parcel?\r\n';
    const inner = [
      'From: Dan <dan@example.test>',
      'To: cara@example.test',
      'Subject: Fwd: First',
      'Date: Mon, 2 Nov 2026 10:00:00 +0000',
      'Message-ID: <inner-2@example.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="ib"',
      '',
      '--ib',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      'Grüße, see the customer below.   ',
      '--ib',
      'Content-Type: message/rfc822',
      '',
      innermost,
      '--ib--',
      '',
    ].join('\r\n');
    const raw = `From: Cara <cara@example.test>\r\nTo: ${s.to}\r\nSubject: Fwd: Fwd: First\r\nMessage-ID: <fwd-3@example.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="ob"\r\n\r\n--ob\r\nContent-Type: text/plain\r\n\r\nForwarding as asked.\r\n--ob\r\nContent-Type: message/rfc822; name="customer.eml"\r\nContent-Disposition: attachment; filename="customer.eml"\r\n\r\n${inner}\r\n--ob--\r\n`;
    expect((await ingestEmail({ inbox: s.inbox, raw: Buffer.from(raw, 'utf8'), via: 'smtp' })).status).toBe('created');

    const [message] = await messagesOf(s.account.id);
    expect(message.html).toContain('Where is my parcel?');
    const rows = await getDb()
      .select()
      .from(schema.attachments)
      .where(and(eq(schema.attachments.accountId, s.account.id), eq(schema.attachments.messageId, message.id)));
    expect(rows.map((r) => [r.filename, r.contentType])).toEqual([['customer.eml', 'message/rfc822']]);
    const stored = await readAttachment({ accountId: s.account.id, id: rows[0].id });
    // The part's bytes exactly: its last CRLF belongs to the boundary that follows it (RFC 2046).
    expect(Buffer.from(stored!.bytes).equals(Buffer.from(inner, 'utf8'))).toBe(true);
  });
});

describe("an inbox's own SMTP server", () => {
  it('honours the TLS choice (None never upgrades), needs no login for a relay, and accepts a self-signed certificate once pinned', async () => {
    // A relay offering STARTTLS with a fresh self-signed certificate, taking mail without AUTH.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-smtp-cert-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '2', '-subj', '/CN=relay.private.test'], {
      stdio: 'ignore',
    });
    const relay = new SMTPServer({
      authOptional: true,
      logger: false,
      key: fs.readFileSync(`${dir}/key.pem`),
      cert: fs.readFileSync(`${dir}/cert.pem`),
      onData: (stream, _s, cb) => stream.resume().on('end', () => cb()),
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (relay.server.address() as net.AddressInfo).port;
    try {
      const s = await setup();
      const who = { accountId: s.account.id, actorId: s.owner.id, id: s.inbox.id };
      const save = (security: 'starttls' | 'none') => setSmtpSettings({ ...who, input: { host: '127.0.0.1', port, secure: false, security, user: '', password: '' } });

      // None: no upgrade is attempted, so the untrusted certificate never comes into it; no user, no AUTH.
      await save('none');
      expect(readEmailSettings((await getInbox(who))!).smtp).toMatchObject({ tls: 'none', user: '', password: '' });
      expect(await checkMailServer({ ...who, part: 'smtp' })).toEqual({ ok: true });

      // STARTTLS: the upgrade is required and the certificate is not trusted; its fingerprint is offered to pin.
      await save('starttls');
      const refused = await checkMailServer({ ...who, part: 'smtp' });
      expect(refused).toMatchObject({ ok: false, error: "The server's certificate is not trusted (self-signed or from a private authority)" });
      const fingerprint = (refused as { certificate: { fingerprint: string } }).certificate.fingerprint;
      expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      expect(await trustServerCertificate({ ...who, part: 'smtp', fingerprint })).toBe(true);
      expect(await checkMailServer({ ...who, part: 'smtp' })).toEqual({ ok: true });
    } finally {
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
