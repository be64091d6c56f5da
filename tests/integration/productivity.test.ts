import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { deleteConversations, openConversation, tagConversations } from '../../app/models/inbox/conversations.server';
import {
  createCannedResponse,
  deleteCannedResponse,
  getCannedResponse,
  listCannedResponses,
  updateCannedResponse,
} from '../../app/models/productivity/canned-responses.server';
import {
  createContactForm,
  deleteContactForm,
  getContactForm,
  listContactForms,
  setContactFormActive,
  updateContactForm,
} from '../../app/models/productivity/contact-forms.server';
import {
  createEmailTemplate,
  deleteEmailTemplate,
  getEmailTemplate,
  listEmailTemplates,
  renderTemplate,
  updateEmailTemplate,
} from '../../app/models/productivity/email-templates.server';
import { countTagConversations, createTag, deleteTag, getTag, listTags, updateTag } from '../../app/models/productivity/tags.server';
import { FieldInputError } from '../../app/models/productivity/shared.server';
import { ROLE_LOCKED_MESSAGE } from '../../app/models/roles/permissions';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** An account with its owner, an agent (default agent permissions) and a user whose custom role has no permission. */
async function setupAccount() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Agnes' });
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  return {
    ...a,
    agent,
    viewer,
    inbox,
    ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    agentCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id }),
    viewerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
  };
}
type Account = Awaited<ReturnType<typeof setupAccount>>;

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);
}

const contactFormFields = (inboxId: number | string, over: Record<string, string> = {}) => ({
  headerText: 'Talk to us',
  subHeaderText: 'We answer within a day',
  submitText: 'Send',
  submitMsg: 'Thanks, we got it',
  inboxId: String(inboxId),
  ...over,
});

/**
 * Each settings area, described once: how a row is made for an account, the route, the form that saves it, and
 * how the model reads, changes and deletes it. The tenancy and permission tests run over all four.
 */
const AREAS = [
  {
    name: 'tags',
    path: '/settings/tags',
    permission: 'manage_tags',
    marker: 'Bravo-tag',
    create: (b: Account) => createTag({ accountId: b.account.id, actorId: b.owner.id, name: 'Bravo-tag', color: 'teal' }),
    form: (_a: Account) => ({ intent: 'save', name: 'Hijacked', color: 'red' }),
    get: (accountId: number, id: number) => getTag({ accountId, id }),
    update: (accountId: number, id: number) => updateTag({ accountId, actorId: null, id, name: 'Hijacked', color: 'red' }),
    remove: (accountId: number, id: number) => deleteTag({ accountId, actorId: null, id }),
    list: (accountId: number) => listTags({ accountId }),
  },
  {
    name: 'canned responses',
    path: '/settings/canned-responses',
    permission: 'manage_canned_responses',
    marker: 'Bravo-canned',
    create: (b: Account) => createCannedResponse({ accountId: b.account.id, actorId: b.owner.id, name: 'Bravo-canned', message: 'Secret B reply' }),
    form: (_a: Account) => ({ intent: 'save', name: 'Hijacked', message: 'Hijacked' }),
    get: (accountId: number, id: number) => getCannedResponse({ accountId, id }),
    update: (accountId: number, id: number) => updateCannedResponse({ accountId, actorId: null, id, name: 'Hijacked', message: 'x' }),
    remove: (accountId: number, id: number) => deleteCannedResponse({ accountId, actorId: null, id }),
    list: (accountId: number) => listCannedResponses({ accountId }),
  },
  {
    name: 'email templates',
    path: '/settings/email-templates',
    permission: 'manage_email_templates',
    marker: 'Bravo-template',
    create: (b: Account) => createEmailTemplate({ accountId: b.account.id, actorId: b.owner.id, name: 'Bravo-template', subject: 'B subject', body: 'Hello {{firstName}}' }),
    form: (_a: Account) => ({ intent: 'save', name: 'Hijacked', subject: 'x', body: 'x' }),
    get: (accountId: number, id: number) => getEmailTemplate({ accountId, id }),
    update: (accountId: number, id: number) => updateEmailTemplate({ accountId, actorId: null, id, name: 'Hijacked', subject: '', body: 'x' }),
    remove: (accountId: number, id: number) => deleteEmailTemplate({ accountId, actorId: null, id }),
    list: (accountId: number) => listEmailTemplates({ accountId }),
  },
  {
    name: 'contact forms',
    path: '/settings/contact-form',
    permission: 'manage_contact_form',
    marker: 'Bravo-form',
    create: (b: Account) =>
      createContactForm({
        accountId: b.account.id,
        actorId: b.owner.id,
        ...contactFormFields(b.inbox.id, { headerText: 'Bravo-form' }),
        allowPhone: false,
        allowAttachments: false,
        allowCaptcha: false,
      }),
    form: (a: Account) => ({ intent: 'save', ...contactFormFields(a.inbox.id, { headerText: 'Hijacked' }) }),
    get: (accountId: number, id: number) => getContactForm({ accountId, id }),
    update: (accountId: number, id: number) =>
      updateContactForm({ accountId, actorId: null, id, ...contactFormFields(1, { headerText: 'Hijacked' }), allowPhone: false, allowAttachments: false, allowCaptcha: false }),
    remove: (accountId: number, id: number) => deleteContactForm({ accountId, actorId: null, id }),
    list: (accountId: number) => listContactForms({ accountId }),
  },
] as const;

describe.each(AREAS)('tenancy of $name', (area) => {
  it("another account cannot list, read, change or delete them, by URL, by form or through the model", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const row = await area.create(b);

    const list = await app.request(area.path, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(area.marker);
    const search = await app.request(`${area.path}?q=${encodeURIComponent(area.marker)}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(search.status).toBe(200);
    expect(search.text).toContain('data-testid="empty"');
    expect(search.text).not.toContain(`>${area.marker}<`);

    const read = await app.request(`${area.path}/${row.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(read.status).toBe(404);
    expect(read.text).not.toContain(area.marker);
    const edit = await app.request(`${area.path}/${row.id}`, { domain: a.domain, cookie: a.ownerCookie, form: area.form(a) });
    expect(edit.status).toBe(404);
    const del = await app.request(`${area.path}/${row.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(404);

    // The model refuses too, whatever a route would forget.
    expect(await area.get(a.account.id, row.id)).toBeUndefined();
    expect(await area.update(a.account.id, row.id)).toBeUndefined();
    expect(await area.remove(a.account.id, row.id)).toBe(false);
    expect((await area.list(a.account.id)).map((r) => r.id)).not.toContain(row.id);

    const still = await area.get(b.account.id, row.id);
    expect(still).toBeDefined();
    expect(JSON.stringify(still)).toContain(area.marker);
    // B's owner still reads it on B's host.
    const own = await app.request(`${area.path}/${row.id}`, { domain: b.domain, cookie: b.ownerCookie });
    expect(own.status).toBe(200);
    expect(own.text).toContain(area.marker);
  });

  it(`without ${area.permission} the pages are readable but locked, and posts are refused with 403`, async () => {
    const a = await setupAccount();
    const row = await area.create(a);
    const list = await app.request(area.path, { domain: a.domain, cookie: a.viewerCookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain(area.marker);
    expect(list.text).toContain('data-testid="locked-note"');
    const page = await app.request(`${area.path}/${row.id}`, { domain: a.domain, cookie: a.viewerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(ROLE_LOCKED_MESSAGE.replace("'", '&#x27;'));
    expect(page.text).toMatch(/<button[^>]*disabled=""[^>]*title="Your current roles does not allow to update/);

    for (const form of [area.form(a), { intent: 'delete' }]) {
      const res = await app.request(`${area.path}/${row.id}`, { domain: a.domain, cookie: a.viewerCookie, form });
      expect(res.status).toBe(403);
    }
    const create = await app.request(`${area.path}/new`, { domain: a.domain, cookie: a.viewerCookie, form: area.form(a) });
    expect(create.status).toBe(403);
    expect(JSON.stringify(await area.get(a.account.id, row.id))).toContain(area.marker);
  });
});

describe('tags', () => {
  it('creates, updates and deletes through the routes, with the toasts and events', async () => {
    const a = await setupAccount();
    const created = await app.request('/settings/tags/new', { domain: a.domain, cookie: a.agentCookie, form: { intent: 'save', name: '  Billing  ', color: 'orange' } });
    expect(created.status).toBe(302);
    expect(created.headers.location).toBe('/settings/tags');
    const [tag] = await listTags({ accountId: a.account.id });
    expect(tag).toMatchObject({ name: 'Billing', color: 'orange', conversationCount: 0 });

    const updated = await app.request(`/settings/tags/${tag.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'save', name: 'Invoices', color: 'purple' } });
    expect(updated.status).toBe(302);
    expect(await getTag({ accountId: a.account.id, id: tag.id })).toMatchObject({ name: 'Invoices', color: 'purple' });

    const deleted = await app.request(`/settings/tags/${tag.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'delete' } });
    expect(deleted.status).toBe(302);
    expect(await getTag({ accountId: a.account.id, id: tag.id })).toBeUndefined();
    for (const type of ['tag_created', 'tag_updated', 'tag_deleted']) expect(await eventsOf(a.account.id, type)).toHaveLength(1);

    const unknown = await app.request(`/settings/tags/${tag.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'frobnicate' } });
    expect(unknown.status).toBe(400);
    expect((await app.request('/settings/tags/abc', { domain: a.domain, cookie: a.agentCookie })).status).toBe(404);
  });

  it('answers bad input with 400, the messages, and the typed values', async () => {
    const a = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/settings/tags/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...form } });
    const empty = await post({ name: '   ', color: 'red' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Name is not allowed to be empty');
    const long = await post({ name: 'T'.repeat(21), color: 'red' });
    expect(long.status).toBe(400);
    expect(long.text).toContain('Length must be less than or equal to 20 characters');
    expect(long.text).toContain(`value="${'T'.repeat(21)}"`);
    const colour = await post({ name: 'Ok', color: 'pink' });
    expect(colour.status).toBe(400);
    expect(colour.text).toContain('Choose a colour');

    await createTag({ accountId: a.account.id, actorId: null, name: 'Urgent', color: 'red' });
    const dup = await post({ name: 'URGENT', color: 'blue' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('A tag with this name already exists');
    await expect(createTag({ accountId: a.account.id, actorId: null, name: 'urgent', color: 'red' })).rejects.toBeInstanceOf(FieldInputError);
    // Another account may use the same name.
    const b = await setupAccount();
    await expect(createTag({ accountId: b.account.id, actorId: null, name: 'Urgent', color: 'red' })).resolves.toMatchObject({ name: 'Urgent' });
    expect(await listTags({ accountId: a.account.id })).toHaveLength(1);
  });

  it('counts the live conversations of each tag, in the list, the model and labels/counts', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const vip = await createTag({ accountId: a.account.id, actorId: null, name: 'VIP', color: 'yellow' });
    const spam = await createTag({ accountId: a.account.id, actorId: null, name: 'Spam', color: 'grey' });
    const open = async (acct: Account, email: string) =>
      (
        await openConversation({
          accountId: acct.account.id,
          inboxId: acct.inbox.id,
          sourceType: 'email',
          subject: 'Hello',
          contact: { email },
          message: { kind: 'incoming', text: 'Hi' },
        })
      ).conversation;
    const c1 = await open(a, 'one@x.test');
    const c2 = await open(a, 'two@x.test');
    const c3 = await open(a, 'three@x.test');
    await tagConversations({ accountId: a.account.id, actorId: null, ids: [c1.id, c2.id, c3.id], tagIds: [vip.id] });
    await tagConversations({ accountId: a.account.id, actorId: null, ids: [c1.id], tagIds: [spam.id] });
    await deleteConversations({ accountId: a.account.id, actorId: null, ids: [c3.id] });
    // B's tags and conversations never count for A.
    const bTag = await createTag({ accountId: b.account.id, actorId: null, name: 'VIP', color: 'yellow' });
    const bConv = await open(b, 'one@x.test');
    await tagConversations({ accountId: b.account.id, actorId: null, ids: [bConv.id], tagIds: [bTag.id] });

    const tags = await listTags({ accountId: a.account.id });
    expect(tags.map((t) => [t.name, t.conversationCount])).toEqual([
      ['Spam', 1],
      ['VIP', 2],
    ]);
    expect(await countTagConversations({ accountId: a.account.id })).toEqual({ [vip.id]: 2, [spam.id]: 1 });
    expect((await getTag({ accountId: a.account.id, id: vip.id }))?.conversationCount).toBe(2);

    const page = await app.request('/settings/tags', { domain: a.domain, cookie: a.ownerCookie });
    const vipRow = page.text.match(/<tr><td><a[^>]*href="\/settings\/tags\/\d+"[^>]*>VIP<\/a><\/td>.*?<\/tr>/)?.[0] ?? '';
    expect(vipRow).toContain('<td>2</td>');
    const filtered = await app.request('/settings/tags?q=vi', { domain: a.domain, cookie: a.ownerCookie });
    expect(filtered.text).toContain('>VIP</a>');
    expect(filtered.text).not.toContain('>Spam</a>');
    // Search is literal: % and _ match only themselves.
    expect((await listTags({ accountId: a.account.id, q: '%' })).length).toBe(0);

    // Deleting a tag removes it from its conversations.
    await deleteTag({ accountId: a.account.id, actorId: null, id: vip.id });
    const links = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.accountId, a.account.id));
    expect(links.map((l) => l.tagId)).toEqual([spam.id]);
  });
});

describe('canned responses', () => {
  it('validates name (at most 30) and message (at most 140) with the specification rules, keeping what was typed', async () => {
    const a = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/settings/canned-responses/new', { domain: a.domain, cookie: a.agentCookie, form: { intent: 'save', ...form } });
    const empty = await post({ name: '', message: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Name is not allowed to be empty');
    expect(empty.text).toContain('Message is not allowed to be empty');
    const long = await post({ name: 'N'.repeat(31), message: 'M'.repeat(141) });
    expect(long.status).toBe(400);
    expect(long.text).toContain('Length must be less than or equal to 30 characters');
    expect(long.text).toContain('Length must be less than or equal to 140 characters');
    expect(long.text).toContain(`value="${'N'.repeat(31)}"`);
    expect(long.text).toContain(`>${'M'.repeat(141)}</textarea>`);
    // Exactly at the limits is fine.
    const ok = await post({ name: 'N'.repeat(30), message: 'M'.repeat(140) });
    expect(ok.status).toBe(302);
    const dup = await post({ name: 'n'.repeat(30), message: 'other' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('A canned response with this name already exists');
    expect(await listCannedResponses({ accountId: a.account.id })).toHaveLength(1);
  });

  it('lists by search on the name or the message, and records events', async () => {
    const a = await setupAccount();
    const greet = await createCannedResponse({ accountId: a.account.id, actorId: a.owner.id, name: 'Greeting', message: 'Hello, how can I help?' });
    await createCannedResponse({ accountId: a.account.id, actorId: a.owner.id, name: 'Refund', message: 'Your refund is on its way.' });
    expect((await listCannedResponses({ accountId: a.account.id, q: 'help' })).map((c) => c.name)).toEqual(['Greeting']);
    expect((await listCannedResponses({ accountId: a.account.id, q: 'REF' })).map((c) => c.name)).toEqual(['Refund']);
    const page = await app.request('/settings/canned-responses?q=refund', { domain: a.domain, cookie: a.agentCookie });
    expect(page.text).toContain('>Refund</a>');
    expect(page.text).not.toContain('>Greeting</a>');
    const upd = await app.request(`/settings/canned-responses/${greet.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'save', name: 'Hi', message: 'Hi there' } });
    expect(upd.status).toBe(302);
    expect(await getCannedResponse({ accountId: a.account.id, id: greet.id })).toMatchObject({ name: 'Hi', message: 'Hi there' });
    const del = await app.request(`/settings/canned-responses/${greet.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(302);
    for (const type of ['canned_response_created', 'canned_response_updated', 'canned_response_deleted']) expect((await eventsOf(a.account.id, type)).length).toBeGreaterThan(0);
  });
});

describe('email templates', () => {
  it('validates, saves and renders the placeholders', async () => {
    const a = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/settings/email-templates/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...form } });
    const bad = await post({ name: 'X'.repeat(31), subject: 'S'.repeat(151), body: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be less than or equal to 30 characters');
    expect(bad.text).toContain('Length must be less than or equal to 150 characters');
    expect(bad.text).toContain('Body is not allowed to be empty');
    const ok = await post({ name: 'Welcome', subject: 'Hi {{firstName}}', body: 'Dear {{ firstName }} {{lastName}},\nwe will write to {{email}} at {{address}}. {{unknown}}' });
    expect(ok.status).toBe(302);
    const [tpl] = await listEmailTemplates({ accountId: a.account.id });
    expect(tpl.subject).toBe('Hi {{firstName}}');
    expect(renderTemplate(tpl.body, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.test', address: { streetAddress: '1 Main St', postalCode: '12345', locality: 'Springfield', country: 'US' } })).toBe(
      'Dear Ada Lovelace,\nwe will write to ada@x.test at 1 Main St, 12345 Springfield, US. {{unknown}}',
    );
    expect(renderTemplate('Hi {{firstName}}{{lastName}}!', null)).toBe('Hi !');
    expect((await listEmailTemplates({ accountId: a.account.id, q: 'firstname' })).length).toBe(1);
    const page = await app.request(`/settings/email-templates/${tpl.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.text).toContain('{{firstName}}, {{lastName}}, {{email}}, {{address}}');
    const dup = await post({ name: 'welcome', body: 'x' });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('An email template with this name already exists');
    // The agent role does not manage templates by default.
    const agentPost = await app.request('/settings/email-templates/new', { domain: a.domain, cookie: a.agentCookie, form: { intent: 'save', name: 'A', body: 'b' } });
    expect(agentPost.status).toBe(403);
  });
});

describe('contact form settings', () => {
  it('creates with the defaults of section 9, a unique code, and edits, toggles and deletes', async () => {
    const a = await setupAccount();
    const res = await app.request('/settings/contact-form/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...contactFormFields(a.inbox.id) } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/settings/contact-form');
    const [form] = await listContactForms({ accountId: a.account.id });
    expect(form).toMatchObject({ headerText: 'Talk to us', inboxId: a.inbox.id, isActive: true, allowFields: { phone: false, attachments: false, captcha: false } });
    expect(form.code).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const other = await createContactForm({ accountId: a.account.id, actorId: null, ...contactFormFields(a.inbox.id), allowPhone: true, allowAttachments: true, allowCaptcha: true });
    expect(other.code).not.toBe(form.code);

    const page = await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);
    const publicUrl = `http://${a.domain}.localhost:3000/contact/${form.code}`;
    expect(page.text).toContain(publicUrl);
    expect(page.text).toContain(`&lt;iframe src=&quot;${publicUrl}&quot;`);
    expect(page.text).toContain('Name, Email, Subject and Message are always on the form.');

    const upd = await app.request(`/settings/contact-form/${form.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'save', ...contactFormFields(a.inbox.id, { headerText: 'Write to us' }), allowPhone: 'on', allowCaptcha: 'on' },
    });
    expect(upd.status).toBe(302);
    const updated = await getContactForm({ accountId: a.account.id, id: form.id });
    expect(updated).toMatchObject({ headerText: 'Write to us', code: form.code, allowFields: { phone: true, attachments: false, captcha: true } });

    const off = await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'deactivate' } });
    expect(off.status).toBe(302);
    expect(off.headers.location).toBe(`/settings/contact-form/${form.id}`);
    expect((await getContactForm({ accountId: a.account.id, id: form.id }))?.isActive).toBe(false);
    await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'activate' } });
    expect((await getContactForm({ accountId: a.account.id, id: form.id }))?.isActive).toBe(true);
    // The toggle is a change like any other: only with the permission.
    const agentToggle = await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.agentCookie, form: { intent: 'deactivate' } });
    expect(agentToggle.status).toBe(403);

    const del = await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(302);
    expect(await getContactForm({ accountId: a.account.id, id: form.id })).toBeUndefined();
    expect((await eventsOf(a.account.id, 'contact_form_created')).length).toBe(2);
    expect((await eventsOf(a.account.id, 'contact_form_updated')).length).toBe(3);
    expect((await eventsOf(a.account.id, 'contact_form_deleted')).length).toBe(1);
  });

  it('validates with the messages of section 5 and refuses an inbox of another account', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/settings/contact-form/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...form } });
    const long = await post(contactFormFields(a.inbox.id, { headerText: 'H'.repeat(31), subHeaderText: 'S'.repeat(101), submitText: 'T'.repeat(101), submitMsg: 'M'.repeat(101) }));
    expect(long.status).toBe(400);
    expect(long.text).toContain('Length must be less than or equal to 30 characters');
    expect(long.text.match(/<p class="field-error" role="alert">Length must be less than or equal to 100 characters<\/p>/g)).toHaveLength(3);
    expect(long.text).toContain(`value="${'H'.repeat(31)}"`);
    const empty = await post({ headerText: '', subHeaderText: '', submitText: '', submitMsg: '', inboxId: '' });
    expect(empty.status).toBe(400);
    for (const msg of ['Header Text is not allowed to be empty', 'Sub Header Text is not allowed to be empty', 'Submit Text is not allowed to be empty', 'Submit Message is not allowed to be empty', 'Inbox must be specified']) {
      expect(empty.text).toContain(msg);
    }
    const foreign = await post(contactFormFields(b.inbox.id));
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('Inbox must be specified');
    const nonsense = await post(contactFormFields('99999999999'));
    expect(nonsense.status).toBe(400);
    const newWithoutName = await post(contactFormFields('new'));
    expect(newWithoutName.status).toBe(400);
    expect(newWithoutName.text).toContain('Inbox Name is not allowed to be empty');
    const taken = await post(contactFormFields('new', { newInboxName: 'support' }));
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('An inbox with this name already exists');
    expect(await listContactForms({ accountId: a.account.id })).toHaveLength(0);
    // Editing cannot move a form to B's inbox either.
    const form = await createContactForm({ accountId: a.account.id, actorId: null, ...contactFormFields(a.inbox.id), allowPhone: false, allowAttachments: false, allowCaptcha: false });
    const move = await app.request(`/settings/contact-form/${form.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...contactFormFields(b.inbox.id) } });
    expect(move.status).toBe(400);
    expect((await getContactForm({ accountId: a.account.id, id: form.id }))?.inboxId).toBe(a.inbox.id);
    await expect(setContactFormActive({ accountId: b.account.id, actorId: null, id: form.id, isActive: false })).resolves.toBeUndefined();
  });

  it('creates a contact-form inbox with the form when asked to', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const page = await app.request('/settings/contact-form/new', { domain: a.domain, cookie });
    // With no inbox yet, "Create a new inbox" is chosen and named.
    expect(page.text).toMatch(/<option value="new" selected="">Create a new inbox<\/option>/);
    expect(page.text).toContain('value="Contact Form"');
    const res = await app.request('/settings/contact-form/new', { domain: a.domain, cookie, form: { intent: 'save', ...contactFormFields('new', { newInboxName: 'Website' }) } });
    expect(res.status).toBe(302);
    const inboxes = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
    expect(inboxes).toMatchObject([{ name: 'Website', channelType: 'contact_form' }]);
    const [form] = await listContactForms({ accountId: a.account.id });
    expect(form.inboxId).toBe(inboxes[0].id);
  });
});
