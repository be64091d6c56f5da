import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createCaptcha } from '../../app/models/productivity/captcha.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createForm, getForm, setFormStatus, submitForm } from '../../app/models/forms/forms.server';
import { processEventBatch } from '../../engine/events';
import { formSubmissions } from '../../engine/handlers/forms';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { drainEvents } from '../helpers/engine';
import { makePng } from '../helpers/png';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-forms-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const form = await createForm({ accountId: a.account.id, actorId: a.owner.id, name: 'Demo request' });
  return { ...a, cookie, form };
}

/** The builder's post: every setting and row as the page sends them, plus the pressed button's intent. */
function builderPost(form: { fields: { key: string; type: string; label: string; required: boolean; options?: string[] }[] }, intent: string, extra: Record<string, string> = {}) {
  const body: Record<string, string> = {
    intent,
    name: 'Demo request',
    headerText: 'Book a demo',
    description: 'We will call you back',
    submitText: 'Request demo',
    brandColour: 'teal',
    thankYouMessage: 'Thanks, talk soon!',
    redirectUrl: '',
    inboxId: '',
    ...extra,
  };
  form.fields.forEach((f, i) => {
    body[`fields[${i}].key`] = f.key;
    body[`fields[${i}].type`] = f.type;
    body[`fields[${i}].label`] = f.label;
    if (f.required) body[`fields[${i}].required`] = 'on';
    if (f.options) body[`fields[${i}].options`] = f.options.join('\n');
  });
  return body;
}

async function answered(formId: number) {
  const c = await createCaptcha({ formId: -formId, now: Date.now() - 5_000 });
  const [, x, y] = c.question.match(/What is (\d+) \+ (\d+)\?/)!;
  return { captchaToken: c.token, captchaAnswer: String(Number(x) + Number(y)) };
}

async function postMultipart(domain: string, p: string, fields: Record<string, string>, files: { name: string; type: string; bytes: Buffer }[]) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const f of files) fd.append('attachments', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
  const encoded = new Request('http://encoder.invalid/', { method: 'POST', body: fd });
  const body = Buffer.from(await encoded.arrayBuffer());
  const host = `${domain}.${process.env.APP_HOST ?? 'localhost:3000'}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: app.port, path: p, method: 'POST', headers: { host, origin: `http://${host}`, 'content-type': encoded.headers.get('content-type')!, 'content-length': String(body.length) } },
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

const responsesOf = (accountId: number) => getDb().select().from(schema.formResponses).where(eq(schema.formResponses.accountId, accountId));

describe('the form builder', () => {
  it('adds, moves and removes rows by submissions, keeping what was typed, and refuses bad settings with 400', async () => {
    const s = await setup();
    const edit = `/forms/edit/${s.form.id}`;
    const page = await app.request(edit, { domain: s.domain, cookie: s.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Add field');

    let form = (await getForm({ accountId: s.account.id, id: s.form.id }))!;
    expect(form.fields.map((f) => f.type)).toEqual(['full_name', 'email', 'long_text']);
    // Add a company field; the header typed in the same submission is saved too.
    let res = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: { ...builderPost(form, 'add'), newType: 'company' } });
    expect(res.status).toBe(302);
    form = (await getForm({ accountId: s.account.id, id: s.form.id }))!;
    expect(form.fields.map((f) => f.type)).toEqual(['full_name', 'email', 'long_text', 'company']);
    expect(form).toMatchObject({ headerText: 'Book a demo', brandColour: 'teal' });
    // Move company up, then remove the message row.
    res = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: builderPost(form, 'up:3') });
    form = (await getForm({ accountId: s.account.id, id: s.form.id }))!;
    expect(form.fields.map((f) => f.type)).toEqual(['full_name', 'email', 'company', 'long_text']);
    res = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: builderPost(form, 'remove:3') });
    form = (await getForm({ accountId: s.account.id, id: s.form.id }))!;
    expect(form.fields.map((f) => f.type)).toEqual(['full_name', 'email', 'company']);

    // Bad input: a choice without options, an empty label, a bad redirect URL, an unknown intent.
    const before = form.updatedAt;
    const bad = builderPost({ fields: [...form.fields, { key: 'f_abcdef12', type: 'choice', label: '', required: false, options: ['only one'] }] }, 'save', { redirectUrl: 'javascript:alert(1)' });
    res = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: bad });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Label is required');
    expect(res.text).toContain('Redirect URL must be a valid https:// or http:// address');
    expect(res.text).toContain('value="Book a demo"');
    const oneOption = builderPost({ fields: [...form.fields, { key: 'f_abcdef12', type: 'choice', label: 'Plan', required: false, options: ['only one'] }] }, 'save');
    res = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: oneOption });
    expect(res.status).toBe(400);
    expect(res.text).toContain('A choice needs at least two options, one per line');
    const noEmail = await app.request(edit, { domain: s.domain, cookie: s.cookie, form: builderPost({ fields: form.fields.filter((f) => f.type !== 'email') }, 'save') });
    expect(noEmail.status).toBe(400);
    expect(noEmail.text).toContain('A form needs an Email field');
    expect((await app.request(edit, { domain: s.domain, cookie: s.cookie, form: builderPost(form, 'explode:1') })).status).toBe(400);
    expect((await getForm({ accountId: s.account.id, id: s.form.id }))!.updatedAt).toEqual(before);
  });

  it('never shows or changes another account’s form', async () => {
    const s = await setup();
    const other = await setup();
    const edit = `/forms/edit/${other.form.id}`;
    expect((await app.request(edit, { domain: s.domain, cookie: s.cookie })).status).toBe(404);
    expect((await app.request(edit, { domain: s.domain, cookie: s.cookie, form: builderPost(other.form, 'save', { name: 'Hijacked' }) })).status).toBe(404);
    expect((await app.request(edit, { domain: s.domain, cookie: s.cookie, form: { intent: 'publish' } })).status).toBe(404);
    expect((await app.request(`/forms/responses/${other.form.id}`, { domain: s.domain, cookie: s.cookie })).status).toBe(404);
    expect((await app.request(`/forms/responses/${other.form.id}/export`, { domain: s.domain, cookie: s.cookie })).status).toBe(404);
    const list = await app.request('/forms/all', { domain: s.domain, cookie: s.cookie });
    expect(list.text).not.toContain(`/forms/edit/${other.form.id}"`);
    expect((await getForm({ accountId: other.account.id, id: other.form.id }))!).toMatchObject({ name: 'Demo request', status: 'draft' });
  });
});

describe('the public form', () => {
  it('stores the response with form_submitted; the engine then creates or updates the contact and opens a conversation (ADR 112)', async () => {
    const s = await setup();
    const inbox = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Leads', channelType: 'contact_form' });
    let form = s.form;
    const fields = [
      ...form.fields,
      { key: 'f_company1', type: 'company', label: 'Company', required: false },
      { key: 'f_country1', type: 'country', label: 'Country', required: true },
      { key: 'f_plan0001', type: 'choice', label: 'Plan', required: true, options: ['Starter', 'Pro'] },
      { key: 'f_consent1', type: 'consent', label: 'I agree to be contacted', required: true },
      { key: 'f_phone001', type: 'phone', label: 'Phone', required: false },
    ];
    await app.request(`/forms/edit/${form.id}`, { domain: s.domain, cookie: s.cookie, form: builderPost({ fields }, 'save', { inboxId: String(inbox.id), captcha: 'on' }) });
    const draftPath = `/f/${form.code}`;
    expect((await app.request(draftPath, { domain: s.domain })).status).toBe(404);
    await app.request(`/forms/edit/${form.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'publish' } });
    form = (await getForm({ accountId: s.account.id, id: form.id }))!;

    const page = await app.request(draftPath, { domain: s.domain });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Book a demo');
    expect(page.text).toContain('data-testid="captcha"');
    // No script at all: the page works and stays small without JavaScript.
    expect(page.text).not.toContain('<script');

    const [nameKey, emailKey, messageKey] = form.fields.map((f) => f.key);
    const good = { [nameKey]: 'Dana Lead', [emailKey]: 'Dana@Lead.test', [messageKey]: 'Call me', f_company1: 'Lead Co', f_country1: 'DE', f_plan0001: 'Pro', f_consent1: 'on' };
    // Field errors: 400, nothing stored, typed values shown back.
    let res = await app.request(draftPath, { domain: s.domain, form: { ...good, [emailKey]: 'nope', f_plan0001: 'Enterprise', f_consent1: '', ...(await answered(form.id)) } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Please enter a valid email');
    expect(res.text).toContain('Please choose one of the options');
    expect(res.text).toContain('Please give your consent to continue');
    expect(res.text).toContain('value="Dana Lead"');
    // A phone with its country code: a plus and 4 to 14 digits (section 5's "International phone").
    res = await app.request(draftPath, { domain: s.domain, form: { ...good, f_phone001: '+49 30 1234 5678 9012', ...(await answered(form.id)) } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Phone number must have 14 digits.');
    // A wrong captcha answer.
    res = await app.request(draftPath, { domain: s.domain, form: { ...good, captchaToken: (await answered(form.id)).captchaToken, captchaAnswer: '99' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('That answer is not correct');
    expect(await responsesOf(s.account.id)).toHaveLength(0);

    res = await app.request(draftPath, { domain: s.domain, form: { ...good, ...(await answered(form.id)) } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${draftPath}?sent=1`);
    expect((await app.request(res.headers.location!, { domain: s.domain })).text).toContain('Thanks, talk soon!');

    // The submission's own transaction: the response and its event, nothing else yet (ADR 112).
    const [stored] = await responsesOf(s.account.id);
    expect(stored).toMatchObject({ formId: form.id, email: 'dana@lead.test', pending: true, contactId: null, conversationId: null });
    expect(await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id))).toHaveLength(0);
    const waiting = await app.request(`/forms/responses/${form.id}`, { domain: s.domain, cookie: s.cookie });
    expect(waiting.text).toContain('data-testid="response-pending"');
    expect((await app.request(`/forms/responses/${form.id}/${stored.id}`, { domain: s.domain, cookie: s.cookie })).text).toContain('its contact and conversation are being made'.replace('its', 'Its'));

    // The engine files it; a second run of the same events (a redelivery) makes nothing twice.
    await drainEvents(s.account.id);
    await drainEvents(s.account.id);
    const [response] = await responsesOf(s.account.id);
    expect(response).toMatchObject({ formId: form.id, email: 'dana@lead.test', pending: false });
    expect(response.answers).toMatchObject({ f_plan0001: 'Pro', f_country1: 'DE' });
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id))).toHaveLength(1);
    const handlings = await getDb().select().from(schema.eventHandlings).where(and(eq(schema.eventHandlings.accountId, s.account.id), eq(schema.eventHandlings.handler, 'forms')));
    expect(handlings).toHaveLength(1);
    expect(handlings[0]).toMatchObject({ status: 'done', result: { responseId: response.id } });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, response.contactId!));
    expect(contact).toMatchObject({ email: 'dana@lead.test', firstName: 'Dana', lastName: 'Lead', country: 'DE' });
    expect(contact.companyId).not.toBeNull();
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, response.conversationId!));
    expect(conv).toMatchObject({ inboxId: inbox.id, sourceType: 'support_form', contactId: contact.id });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'form_submitted'))).orderBy(schema.domainEvents.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ subjectId: String(response.id), payload: { formId: form.id, contactId: contact.id, conversationId: conv.id } });

    // The same email again updates the same contact.
    res = await app.request(draftPath, { domain: s.domain, form: { ...good, [emailKey]: 'dana@lead.test', f_country1: 'FR', ...(await answered(form.id)) } });
    expect(res.status).toBe(302);
    await drainEvents(s.account.id);
    const contacts = await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id));
    expect(contacts).toHaveLength(1);
    expect(contacts[0].country).toBe('FR');

    // Responses: list, a response's page, CSV, delete.
    const list = await app.request(`/forms/responses/${form.id}`, { domain: s.domain, cookie: s.cookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('dana@lead.test');
    const one = await app.request(`/forms/responses/${form.id}/${response.id}`, { domain: s.domain, cookie: s.cookie });
    expect(one.text).toContain('I agree to be contacted');
    const csv = await app.request(`/forms/responses/${form.id}/export`, { domain: s.domain, cookie: s.cookie });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.text.split('\n')[0]).toContain('Full name,Email,Message,Company,Country,Plan,I agree to be contacted');
    expect(csv.text).toContain('Dana Lead,dana@lead.test,Call me,Lead Co,FR,Pro,Yes');
    const del = await app.request(`/forms/responses/${form.id}/${response.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'delete' } });
    expect(del.status).toBe(302);
    expect(await responsesOf(s.account.id)).toHaveLength(1);
  });

  it('refuses a forged code, another account’s code, an oversized or disguised upload, and a spam honeypot, changing nothing', async () => {
    const s = await setup();
    const other = await setup();
    const fields = [...s.form.fields, { key: 'f_files001', type: 'file', label: 'Screenshot', required: false }];
    await app.request(`/forms/edit/${s.form.id}`, { domain: s.domain, cookie: s.cookie, form: builderPost({ fields }, 'save') });
    await setFormStatus({ accountId: s.account.id, actorId: null, id: s.form.id, status: 'published' });
    await setFormStatus({ accountId: other.account.id, actorId: null, id: other.form.id, status: 'published' });
    const form = (await getForm({ accountId: s.account.id, id: s.form.id }))!;
    const p = `/f/${form.code}`;
    const [nameKey, emailKey] = form.fields.map((f) => f.key);
    const good = { [nameKey]: 'Eve', [emailKey]: 'eve@example.test' };

    expect((await app.request('/f/forged-code-123', { domain: s.domain, form: good })).status).toBe(404);
    expect((await app.request('/f/..%2F..', { domain: s.domain })).status).toBe(404);
    expect((await app.request(`/f/${other.form.code}`, { domain: s.domain, form: good })).status).toBe(404);

    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 1);
    let res = await postMultipart(s.domain, p, good, [{ name: 'huge.png', type: 'image/png', bytes: Buffer.concat([makePng(), big]) }]);
    expect(res.status).toBe(400);
    expect(res.text).toContain('huge.png is larger than 10 MB');
    res = await postMultipart(s.domain, p, good, [{ name: 'evil.png', type: 'image/png', bytes: Buffer.from('MZ this is not an image') }]);
    expect(res.status).toBe(400);
    expect(res.text).toContain('evil.png is not an image, a PDF or a text file');
    res = await app.request(p, { domain: s.domain, form: { ...good, website: 'http://spam.test' } });
    expect(res.status).toBe(400);
    expect(await responsesOf(s.account.id)).toHaveLength(0);
    expect(await responsesOf(other.account.id)).toHaveLength(0);
    expect(await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id))).toHaveLength(0);

    // A real image goes through and is downloadable by the account only.
    res = await postMultipart(s.domain, p, good, [{ name: 'shot.png', type: 'image/png', bytes: makePng() }]);
    expect(res.status).toBe(302);
    const [response] = await responsesOf(s.account.id);
    const file = await app.request(`/forms/responses/${form.id}/${response.id}/file/f_files001`, { domain: s.domain, cookie: s.cookie });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const otherCookie = other.cookie;
    expect((await app.request(`/forms/responses/${form.id}/${response.id}/file/f_files001`, { domain: other.domain, cookie: otherCookie })).status).toBe(404);
  });
});

describe('the engine files a submission exactly once (ADR 112)', () => {
  it('two deliveries at once, a redelivery after, and a failed first try make one contact, one conversation and one record', async () => {
    const s = await setup();
    const inbox = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Leads', channelType: 'contact_form' });
    const form = { ...s.form, inboxId: inbox.id };
    const [nameKey, emailKey] = form.fields.map((f) => f.key);
    const response = await submitForm({ accountId: s.account.id, form, answers: { [nameKey]: 'Tara Twin', [emailKey]: 'tara@twin.test' } });
    const [event] = await getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'form_submitted')));
    expect(event.payload).toMatchObject({ contactId: null, conversationId: null, inboxId: inbox.id });

    // A first try that fails leaves nothing behind (its record says failed; the retry below runs it).
    const failing = await processEventBatch([{ eventId: event.id, type: event.type }], [{ ...formSubmissions, handle: async () => Promise.reject(new Error('database went away')) }]);
    expect(failing[0]).toBeInstanceOf(Error);
    expect(await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id))).toHaveLength(0);

    // Two workers deliver the same job at once, then it is delivered again.
    const twins = await Promise.all([processEventBatch([{ eventId: event.id, type: event.type }], [formSubmissions]), processEventBatch([{ eventId: event.id, type: event.type }], [formSubmissions])]);
    expect(twins.flat().every((o) => !(o instanceof Error))).toBe(true);
    await processEventBatch([{ eventId: event.id, type: event.type }], [formSubmissions]);

    expect(await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id))).toHaveLength(1);
    const conversations = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id));
    expect(conversations).toHaveLength(1);
    const [filed] = await getDb().select().from(schema.formResponses).where(eq(schema.formResponses.id, response.id));
    expect(filed).toMatchObject({ pending: false, conversationId: conversations[0].id });
    const [completed] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.id, event.id));
    expect(completed.payload).toMatchObject({ contactId: filed.contactId, conversationId: conversations[0].id });
    const records = await getDb().select().from(schema.eventHandlings).where(and(eq(schema.eventHandlings.eventId, event.id), eq(schema.eventHandlings.handler, 'forms')));
    expect(records).toHaveLength(1);
    expect(records[0].status).toBe('done');

    // The handlers after it in one batch read the completed payload from the event object they are handed.
    const seen: unknown[] = [];
    const response2 = await submitForm({ accountId: s.account.id, form, answers: { [nameKey]: 'Tara Twin', [emailKey]: 'tara@twin.test' } });
    const [event2] = await getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.type, 'form_submitted'), eq(schema.domainEvents.subjectId, String(response2.id))));
    await processEventBatch([{ eventId: event2.id, type: event2.type }], [formSubmissions, { name: 'spy', on: ['form_submitted'], handle: async (e) => void seen.push(e.payload) }]);
    expect(seen).toEqual([expect.objectContaining({ contactId: filed.contactId, conversationId: expect.any(Number) })]);
    expect(await getDb().select().from(schema.contacts).where(eq(schema.contacts.accountId, s.account.id))).toHaveLength(1);
  });
});
