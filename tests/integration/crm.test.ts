import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, getSql, schema } from '../../db/client';
import { createCompany, getCompany, listCompanies, updateCompany } from '../../app/models/crm/companies.server';
import {
  contactTextWhere,
  createContact,
  deleteContacts,
  getContact,
  listContacts,
  setContactFavourite,
  tagContacts,
  untagContacts,
  updateContact,
} from '../../app/models/crm/contacts.server';
import { addNote } from '../../app/models/crm/notes.server';
import { countConditionMatches, createSegment, getSegment, listSegments } from '../../app/models/crm/segments.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { FieldInputError } from '../../app/models/productivity/shared.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setupAccount() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Agnes' });
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  return {
    ...a,
    agent,
    viewer,
    ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    viewerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
  };
}

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);
}

const who = (a: { account: { id: number }; owner: { id: number } }) => ({ accountId: a.account.id, actorId: a.owner.id });

describe('CRM models', () => {
  it('creates, lists, filters, tags and deletes contacts in SQL, with events', async () => {
    const a = await setupAccount();
    const ada = await createContact({ ...who(a), input: { firstName: 'Ada', lastName: 'Lovelace', email: 'ADA@analytical.test', phone: '12345' } });
    const bob = await createContact({ ...who(a), input: { firstName: 'Bob', lastName: 'Builder', email: 'bob@build.test', companyName: 'Acme' } });
    expect(ada.email).toBe('ada@analytical.test');
    await expect(createContact({ ...who(a), input: { firstName: 'X', lastName: 'Y', email: 'ada@analytical.test' } })).rejects.toBeInstanceOf(FieldInputError);

    const all = await listContacts({ accountId: a.account.id, filters: {} });
    expect(all.total).toBe(2);
    expect(all.rows.find((r) => r.id === bob.id)?.companyName).toBe('Acme');
    expect((await listContacts({ accountId: a.account.id, filters: { q: 'lovel' } })).rows.map((r) => r.id)).toEqual([ada.id]);
    expect((await listContacts({ accountId: a.account.id, filters: { q: 'build.test' } })).rows.map((r) => r.id)).toEqual([bob.id]);
    expect((await listContacts({ accountId: a.account.id, filters: { sort: 'name', dir: 'desc' } })).rows.map((r) => r.id)).toEqual([bob.id, ada.id]);

    const tag = await createTag({ ...who(a), name: 'VIP', color: 'red' });
    expect(await tagContacts({ ...who(a), ids: [ada.id, bob.id], tagId: tag.id })).toBe(2);
    expect((await listContacts({ accountId: a.account.id, filters: { tag: tag.id } })).total).toBe(2);
    expect(await untagContacts({ ...who(a), ids: [bob.id], tagId: tag.id })).toBe(1);
    expect((await listContacts({ accountId: a.account.id, filters: { tag: tag.id } })).rows.map((r) => r.id)).toEqual([ada.id]);

    await setContactFavourite({ ...who(a), id: ada.id, isFavourite: true });
    await addNote({ ...who(a), target: { contactId: ada.id }, body: 'Called about invoices' });
    const detail = await getContact({ accountId: a.account.id, id: ada.id });
    expect(detail?.isFavourite).toBe(true);
    expect(detail?.notes.map((n) => n.body)).toEqual(['Called about invoices']);
    expect(detail?.tags.map((t) => t.name)).toEqual(['VIP']);
    expect(detail?.timeline.map((e) => e.type)).toContain('contact_created');

    const updated = await updateContact({
      ...who(a),
      id: ada.id,
      input: { firstName: 'Ada', lastName: 'King', address: { country: 'GB', locality: 'London' }, tagIds: [] },
    });
    expect(updated?.country).toBe('GB');
    expect(updated?.address).toEqual({ country: 'GB', locality: 'London' });

    expect(await deleteContacts({ ...who(a), ids: [bob.id] })).toBe(1);
    expect((await eventsOf(a.account.id, 'contact_created')).length).toBeGreaterThanOrEqual(2);
    expect((await eventsOf(a.account.id, 'contact_updated')).length).toBeGreaterThanOrEqual(3);
    expect(await eventsOf(a.account.id, 'contact_deleted')).toHaveLength(1);
    expect((await eventsOf(a.account.id, 'company_created')).length).toBe(1);
  });

  it('never touches another account: lists, tags, deletes and notes are scoped', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const theirs = await createContact({ ...who(b), input: { firstName: 'Their', lastName: 'Contact', email: 'their@b.test' } });
    const theirTag = await createTag({ ...who(b), name: 'Theirs', color: 'blue' });
    const mine = await createContact({ ...who(a), input: { firstName: 'Mine', lastName: 'Contact', email: 'mine@a.test', tagIds: [theirTag.id] } });
    expect((await listContacts({ accountId: a.account.id, filters: {} })).rows.map((r) => r.id)).toEqual([mine.id]);
    expect(await getContact({ accountId: a.account.id, id: theirs.id })).toBeUndefined();
    expect(await deleteContacts({ ...who(a), ids: [theirs.id] })).toBe(0);
    await expect(tagContacts({ ...who(a), ids: [mine.id], tagId: theirTag.id })).rejects.toBeInstanceOf(FieldInputError);
    const myTag = await createTag({ ...who(a), name: 'Mine', color: 'blue' });
    expect(await tagContacts({ ...who(a), ids: [theirs.id], tagId: myTag.id })).toBe(0);
    expect(await addNote({ ...who(a), target: { contactId: theirs.id }, body: 'Sneaky' })).toBeUndefined();
    expect(await updateContact({ ...who(a), id: theirs.id, input: { firstName: 'Hacked' } })).toBeUndefined();
    expect((await getContact({ accountId: a.account.id, id: mine.id }))?.tags).toEqual([]);
    expect((await getContact({ accountId: b.account.id, id: theirs.id }))?.firstName).toBe('Their');
    expect(await getDb().select().from(schema.contactTags).where(eq(schema.contactTags.contactId, theirs.id))).toEqual([]);
  });

  it('binds contacts to a company by email domain in one update, and later contacts too', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const one = await createContact({ ...who(a), input: { firstName: 'One', lastName: 'A', email: 'one@globex.test' } });
    const two = await createContact({ ...who(a), input: { firstName: 'Two', lastName: 'A', email: 'two@GLOBEX.test' } });
    const other = await createContact({ ...who(a), input: { firstName: 'Other', lastName: 'A', email: 'x@initech.test' } });
    const foreign = await createContact({ ...who(b), input: { firstName: 'Foreign', lastName: 'B', email: 'f@globex.test' } });
    const globex = await createCompany({ ...who(a), input: { name: 'Globex', domain: 'globex.test', bindWithDomain: true } });
    expect(globex.linkedContacts).toBe(2);
    const detail = await getCompany({ accountId: a.account.id, id: globex.id });
    expect(detail?.contacts.map((c) => c.id).sort()).toEqual([one.id, two.id].sort());
    expect((await getContact({ accountId: a.account.id, id: other.id }))?.companyId).toBeNull();
    expect((await getContact({ accountId: b.account.id, id: foreign.id }))?.companyId).toBeNull();
    const later = await createContact({ ...who(a), input: { firstName: 'Later', lastName: 'A', email: 'later@globex.test' } });
    expect(later.companyId).toBe(globex.id);
    const moved = await updateContact({ ...who(a), id: other.id, input: { firstName: 'Other', email: 'other@globex.test' } });
    expect(moved?.companyId).toBe(globex.id);
    const initech = await createCompany({ ...who(a), input: { name: 'Initech', domain: 'initech.test' } });
    expect(initech.linkedContacts).toBe(0);
    const after = await updateCompany({ ...who(a), id: initech.id, input: { name: 'Initech', domain: 'initech.test', bindWithDomain: true } });
    expect(after?.linkedContacts).toBe(0);
    expect((await listCompanies({ accountId: a.account.id, filters: { q: 'glob' } })).rows.map((r) => r.id)).toEqual([globex.id]);
    expect(await updateCompany({ ...who(b), id: globex.id, input: { name: 'Stolen' } })).toBeUndefined();
  });

  it('applies each dynamic condition in SQL, and static members, scoped by account', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const acme = await createCompany({ ...who(a), input: { name: 'Acme' } });
    const tag = await createTag({ ...who(a), name: 'Gold', color: 'yellow' });
    const c1 = await createContact({ ...who(a), input: { firstName: 'C1', lastName: 'x', email: 'c1@x.test', assigneeId: a.agent.id, address: { country: 'FR' } } });
    const c2 = await createContact({ ...who(a), input: { firstName: 'C2', lastName: 'x', email: 'c2@x.test', companyName: 'Acme', tagIds: [tag.id] } });
    const c3 = await createContact({ ...who(a), input: { firstName: 'C3', lastName: 'x', email: 'c3@x.test' } });
    await setContactFavourite({ ...who(a), id: c3.id, isFavourite: true });
    await createContact({ ...who(b), input: { firstName: 'B', lastName: 'x', email: 'b@x.test', address: { country: 'FR' } } });

    const members = async (conditions: Record<string, unknown>) => {
      const seg = await createSegment({ ...who(a), kind: 'contact', name: 'S', isStatic: false, conditions, memberIds: [] });
      return (await listContacts({ accountId: a.account.id, filters: { segmentId: seg.id } })).rows.map((r) => r.id).sort();
    };
    expect(await members({ assigneeId: a.agent.id })).toEqual([c1.id]);
    expect(await members({ tag: tag.id })).toEqual([c2.id]);
    expect(await members({ company: acme.id })).toEqual([c2.id]);
    expect(await members({ country: 'FR' })).toEqual([c1.id]);
    expect(await members({ isFavourite: 'true' })).toEqual([c3.id]);
    expect(await members({ isFavourite: 'false' })).toEqual([c1.id, c2.id].sort());
    expect(await members({})).toEqual([c1.id, c2.id, c3.id].sort());
    expect(await countConditionMatches({ accountId: a.account.id, kind: 'contact', conditions: { country: 'FR' } })).toBe(1);

    // Membership follows a tag change.
    await tagContacts({ ...who(a), ids: [c3.id], tagId: tag.id });
    expect(await members({ tag: tag.id })).toEqual([c2.id, c3.id].sort());

    // Another account's ids are refused in conditions and dropped from static members.
    const foreignTag = await createTag({ ...who(b), name: 'Foreign', color: 'blue' });
    await expect(createSegment({ ...who(a), kind: 'contact', name: 'Bad', isStatic: false, conditions: { tag: foreignTag.id }, memberIds: [] })).rejects.toBeInstanceOf(
      FieldInputError,
    );
    const theirs = await createContact({ ...who(b), input: { firstName: 'T', lastName: 'x', email: 't@x.test' } });
    const stat = await createSegment({ ...who(a), kind: 'contact', name: 'Static', isStatic: true, conditions: {}, memberIds: [c1.id, c3.id, theirs.id] });
    expect((await getSegment({ accountId: a.account.id, id: stat.id }))?.memberIds.sort()).toEqual([c1.id, c3.id].sort());
    expect((await listContacts({ accountId: a.account.id, filters: { segmentId: stat.id } })).total).toBe(2);
    expect(await getSegment({ accountId: b.account.id, id: stat.id })).toBeUndefined();
    expect((await listContacts({ accountId: b.account.id, filters: { segmentId: stat.id } })).total).toBe(0);

    // Company segments: tag, country, favourite.
    const tagged = await createCompany({ ...who(a), input: { name: 'Tagged', address: { country: 'DE' }, tagIds: [tag.id] } });
    const cseg = await createSegment({ ...who(a), kind: 'company', name: 'DE', isStatic: false, conditions: { country: 'DE', tag: tag.id }, memberIds: [] });
    expect((await listCompanies({ accountId: a.account.id, filters: { segmentId: cseg.id } })).rows.map((r) => r.id)).toEqual([tagged.id]);
    expect((await listSegments({ accountId: a.account.id, kind: 'company' })).map((s) => s.name)).toEqual(['DE']);
    expect((await eventsOf(a.account.id, 'segment_created')).length).toBeGreaterThanOrEqual(9);
  });
});

describe('CRM text filter', () => {
  it('is answered by the trigram and tsvector indexes, not by reading the table', async () => {
    const a = await setupAccount();
    // The text condition the list uses matches the indexes' expressions (at a million rows the planner picks them).
    const query = getDb().select({ id: schema.contacts.id }).from(schema.contacts).where(contactTextWhere('lovel')).toSQL();
    const sql = getSql();
    // Enough rows of one account that its account_id index says nothing; a text filter must use the text indexes.
    await sql`insert into contacts (account_id, first_name, last_name, email)
      select ${a.account.id}, 'First' || g, 'Last' || g, 'person' || g || '@example.test' from generate_series(1, 20000) g`;
    await sql`analyze contacts`;
    // The planner would read 20,000 rows straight through; forbidding that shows the text indexes can answer alone.
    const plan = await sql.begin(async (tx) => {
      await tx.unsafe('set local enable_seqscan = off');
      return tx.unsafe(`explain ${query.sql}`, query.params as never[]);
    });
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('contacts_name_trgm_idx');
    expect(text).toContain('contacts_email_trgm_idx');
    expect(text).toContain('contacts_search_idx');
    expect(text).not.toContain('Seq Scan');
  });
});

describe('CRM routes', () => {
  it('validates the first contact form with the specification messages, then creates', async () => {
    const a = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/customers/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'create', ...form } });
    let res = await post({});
    expect(res.status).toBe(400);
    expect(res.text).toContain('First Name is required');
    expect(res.text).toContain('Last Name is required');
    expect(res.text).toContain('Email is required');
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ada@x.test', phone: '12ab' });
    expect(res.text).toContain('Enter a valid phone number');
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ada@x.test', phone: '12345678901234567' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Length must be less than or equal to 16 characters');
    expect(res.text).toContain('value="12345678901234567"');
    // With its country code, the international rule: a plus and 4 to 14 digits (15 here).
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ada@x.test', phone: '+123456789012345' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Phone number must have 14 digits.');
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ada@x.test', companyDomain: 'not a domain' });
    expect(res.text).toContain('Invalid Domain');
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ada@x.test', phone: '1234567890123456', companyName: 'Acme', companyDomain: 'acme.test' });
    expect(res.status).toBe(302);
    const id = Number(res.headers.location?.split('/').pop());
    const contact = await getContact({ accountId: a.account.id, id });
    expect(contact?.company?.name).toBe('Acme');
    res = await post({ firstName: 'Ada', lastName: 'L', email: 'ADA@x.test' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('A contact with this email already exists');
  });

  it('accepts phone numbers as people type them, stores one form (E.164) and shows it formatted (ADR 036)', async () => {
    const a = await setupAccount();
    const post = (form: Record<string, string>) => app.request('/customers/new', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'create', lastName: 'L', ...form } });
    const stored = async (res: { status: number; headers: Record<string, unknown> }) => {
      expect(res.status).toBe(302);
      return (await getContact({ accountId: a.account.id, id: Number(String(res.headers.location).split('/').pop()) }))!;
    };
    const berlin = await stored(await post({ firstName: 'Bea', email: 'bea@x.test', phone: '+49 30 1234567' }));
    expect(berlin.phone).toBe('+49301234567');
    expect((await stored(await post({ firstName: 'Bob', email: 'bob@x.test', phone: '0049 (30) 123-4567' }))).phone).toBe('+49301234567');
    expect((await stored(await post({ firstName: 'Uma', email: 'uma@x.test', phone: '+1 (212) 555-1234' }))).phone).toBe('+12125551234');
    // A national number cannot be placed in a country: its digits are kept.
    expect((await stored(await post({ firstName: 'Nia', email: 'nia@x.test', phone: '(030) 123-4567' }))).phone).toBe('0301234567');
    // Not a phone number at all, or too few digits: the specification's messages.
    let res = await post({ firstName: 'Zed', email: 'zed@x.test', phone: 'call me' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter a valid phone number');
    res = await post({ firstName: 'Zed', email: 'zed@x.test', phone: '123' });
    expect(res.text).toContain('Length must be at least 4 characters');
    // With a country code, section 5's international rule and its message (a plus and 4 to 14 digits).
    res = await post({ firstName: 'Zed', email: 'zed@x.test', phone: '+49 1' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Phone number must have 14 digits.');
    // Shown formatted on the contact's page.
    const page = await app.request(`/customers/${berlin.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.text).toContain('+49 30 1234567');
  });

  it('validates the second contact form, saves address, tags and notes, and lists with filters', async () => {
    const a = await setupAccount();
    const contact = await createContact({ ...who(a), input: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.test' } });
    const tag = await createTag({ ...who(a), name: 'Lead', color: 'green' });
    const save = (form: Record<string, string | string[]>) =>
      app.request(`/customers/${contact.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', firstName: 'Ada', ...form } });
    let res = await save({ firstName: '' });
    expect(res.text).toContain('First Name is required');
    res = await save({ website: 'x' });
    expect(res.text).toContain('Length must be at least 2 characters');
    res = await save({ website: 'not a uri' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Website should have a valid uri');
    res = await save({ website: `https://example.com/${'a'.repeat(200)}` });
    expect(res.text).toContain('Length must be less than or equal to 200 characters');
    res = await save({ companyName: 'A' });
    expect(res.text).toContain('Length must be at least 2 characters');
    res = await save({ companyName: 'A'.repeat(21) });
    expect(res.text).toContain('Length must be less than or equal to 20 characters');
    res = await save({ phone: '123' });
    expect(res.text).toContain('Length must be at least 4 characters');
    res = await save({ country: 'Atlantis' });
    expect(res.text).toContain('Choose a country from the list');
    res = await save({ lastName: '', website: 'https://ada.test', companyName: 'Engines', country: 'GB', locality: 'London', tagIds: [String(tag.id)] });
    expect(res.status).toBe(302);
    const saved = await getContact({ accountId: a.account.id, id: contact.id });
    expect(saved).toMatchObject({ lastName: '', website: 'https://ada.test', country: 'GB', address: { country: 'GB', locality: 'London' } });
    expect(saved?.company?.name).toBe('Engines');
    expect(saved?.tags.map((t) => t.id)).toEqual([tag.id]);

    res = await app.request(`/customers/${contact.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'note', body: 'x' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Length must be at least 2 characters');
    res = await app.request(`/customers/${contact.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'note', body: 'Prefers email' } });
    expect(res.status).toBe(302);
    res = await app.request(`/customers/${contact.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Prefers email');
    expect(res.text).toContain('Note added');

    res = await app.request('/customers?q=ada%40x', { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).toContain('ada@x.test');
    res = await app.request('/customers?q=nobody', { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).not.toContain('ada@x.test');
    res = await app.request(`/customers?tag=${tag.id}&sort=name&dir=desc`, { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).toContain('ada@x.test');
    res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'unknown' } });
    expect(res.status).toBe(400);
    res = await app.request(`/customers/${contact.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'unknown' } });
    expect(res.status).toBe(400);
  });

  it('bulk tags and bulk deletes with comma-joined ids, only the account own rows', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const c1 = await createContact({ ...who(a), input: { firstName: 'One', lastName: 'x', email: 'one@x.test' } });
    const c2 = await createContact({ ...who(a), input: { firstName: 'Two', lastName: 'x', email: 'two@x.test' } });
    const theirs = await createContact({ ...who(b), input: { firstName: 'Their', lastName: 'x', email: 'their@x.test' } });
    const tag = await createTag({ ...who(a), name: 'Bulk', color: 'blue' });
    const theirTag = await createTag({ ...who(b), name: 'TheirTag', color: 'blue' });
    let res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'tag', tagId: String(tag.id), ids: [String(c1.id), String(c2.id), String(theirs.id)] } });
    expect(res.status).toBe(302);
    expect((await listContacts({ accountId: a.account.id, filters: { tag: tag.id } })).total).toBe(2);
    expect((await getContact({ accountId: b.account.id, id: theirs.id }))?.tags).toEqual([]);
    res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'tag', tagId: String(theirTag.id), ids: String(c1.id) } });
    expect(res.status).toBe(400);
    res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete', ids: String(theirs.id) } });
    expect(res.status).toBe(404);
    expect(await getContact({ accountId: b.account.id, id: theirs.id })).toBeDefined();
    res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete', ids: `${c1.id},${c2.id},${theirs.id}` } });
    expect(res.status).toBe(302);
    expect((await listContacts({ accountId: a.account.id, filters: {} })).total).toBe(0);
    expect(await getContact({ accountId: b.account.id, id: theirs.id })).toBeDefined();
    res = await app.request('/customers?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(res.status).toBe(400);
  });

  it('answers 404 for another account rows by URL and leaves them unchanged', async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const theirs = await createContact({ ...who(b), input: { firstName: 'Their', lastName: 'x', email: 'their@x.test' } });
    const theirCompany = await createCompany({ ...who(b), input: { name: 'TheirCo' } });
    const theirSegment = await createSegment({ ...who(b), kind: 'contact', name: 'Theirs', isStatic: false, conditions: {}, memberIds: [] });
    const theirCompanySegment = await createSegment({ ...who(b), kind: 'company', name: 'TheirsCo', isStatic: false, conditions: {}, memberIds: [] });
    const opts = { domain: a.domain, cookie: a.ownerCookie };
    for (const path of [
      `/customers/${theirs.id}`,
      `/customers/companies/${theirCompany.id}`,
      `/customers/segment/${theirSegment.id}`,
      `/customers/companies/segment/${theirCompanySegment.id}`,
      `/customers/segments/${theirSegment.id}`,
      `/customers/segment/${theirCompanySegment.id}`,
    ]) {
      expect((await app.request(path, opts)).status, path).toBe(404);
    }
    expect((await app.request(`/customers/${theirs.id}`, { ...opts, form: { intent: 'save', firstName: 'Hacked' } })).status).toBe(404);
    expect((await app.request(`/customers/${theirs.id}`, { ...opts, form: { intent: 'note', body: 'Hacked note' } })).status).toBe(404);
    expect((await app.request(`/customers/${theirs.id}`, { ...opts, form: { intent: 'delete' } })).status).toBe(404);
    expect((await app.request(`/customers/companies/${theirCompany.id}`, { ...opts, form: { intent: 'save', name: 'Hacked' } })).status).toBe(404);
    expect((await app.request(`/customers/companies/${theirCompany.id}`, { ...opts, form: { intent: 'note', body: 'Hacked note' } })).status).toBe(404);
    expect((await app.request(`/customers/companies/${theirCompany.id}`, { ...opts, form: { intent: 'delete' } })).status).toBe(404);
    expect((await app.request(`/customers/segment/${theirSegment.id}`, { ...opts, form: { intent: 'delete-segment' } })).status).toBe(404);
    expect((await app.request(`/customers/segments/${theirSegment.id}`, { ...opts, form: { intent: 'save', name: 'Hacked', type: 'dynamic' } })).status).toBe(404);
    expect((await getContact({ accountId: b.account.id, id: theirs.id }))?.firstName).toBe('Their');
    expect((await getContact({ accountId: b.account.id, id: theirs.id }))?.notes).toEqual([]);
    expect((await getCompany({ accountId: b.account.id, id: theirCompany.id }))?.name).toBe('TheirCo');
    expect((await getSegment({ accountId: b.account.id, id: theirSegment.id }))?.name).toBe('Theirs');
    // A dynamic segment cannot point at another account's company, nor a static one hold its contacts.
    let res = await app.request('/customers/segments/new?kind=contact', { ...opts, form: { intent: 'save', name: 'Bad', type: 'dynamic', company: String(theirCompany.id) } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Choose a company from the list');
    res = await app.request('/customers/segments/new?kind=contact', { ...opts, form: { intent: 'save', name: 'Static', type: 'static', memberIds: String(theirs.id) } });
    expect(res.status).toBe(302);
    const segId = Number(res.headers.location?.split('/').pop());
    expect((await getSegment({ accountId: a.account.id, id: segId }))?.memberIds).toEqual([]);
  });

  it('validates the company form, binds contacts by domain and adds notes', async () => {
    const a = await setupAccount();
    const contact = await createContact({ ...who(a), input: { firstName: 'Wendy', lastName: 'W', email: 'wendy@wayne.test' } });
    const post = (path: string, form: Record<string, string>) => app.request(path, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', ...form } });
    let res = await post('/customers/companies/new', {});
    expect(res.status).toBe(400);
    expect(res.text).toContain('Name is required');
    res = await post('/customers/companies/new', { name: 'Wayne', domain: 'not a domain' });
    expect(res.text).toContain('Invalid Domain');
    res = await post('/customers/companies/new', { name: 'Wayne', description: 'x' });
    expect(res.text).toContain('Length must be at least 2 characters');
    res = await post('/customers/companies/new', { name: 'Wayne', description: 'x'.repeat(161) });
    expect(res.text).toContain('Length must be less than or equal to 160 characters');
    res = await post('/customers/companies/new', { name: 'Wayne', url: 'nope' });
    expect(res.text).toContain('Url should have a valid domain');
    res = await post('/customers/companies/new', { name: 'Wayne', domain: 'wayne.test', url: 'https://wayne.test', description: 'Gotham', bindWithDomain: 'on' });
    expect(res.status).toBe(302);
    const companyId = Number(res.headers.location?.split('/').pop());
    expect((await getContact({ accountId: a.account.id, id: contact.id }))?.companyId).toBe(companyId);
    res = await app.request(`/customers/companies/${companyId}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'note', body: 'y' } });
    expect(res.text).toContain('Length must be at least 2 characters');
    res = await app.request(`/customers/companies/${companyId}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'note', body: 'Big account' } });
    expect(res.status).toBe(302);
    res = await app.request(`/customers/companies/${companyId}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).toContain('Big account');
    expect(res.text).toContain('wendy@wayne.test');
    expect((await eventsOf(a.account.id, 'company_created')).length).toBe(1);
  });

  it('runs the two-step segment dialog over plain posts', async () => {
    const a = await setupAccount();
    await createContact({ ...who(a), input: { firstName: 'Fr', lastName: 'x', email: 'fr@x.test', address: { country: 'FR' } } });
    await createContact({ ...who(a), input: { firstName: 'De', lastName: 'x', email: 'de@x.test', address: { country: 'DE' } } });
    const post = (form: Record<string, string | string[]>, path = '/customers/segments/new?kind=contact') => app.request(path, { domain: a.domain, cookie: a.ownerCookie, form });
    let res = await post({ intent: 'next', name: '', type: 'dynamic' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Name is required');
    res = await post({ intent: 'next', name: 'x'.repeat(21), type: 'dynamic' });
    expect(res.text).toContain('Length must be less than or equal to 20 characters');
    res = await post({ intent: 'next', name: '  French  ', type: 'dynamic' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Step <!-- -->2');
    expect(res.text).toContain('Filters apply only if at least one condition is non-empty; Reset Filter clears them.');
    expect(res.text).toContain('name="name" value="French"');
    res = await post({ intent: 'preview', name: 'French', type: 'dynamic', country: 'FR' });
    expect(res.text).toMatch(/Matching <!-- -->contacts<!-- -->: <strong>1<\/strong>/);
    res = await post({ intent: 'reset', name: 'French', type: 'dynamic', country: 'FR' });
    expect(res.text).toMatch(/Matching <!-- -->contacts<!-- -->: <strong>2<\/strong>/);
    res = await post({ intent: 'save', name: 'French', type: 'dynamic', country: 'FR' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(/^\/customers\/segment\/\d+$/);
    const segId = Number(res.headers.location?.split('/').pop());
    res = await app.request(`/customers/segment/${segId}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).toContain('fr@x.test');
    expect(res.text).not.toContain('de@x.test');
    // Edit reopens at step 1 with the saved data.
    res = await app.request(`/customers/segments/${segId}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(res.text).toContain('Step <!-- -->1');
    expect(res.text).toContain('value="French"');
    expect(res.text).toContain('name="country" value="FR"');
    res = await post({ intent: 'save', name: 'Germans', type: 'dynamic', country: 'DE' }, `/customers/segments/${segId}`);
    expect(res.status).toBe(302);
    expect((await getSegment({ accountId: a.account.id, id: segId }))?.conditions).toEqual({ country: 'DE' });
    expect((await eventsOf(a.account.id, 'segment_updated')).length).toBe(1);
    res = await app.request(`/customers/segment/${segId}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete-segment' } });
    expect(res.status).toBe(302);
    expect(await getSegment({ accountId: a.account.id, id: segId })).toBeUndefined();
    expect((await eventsOf(a.account.id, 'segment_deleted')).length).toBe(1);
  });

  it('enforces manage_contacts on every post and the customerList plan feature on segments', async () => {
    const a = await setupAccount();
    const contact = await createContact({ ...who(a), input: { firstName: 'Ro', lastName: 'x', email: 'ro@x.test' } });
    const company = await createCompany({ ...who(a), input: { name: 'ReadOnly' } });
    const seg = await createSegment({ ...who(a), kind: 'contact', name: 'Seg', isStatic: false, conditions: {}, memberIds: [] });
    const v = { domain: a.domain, cookie: a.viewerCookie };
    expect((await app.request('/customers', v)).status).toBe(200);
    expect((await app.request(`/customers/${contact.id}`, v)).status).toBe(200);
    expect((await app.request(`/customers/segment/${seg.id}`, v)).status).toBe(200);
    const companySeg = await createSegment({ ...who(a), kind: 'company', name: 'CoSeg', isStatic: true, conditions: {}, memberIds: [company.id] });
    const coPage = await app.request(`/customers/companies/segment/${companySeg.id}`, v);
    expect(coPage.status).toBe(200);
    expect(coPage.text).toContain('ReadOnly');
    expect((await app.request(`/customers/companies/${company.id}`, v)).status).toBe(200);
    expect((await app.request('/customers/meetings', v)).text).toContain('No meetings yet');
    for (const [path, form] of [
      ['/customers/new', { intent: 'create', firstName: 'A', lastName: 'B', email: 'ab@x.test' }],
      [`/customers/${contact.id}`, { intent: 'save', firstName: 'Hacked' }],
      [`/customers/${contact.id}`, { intent: 'note', body: 'Hacked' }],
      ['/customers?index', { intent: 'delete', ids: String(contact.id) }],
      ['/customers/companies/new', { intent: 'save', name: 'X' }],
      [`/customers/companies/${company.id}`, { intent: 'delete' }],
      ['/customers/segments/new?kind=contact', { intent: 'save', name: 'X', type: 'dynamic' }],
      [`/customers/segment/${seg.id}`, { intent: 'delete-segment' }],
    ] as const) {
      expect((await app.request(path, { ...v, form })).status, path).toBe(403);
    }
    expect((await getContact({ accountId: a.account.id, id: contact.id }))?.firstName).toBe('Ro');
    expect(await getSegment({ accountId: a.account.id, id: seg.id })).toBeDefined();

    const [starter] = await getDb().select().from(schema.plans).where(eq(schema.plans.key, 'starter'));
    await getDb().update(schema.accounts).set({ planId: starter.id }).where(eq(schema.accounts.id, a.account.id));
    const o = { domain: a.domain, cookie: a.ownerCookie };
    let res = await app.request(`/customers/segment/${seg.id}`, o);
    expect(res.status).toBe(403);
    expect(res.text).toContain('Your current plan does not support this feature. Please contact your account administrator.');
    expect((await app.request('/customers/segments/new?kind=contact', o)).status).toBe(403);
    expect((await app.request('/customers/segments/new?kind=contact', { ...o, form: { intent: 'save', name: 'X', type: 'dynamic' } })).status).toBe(403);
    res = await app.request('/customers', o);
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-denied="feature"');
  });
});

describe('contacts the inbox creates', () => {
  it('join a company that binds their email domain', async () => {
    const { findOrCreateContact } = await import('../../app/models/contacts/contacts.server');
    const a = await createTestAccount();
    const company = await createCompany({ accountId: a.account.id, actorId: a.owner.id, input: { name: 'Globex', domain: 'globex.test', bindWithDomain: true } });
    const { contact } = await getDb().transaction((tx) => findOrCreateContact(tx, { accountId: a.account.id, email: 'hank@globex.test', name: 'Hank Scorpio', source: 'email' }));
    expect(contact.companyId).toBe(company.id);
  });
});
