import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { solveChallenge } from 'altcha-lib';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { listAttachmentsOfMessage, readAttachment } from '../../app/models/inbox/attachments.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { CAPTCHA_MESSAGES, createCaptcha } from '../../app/models/productivity/captcha.server';
import { createContactForm, setContactFormActive } from '../../app/models/productivity/contact-forms.server';
import { ATTACHMENT_MESSAGES, sniffAttachment } from '../../app/models/productivity/uploads.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';
import { makePng } from '../helpers/png';

// Stored attachments go to a directory of this file's own, removed at the end.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-contact-form-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function setup(allow: { phone?: boolean; attachments?: boolean; captcha?: boolean } = {}) {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website', channelType: 'contact_form' });
  const form = await createContactForm({
    accountId: a.account.id,
    actorId: a.owner.id,
    headerText: 'Talk to Acme',
    subHeaderText: 'We answer within a day',
    submitText: 'Send it',
    submitMsg: 'Thanks! We will be in touch.',
    inboxId: inbox.id,
    allowPhone: allow.phone ?? false,
    allowAttachments: allow.attachments ?? false,
    allowCaptcha: allow.captcha ?? false,
  });
  const path = `/contact/${form.code}`;
  return { ...a, inbox, form, path };
}

const valid = { name: 'Cara Customer', email: 'Cara@Example.test', subject: 'Where is my order?', message: 'Order 991 has not arrived.' };

async function conversationsOf(accountId: number) {
  return getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, accountId));
}

/** A multipart post on the account's host, as a browser sends a form with files. */
async function postMultipart(domain: string, path: string, fields: Record<string, string>, files: { name: string; type: string; bytes: Buffer }[] = []) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const f of files) fd.append('attachments', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
  const encoded = new Request('http://encoder.invalid/', { method: 'POST', body: fd });
  const body = Buffer.from(await encoded.arrayBuffer());
  const host = `${domain}.${process.env.APP_HOST ?? 'localhost:3000'}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.port,
        path,
        method: 'POST',
        headers: { host, origin: `http://${host}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What the page's script does with JavaScript on: solve the ALTCHA proof of work and encode the payload. */
async function solvedAltcha(formId: number) {
  const { altcha } = await createCaptcha({ formId });
  const solution = await solveChallenge(altcha.challenge, altcha.salt, altcha.algorithm, altcha.maxnumber).promise;
  if (!solution) throw new Error('unsolvable challenge');
  return Buffer.from(JSON.stringify({ algorithm: altcha.algorithm, challenge: altcha.challenge, number: solution.number, salt: altcha.salt, signature: altcha.signature })).toString('base64');
}

/** The no-JavaScript path: the question on the page, answered, with its token, issued long enough ago. */
async function answeredQuestion(formId: number, opts: { ageMs?: number; wrong?: boolean } = {}) {
  const c = await createCaptcha({ formId, now: Date.now() - (opts.ageMs ?? 5_000) });
  const [, x, y] = c.question.match(/What is (\d+) \+ (\d+)\?/)!;
  return { captchaToken: c.token, captchaAnswer: String(Number(x) + Number(y) + (opts.wrong ? 1 : 0)) };
}

describe('the public contact form', () => {
  it('opens a support_form conversation in the chosen inbox, from a contact matched by email, then shows the submit message', async () => {
    const s = await setup({ phone: true });
    const page = await app.request(s.path, { domain: s.domain });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Talk to Acme');
    expect(page.text).toContain('We answer within a day');
    expect(page.text).toContain('>Send it</button>');
    expect(page.text).toContain('name="phone"');
    expect(page.text).not.toContain('name="attachments"');
    expect(page.text).not.toContain('data-testid="captcha"');
    // Embeddable on any site; never cached.
    expect(page.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(page.headers['cache-control']).toBe('no-store');

    const res = await app.request(s.path, { domain: s.domain, form: { ...valid, phone: '5551234' } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${s.path}?sent=1`);
    const done = await app.request(res.headers.location!, { domain: s.domain });
    expect(done.text).toContain('Thanks! We will be in touch.');
    expect(done.text).not.toContain('name="email"');

    const [conv] = await conversationsOf(s.account.id);
    expect(conv).toMatchObject({ inboxId: s.inbox.id, sourceType: 'support_form', subject: 'Where is my order?', status: 'open' });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conv.contactId!));
    expect(contact).toMatchObject({ email: 'cara@example.test', firstName: 'Cara', lastName: 'Customer', phone: '5551234', source: 'support_form' });
    const msgs = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conv.id));
    expect(msgs).toMatchObject([{ kind: 'incoming', text: 'Order 991 has not arrived.', senderContactId: contact.id }]);
    const created = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'conversation_created'))).orderBy(schema.domainEvents.id);
    expect(created).toHaveLength(1);

    // The same address again is the same contact, and a known phone is not overwritten by a form.
    await app.request(s.path, { domain: s.domain, form: { ...valid, email: 'cara@example.test', phone: '999999', subject: 'Again' } });
    const convs = await conversationsOf(s.account.id);
    expect(convs).toHaveLength(2);
    expect(new Set(convs.map((c) => c.contactId)).size).toBe(1);
    const [again] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conv.contactId!));
    expect(again.phone).toBe('5551234');
  });

  it('answers field errors with 400, keeps what was typed and creates nothing', async () => {
    const s = await setup({ phone: true });
    const res = await app.request(s.path, { domain: s.domain, form: { ...valid, email: 'not-an-email', phone: '12ab' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter a valid email address');
    expect(res.text).toContain('Enter a valid phone number');
    expect(res.text).toContain('value="not-an-email"');
    expect(res.text).toContain('value="Cara Customer"');
    expect(res.text).toContain('value="Where is my order?"');
    expect(res.text).toContain('>Order 991 has not arrived.</textarea>');
    const empty = await app.request(s.path, { domain: s.domain, form: { name: '', email: '', subject: '', message: '' } });
    expect(empty.status).toBe(400);
    for (const m of ['Name is not allowed to be empty', 'Email is required', 'Subject is not allowed to be empty', 'Message is not allowed to be empty']) expect(empty.text).toContain(m);
    const tooLongPhone = await app.request(s.path, { domain: s.domain, form: { ...valid, phone: '1'.repeat(15) } });
    expect(tooLongPhone.text).toContain('Length must be less than or equal to 14 characters');
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
  });

  it('is a 404 for an unknown code, an inactive form, or another account’s form', async () => {
    const s = await setup();
    const other = await setup();
    expect((await app.request('/contact/nope-nope-nope', { domain: s.domain })).status).toBe(404);
    expect((await app.request('/contact/..%2F..', { domain: s.domain })).status).toBe(404);
    // B's code on A's host: codes are looked up within the host's account.
    expect((await app.request(other.path, { domain: s.domain })).status).toBe(404);
    expect((await app.request(other.path, { domain: s.domain, form: valid })).status).toBe(404);
    expect(await conversationsOf(other.account.id)).toHaveLength(0);

    await setContactFormActive({ accountId: s.account.id, actorId: null, id: s.form.id, isActive: false });
    expect((await app.request(s.path, { domain: s.domain })).status).toBe(404);
    expect((await app.request(s.path, { domain: s.domain, form: valid })).status).toBe(404);
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
    await setContactFormActive({ accountId: s.account.id, actorId: null, id: s.form.id, isActive: true });
    expect((await app.request(s.path, { domain: s.domain })).status).toBe(200);
  });

  it('refuses a filled-in honeypot', async () => {
    const s = await setup();
    const res = await app.request(s.path, { domain: s.domain, form: { ...valid, website: 'http://spam.example' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain(CAPTCHA_MESSAGES.honeypot);
    expect(res.text).toContain('value="Cara Customer"');
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
  });

  it('limits submissions per address', async () => {
    const s = await setup();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await app.request(s.path, { domain: s.domain, form: { ...valid, subject: `n${i}` } })).status);
    expect(statuses.slice(0, 10).every((x) => x === 302)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(await conversationsOf(s.account.id)).toHaveLength(10);
  });
});

describe('captcha', () => {
  it('shows the question without JavaScript and refuses a post without an answer or with a wrong one', async () => {
    const s = await setup({ captcha: true });
    const page = await app.request(s.path, { domain: s.domain });
    expect(page.text).toContain('data-testid="captcha"');
    const question = page.text.match(/What is (\d) \+ (\d)\?/);
    expect(question).not.toBeNull();
    const token = page.text.match(/name="captchaToken" value="([^"]+)"/)![1];

    const missing = await app.request(s.path, { domain: s.domain, form: { ...valid, captchaToken: token } });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain(CAPTCHA_MESSAGES.missing);
    expect(missing.text).toContain('value="Cara Customer"');
    const none = await app.request(s.path, { domain: s.domain, form: valid });
    expect(none.status).toBe(400);
    expect(none.text).toContain(CAPTCHA_MESSAGES.invalid);
    const answer = String(Number(question![1]) + Number(question![2]));
    const wrong = await app.request(s.path, { domain: s.domain, form: { ...valid, captchaToken: token, captchaAnswer: String(Number(answer) + 1) } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain(CAPTCHA_MESSAGES.wrong);
    // The right answer at once is a script's speed.
    const quick = await app.request(s.path, { domain: s.domain, form: { ...valid, captchaToken: token, captchaAnswer: answer } });
    expect(quick.status).toBe(400);
    expect(quick.text).toContain(CAPTCHA_MESSAGES.tooFast);
    const forged = await app.request(s.path, { domain: s.domain, form: { ...valid, captchaToken: `${Date.now() - 10_000}.abc.def`, captchaAnswer: answer } });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain(CAPTCHA_MESSAGES.wrong);
    const invalidAltcha = await app.request(s.path, { domain: s.domain, form: { ...valid, altcha: Buffer.from('{"number":1}').toString('base64') } });
    expect(invalidAltcha.status).toBe(400);
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
  });

  it('accepts the answered question after a few seconds, once', async () => {
    const s = await setup({ captcha: true });
    const answered = await answeredQuestion(s.form.id);
    const ok = await app.request(s.path, { domain: s.domain, form: { ...valid, ...answered } });
    expect(ok.status).toBe(302);
    const replay = await app.request(s.path, { domain: s.domain, form: { ...valid, ...answered } });
    expect(replay.status).toBe(400);
    expect(replay.text).toContain(CAPTCHA_MESSAGES.expired);
    const stale = await app.request(s.path, { domain: s.domain, form: { ...valid, ...(await answeredQuestion(s.form.id, { ageMs: 3 * 60 * 60 * 1000 })) } });
    expect(stale.status).toBe(400);
    expect(stale.text).toContain(CAPTCHA_MESSAGES.expired);
    // A token of another form does not open this one.
    const other = await setup({ captcha: true });
    const foreign = await app.request(s.path, { domain: s.domain, form: { ...valid, ...(await answeredQuestion(other.form.id)) } });
    expect(foreign.status).toBe(400);
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });

  it('really waits: a question answered from the page three seconds later goes through', async () => {
    const s = await setup({ captcha: true });
    const page = await app.request(s.path, { domain: s.domain });
    const [, x, y] = page.text.match(/What is (\d) \+ (\d)\?/)!;
    const token = page.text.match(/name="captchaToken" value="([^"]+)"/)![1];
    await new Promise((r) => setTimeout(r, 3_100));
    const ok = await app.request(s.path, { domain: s.domain, form: { ...valid, captchaToken: token, captchaAnswer: String(Number(x) + Number(y)) } });
    expect(ok.status).toBe(302);
  });

  it('accepts a solved ALTCHA proof of work (the JavaScript path), once, and keeps it while a field is fixed', async () => {
    const s = await setup({ captcha: true });
    const altcha = await solvedAltcha(s.form.id);
    // A field error does not use the solution up.
    const bad = await app.request(s.path, { domain: s.domain, form: { ...valid, email: 'nope', altcha } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid email address');
    expect(bad.text).not.toContain(CAPTCHA_MESSAGES.invalid);
    const ok = await app.request(s.path, { domain: s.domain, form: { ...valid, altcha } });
    expect(ok.status).toBe(302);
    const replay = await app.request(s.path, { domain: s.domain, form: { ...valid, altcha } });
    expect(replay.status).toBe(400);
    // A solution made for another form is refused.
    const other = await setup({ captcha: true });
    const foreign = await app.request(s.path, { domain: s.domain, form: { ...valid, altcha: await solvedAltcha(other.form.id) } });
    expect(foreign.status).toBe(400);
    expect(await conversationsOf(s.account.id)).toHaveLength(1);
  });

  it('still checks the honeypot when the captcha passes', async () => {
    const s = await setup({ captcha: true });
    const res = await app.request(s.path, { domain: s.domain, form: { ...valid, altcha: await solvedAltcha(s.form.id), website: 'x' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain(CAPTCHA_MESSAGES.honeypot);
    expect(await conversationsOf(s.account.id)).toHaveLength(0);
  });
});

describe('attachments', () => {
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

  it('sniffs the bytes: images, PDF and UTF-8 text only', async () => {
    expect(await sniffAttachment(makePng(), 'photo.png')).toBe('image/png');
    expect(await sniffAttachment(pdf, 'doc.pdf')).toBe('application/pdf');
    expect(await sniffAttachment(Buffer.from('hello\nworld\n'), 'notes.txt')).toBe('text/plain');
    expect(await sniffAttachment(Buffer.from('a,b\n1,2\n'), 'data.csv')).toBe('text/csv');
    // A script renamed to .txt with binary bytes, an executable renamed to .png, HTML: all refused.
    expect(await sniffAttachment(Buffer.from([0x00, 0x01, 0x02, 0x03]), 'x.txt')).toBeNull();
    expect(await sniffAttachment(Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), 'x.png')).toBeNull();
    expect(await sniffAttachment(Buffer.from('<html><script>alert(1)</script></html>'), 'x.html')).toBeNull();
    expect(await sniffAttachment(Buffer.from('plain words'), 'x.png')).toBeNull();
  });

  it('stores allowed files on the first message, typed by their bytes, readable only by the account', async () => {
    const s = await setup({ attachments: true });
    const other = await setup();
    const png = makePng();
    const res = await postMultipart(s.domain, s.path, valid, [
      { name: 'photo.png', type: 'image/png', bytes: png },
      // The declared type does not matter: the bytes say PDF.
      { name: 'invoice.pdf', type: 'application/octet-stream', bytes: pdf },
      { name: '../../notes.txt', type: 'text/plain', bytes: Buffer.from('Line one\nLine two\n') },
    ]);
    expect(res.status).toBe(302);
    const [conv] = await conversationsOf(s.account.id);
    const [message] = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conv.id));
    const files = await listAttachmentsOfMessage({ accountId: s.account.id, messageId: message.id });
    expect(files.map((f) => [f.filename, f.contentType, f.size])).toEqual([
      ['photo.png', 'image/png', png.length],
      ['invoice.pdf', 'application/pdf', pdf.length],
      ['notes.txt', 'text/plain', 18],
    ]);
    const read = await readAttachment({ accountId: s.account.id, id: files[0].id });
    expect(read?.bytes.equals(png)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'attachments', files[0].storageKey))).toBe(true);
    expect(await readAttachment({ accountId: other.account.id, id: files[0].id })).toBeUndefined();
    expect(await listAttachmentsOfMessage({ accountId: other.account.id, messageId: message.id })).toHaveLength(0);
  });

  it('refuses too many, too large or wrong files with 400 and the typed values, creating nothing', async () => {
    const s = await setup({ attachments: true });
    const page = await app.request(s.path, { domain: s.domain });
    expect(page.text).toMatch(/enctype="multipart\/form-data"/i);
    expect(page.text).toContain('name="attachments"');

    const many = await postMultipart(s.domain, s.path, valid, [1, 2, 3, 4].map((i) => ({ name: `n${i}.txt`, type: 'text/plain', bytes: Buffer.from(`note ${i}`) })));
    expect(many.status).toBe(400);
    expect(many.text).toContain(ATTACHMENT_MESSAGES.tooMany);
    expect(many.text).toContain('value="Cara Customer"');
    const large = await postMultipart(s.domain, s.path, valid, [{ name: 'big.pdf', type: 'application/pdf', bytes: Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024)]) }]);
    expect(large.status).toBe(400);
    expect(large.text).toContain(ATTACHMENT_MESSAGES.tooLarge('big.pdf'));
    const wrong = await postMultipart(s.domain, s.path, valid, [{ name: 'evil.png', type: 'image/png', bytes: Buffer.from('<script>alert(1)</script>') }]);
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain(ATTACHMENT_MESSAGES.badType('evil.png'));
    const huge = await postMultipart(s.domain, s.path, valid, [1, 2, 3, 4].map((i) => ({ name: `h${i}.pdf`, type: 'application/pdf', bytes: Buffer.alloc(9 * 1024 * 1024) })));
    expect(huge.status).toBe(413);
    expect(await conversationsOf(s.account.id)).toHaveLength(0);

    // Without attachments allowed, files are never read into a conversation.
    const plain = await setup();
    const ignored = await postMultipart(plain.domain, plain.path, valid, [{ name: 'n.txt', type: 'text/plain', bytes: Buffer.from('note') }]);
    expect(ignored.status).toBe(302);
    const [conv] = await conversationsOf(plain.account.id);
    const files = await getDb().select().from(schema.attachments).where(eq(schema.attachments.accountId, plain.account.id));
    expect(conv).toBeDefined();
    expect(files).toHaveLength(0);
  });
});
