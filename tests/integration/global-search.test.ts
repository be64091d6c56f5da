import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { globalSearch, GROUP_PAGE_SIZE, searchGroup, searchGroups } from '../../app/models/search/registry.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
let a: Awaited<ReturnType<typeof createTestAccount>>;
let b: Awaited<ReturnType<typeof createTestAccount>>;
let john: number;
let cookie: string;

async function addContacts(accountId: number, rows: { firstName: string; lastName: string; email: string | null }[]) {
  return getDb()
    .insert(schema.contacts)
    .values(rows.map((r) => ({ accountId, ...r })))
    .returning({ id: schema.contacts.id });
}

const hitsOf = async (accountId: number, q: string, group: string) => (await globalSearch({ accountId, q })).find((g) => g.group === group)?.hits ?? [];
const titles = async (accountId: number, q: string, group: string) => (await hitsOf(accountId, q, group)).map((h) => h.title);

beforeAll(async () => {
  app = await startTestApp();
  a = await createTestAccount();
  b = await createTestAccount();
  [{ id: john }] = await addContacts(a.account.id, [
    { firstName: 'John', lastName: 'Smith', email: 'john.smith@acme-widgets.test' },
    { firstName: 'Johanna', lastName: 'Berg', email: 'jberg@example.test' },
    { firstName: 'Maximilian', lastName: 'Featherstonehaugh', email: 'max@example.test' },
    { firstName: 'Priya', lastName: 'Natarajan', email: 'priya.n@zephyrcorp.test' },
    { firstName: '', lastName: '', email: 'nameless@example.test' },
  ]);
  // Many people with the same name, for the "more" link and the per-group page.
  await addContacts(
    a.account.id,
    Array.from({ length: 60 }, (_, i) => ({ firstName: 'Quentin', lastName: `Clone${i}`, email: `quentin${i}@example.test` })),
  );
  // Another account: people and companies with the same names must never show.
  await addContacts(b.account.id, [
    { firstName: 'John', lastName: 'Smith', email: 'john.smith@other.test' },
    { firstName: 'Ursula', lastName: 'Secretkeeper', email: 'ursula@other.test' },
  ]);
  await getDb()
    .insert(schema.companies)
    .values([
      { accountId: a.account.id, name: 'Northwind Traders', domain: 'northwind.test' },
      { accountId: a.account.id, name: 'Contoso Pharmaceuticals International', domain: 'contoso.test' },
      { accountId: b.account.id, name: 'Northwind Secret Branch', domain: 'secret.test' },
    ]);
  const inboxA = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email' });
  await openConversation({
    accountId: a.account.id,
    inboxId: inboxA.id,
    sourceType: 'email',
    subject: 'Where is my order',
    contact: { email: 'cara@example.test', name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'The tracking says the parcel reached Reykjavik yesterday' },
  });
  const inboxB = await createInbox({ accountId: b.account.id, actorId: b.owner.id, name: 'Support', channelType: 'email' });
  await openConversation({
    accountId: b.account.id,
    inboxId: inboxB.id,
    sourceType: 'email',
    subject: 'Reykjavik office lease',
    contact: { email: 'lease@other.test', name: 'Lars Lease' },
    message: { kind: 'incoming', text: 'About the Reykjavik lease' },
  });
  cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
});
afterAll(async () => {
  await app.close();
});

describe('global search: contacts', () => {
  it('finds a contact by full name, ranked first, linking to the contact', async () => {
    const hits = await hitsOf(a.account.id, 'John Smith', 'Contacts');
    expect(hits[0]).toMatchObject({ id: john, title: 'John Smith', subtitle: 'john.smith@acme-widgets.test', to: `/customers/${john}` });
  });

  it('finds by a partial name and by a fragment inside a name', async () => {
    expect(await titles(a.account.id, 'Johan', 'Contacts')).toContain('Johanna Berg');
    expect(await titles(a.account.id, 'feathers', 'Contacts')).toContain('Maximilian Featherstonehaugh');
    expect(await titles(a.account.id, 'stonehaugh', 'Contacts')).toContain('Maximilian Featherstonehaugh');
  });

  it('finds by a misspelt name (trigram similarity), best match first', async () => {
    expect((await titles(a.account.id, 'jonh', 'Contacts'))[0]).toBe('John Smith');
    expect((await titles(a.account.id, 'Jonh Smiht', 'Contacts'))[0]).toBe('John Smith');
    expect(await titles(a.account.id, 'Natarjan', 'Contacts')).toContain('Priya Natarajan');
    expect(await titles(a.account.id, 'Featherstonhaugh', 'Contacts')).toContain('Maximilian Featherstonehaugh');
  });

  it('finds by a fragment of the email, and shows a nameless contact by its email', async () => {
    expect(await titles(a.account.id, 'zephyrcorp', 'Contacts')).toEqual(['Priya Natarajan']);
    expect(await titles(a.account.id, 'acme-widg', 'Contacts')).toEqual(['John Smith']);
    expect(await titles(a.account.id, 'nameless', 'Contacts')).toEqual(['nameless@example.test']);
  });

  it('treats the characters of LIKE and tsquery as text', async () => {
    for (const q of ["%%%", "a'b & | !(", '___', ':*:*']) await expect(globalSearch({ accountId: a.account.id, q })).resolves.toBeDefined();
  });
});

describe('global search: companies and conversations', () => {
  it('finds companies by a fragment and by a misspelt name', async () => {
    const hits = await hitsOf(a.account.id, 'northw', 'Companies');
    expect(hits.map((h) => h.title)).toEqual(['Northwind Traders']);
    expect(hits[0].to).toMatch(/^\/customers\/companies\/\d+$/);
    expect(await titles(a.account.id, 'Contosso', 'Companies')).toContain('Contoso Pharmaceuticals International');
  });

  it('finds conversations by a word of a message and by the subject', async () => {
    expect(await titles(a.account.id, 'reykjavik', 'Conversations')).toEqual(['Where is my order']);
    expect(await titles(a.account.id, 'order', 'Conversations')).toEqual(['Where is my order']);
  });
});

describe('global search: groups, pages and tenancy', () => {
  it('returns groups with hits only, the registered groups in order, and "more" beyond the preview', async () => {
    expect(searchGroups().slice(0, 3)).toEqual(['Contacts', 'Conversations', 'Companies']);
    const groups = await globalSearch({ accountId: a.account.id, q: 'quentin' });
    expect(groups.map((g) => g.group)).toEqual(['Contacts']);
    expect(groups[0].hits).toHaveLength(10);
    expect(groups[0].more).toBe(true);
    expect((await globalSearch({ accountId: a.account.id, q: 'Priya' }))[0].more).toBe(false);
  });

  it('pages through one group with its total', async () => {
    const p1 = await searchGroup({ accountId: a.account.id, q: 'quentin', group: 'Contacts', page: 1 });
    const p2 = await searchGroup({ accountId: a.account.id, q: 'quentin', group: 'Contacts', page: 2 });
    expect(p1).toMatchObject({ total: 60, pageSize: GROUP_PAGE_SIZE });
    expect(p1!.hits).toHaveLength(50);
    expect(p2!.hits).toHaveLength(10);
    expect(new Set([...p1!.hits, ...p2!.hits].map((h) => h.id)).size).toBe(60);
    expect(await searchGroup({ accountId: a.account.id, q: 'quentin', group: 'Nope', page: 1 })).toBeNull();
  });

  it("never shows another account's contacts, companies or conversations", async () => {
    const smiths = await hitsOf(a.account.id, 'John Smith', 'Contacts');
    expect(smiths.map((h) => h.subtitle)).not.toContain('john.smith@other.test');
    expect(await globalSearch({ accountId: a.account.id, q: 'Secretkeeper' })).toEqual([]);
    expect(await globalSearch({ accountId: a.account.id, q: 'Secret Branch' })).toEqual([]);
    expect(await titles(a.account.id, 'lease', 'Conversations')).toEqual([]);
    expect((await searchGroup({ accountId: a.account.id, q: 'Ursula', group: 'Contacts', page: 1 }))!.total).toBe(0);
    // And the other way round.
    expect(await titles(b.account.id, 'Priya', 'Contacts')).toEqual([]);
    expect(await titles(b.account.id, 'Ursula', 'Contacts')).toEqual(['Ursula Secretkeeper']);
  });

  it('returns nothing under 3 characters', async () => {
    expect(await globalSearch({ accountId: a.account.id, q: 'Jo' })).toEqual([]);
    expect(await globalSearch({ accountId: a.account.id, q: '  Jo  ' })).toEqual([]);
    expect((await searchGroup({ accountId: a.account.id, q: 'Jo', group: 'Contacts', page: 1 }))!.hits).toEqual([]);
  });
});

describe('the results page', () => {
  it('lists groups with a "more" link, titles cut to 20 characters', async () => {
    const res = await app.request('/search?q=quentin', { domain: a.domain, cookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-testid="search-group-Contacts"');
    expect(res.text).toContain('href="/search?q=quentin&amp;group=Contacts"');
    const long = await app.request('/search?q=contoso', { domain: a.domain, cookie });
    expect(long.text).toContain('Contoso Pharmaceutic…');
  });

  it('shows one group page by page with the pager, 404 for an unknown group', async () => {
    const res = await app.request('/search?q=quentin&group=Contacts', { domain: a.domain, cookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('aria-label="Pagination"');
    expect((await app.request('/search?q=quentin&group=Contacts&page=2', { domain: a.domain, cookie })).text).toContain('aria-current="page">2<');
    expect((await app.request('/search?q=quentin&group=Nope', { domain: a.domain, cookie })).status).toBe(404);
  });

  it('says so under 3 characters, and needs a signed-in user', async () => {
    expect((await app.request('/search?q=jo', { domain: a.domain, cookie })).text).toContain('Type at least 3 characters.');
    const anon = await app.request('/search?q=john', { domain: a.domain });
    expect(anon.status).toBe(302);
  });
});
