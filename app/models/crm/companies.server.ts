import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { ContactAddress } from '../../../db/schema/contacts';
import { actorOf, emitEvent } from '../events/events.server';
import { tagsOfRecords } from './record-tags.server';
import { FieldInputError, likePattern } from '../productivity/shared.server';
import { getSegment, segmentWhere } from './segments.server';

export const COMPANY_SORT_COLUMNS = ['name', 'domain', 'country', 'created'] as const;
export type CompanySortColumn = (typeof COMPANY_SORT_COLUMNS)[number];
const PAGE_SIZE = 50;

const co = schema.companies;
const c = schema.contacts;

export type CompanyFilters = {
  q?: string | null;
  tag?: number | null;
  sort?: CompanySortColumn | null;
  dir?: 'asc' | 'desc';
  page?: number;
  pageSize?: number;
  segmentId?: number | null;
};

export async function companyListWhere(opts: { accountId: number; filters: CompanyFilters }) {
  const f = opts.filters;
  const q = f.q?.trim().slice(0, 100).toLowerCase();
  let segmentSql: SQL | undefined;
  if (f.segmentId) {
    const segment = await getSegment({ accountId: opts.accountId, id: f.segmentId, kind: 'company' });
    segmentSql = segment ? segmentWhere({ accountId: opts.accountId, segment }) : sql`false`;
  }
  return and(
    eq(co.accountId, opts.accountId),
    // lower(name) like '%q%' is answered by the trigram index on lower(companies.name).
    q ? sql`(lower(${co.name}) like ${likePattern(q)} or ${co.domain} like ${likePattern(q)})` : undefined,
    f.tag
      ? sql`exists (select 1 from ${schema.companyTags} kt where kt.company_id = ${co.id} and kt.account_id = ${opts.accountId} and kt.tag_id = ${f.tag})`
      : undefined,
    segmentSql,
  );
}

function orderFor(sort: CompanySortColumn | null | undefined, dir: 'asc' | 'desc' = 'asc') {
  const d = (x: SQL | typeof co.id) => (dir === 'desc' ? desc(x) : asc(x));
  switch (sort) {
    case 'name':
      return [d(sql`lower(${co.name})`), d(co.id)];
    case 'domain':
      return [d(sql`${co.domain}`), d(co.id)];
    case 'country':
      return [d(sql`${co.country}`), d(co.id)];
    case 'created':
      return [d(co.id)];
    default:
      return [desc(co.id)];
  }
}

/** One page of the account's companies, filtered, segmented and sorted in SQL. */
export async function listCompanies(opts: { accountId: number; filters: CompanyFilters }) {
  const f = opts.filters;
  const pageSize = f.pageSize ?? PAGE_SIZE;
  const page = Math.max(1, f.page ?? 1);
  const where = await companyListWhere(opts);
  const db = getDb();
  const rows = await db
    .select({ id: co.id, name: co.name, domain: co.domain, url: co.url, country: co.country, isFavourite: co.isFavourite, createdAt: co.createdAt })
    .from(co)
    .where(where)
    .orderBy(...orderFor(f.sort, f.dir))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(co).where(where);
  const tags = await tagsOfRecords('company', opts.accountId, rows.map((r) => r.id));
  return { rows: rows.map((r) => ({ ...r, tags: tags.get(r.id) ?? [] })), total, page, pageSize };
}

/** Company options for selects (segment conditions): the first 200 by name. */
export async function listCompanyOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: co.id, name: co.name })
    .from(co)
    .where(eq(co.accountId, opts.accountId))
    .orderBy(sql`lower(${co.name})`, asc(co.id))
    .limit(200);
}

/** A company of the account with its tags, notes and (first 100) contacts; undefined when not its own. */
export async function getCompany(opts: { accountId: number; id: number }) {
  const db = getDb();
  const [row] = await db
    .select()
    .from(co)
    .where(and(eq(co.accountId, opts.accountId), eq(co.id, opts.id)));
  if (!row) return undefined;
  const [tags, notes, contacts, [{ contactCount }]] = await Promise.all([
    tagsOfRecords('company', opts.accountId, [row.id]),
    db
      .select({ id: schema.crmNotes.id, body: schema.crmNotes.body, createdAt: schema.crmNotes.createdAt, firstName: schema.users.firstName, lastName: schema.users.lastName })
      .from(schema.crmNotes)
      .leftJoin(schema.users, eq(schema.users.id, schema.crmNotes.userId))
      .where(and(eq(schema.crmNotes.accountId, opts.accountId), eq(schema.crmNotes.companyId, row.id)))
      .orderBy(desc(schema.crmNotes.id))
      .limit(100),
    db
      .select({ id: c.id, firstName: c.firstName, lastName: c.lastName, email: c.email })
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.companyId, row.id)))
      .orderBy(asc(c.id))
      .limit(100),
    db
      .select({ contactCount: sql<number>`count(*)::int` })
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.companyId, row.id))),
  ]);
  return { ...row, tags: tags.get(row.id) ?? [], notes, contacts, contactCount };
}

export type CompanyWrite = {
  name: string;
  domain?: string | null;
  url?: string | null;
  description?: string | null;
  phone?: string | null;
  address?: ContactAddress;
  bindWithDomain?: boolean;
  tagIds?: number[];
};

function cleanAddress(a: ContactAddress | undefined): ContactAddress {
  const out: ContactAddress = {};
  for (const k of ['country', 'locality', 'streetAddress', 'postalCode'] as const) if (a?.[k]) out[k] = a[k];
  return out;
}

/**
 * Links every contact of the account whose email domain is the company's domain, in one UPDATE.
 * Returns how many contacts were linked.
 */
export async function bindContactsByDomain(tx: Tx, opts: { accountId: number; companyId: number; domain: string }) {
  const rows = await tx
    .update(c)
    .set({ companyId: opts.companyId, updatedAt: new Date() })
    .where(
      and(
        eq(c.accountId, opts.accountId),
        sql`${c.email} is not null`,
        sql`lower(split_part(${c.email}, '@', 2)) = ${opts.domain.toLowerCase()}`,
        sql`${c.companyId} is distinct from ${opts.companyId}`,
      ),
    )
    .returning({ id: c.id });
  return rows.length;
}

/** The company bound to an email's domain (bindWithDomain on), for a new or updated contact. */
export async function companyForEmailDomain(tx: Tx, opts: { accountId: number; email: string }) {
  const domain = opts.email.split('@')[1]?.toLowerCase();
  if (!domain) return null;
  const [row] = await tx
    .select({ id: co.id })
    .from(co)
    .where(and(eq(co.accountId, opts.accountId), eq(co.domain, domain), eq(co.bindWithDomain, true)))
    .orderBy(asc(co.id))
    .limit(1);
  return row?.id ?? null;
}

/** The account's company of that name (any case), created (company_created) when there is none. */
export async function ensureCompanyByName(tx: Tx, opts: { accountId: number; actorId: number | null; name: string; domain?: string | null }) {
  const [existing] = await tx
    .select({ id: co.id })
    .from(co)
    .where(and(eq(co.accountId, opts.accountId), sql`lower(${co.name}) = ${opts.name.toLowerCase()}`))
    .orderBy(asc(co.id))
    .limit(1);
  if (existing) return existing.id;
  const [row] = await tx
    .insert(co)
    .values({ accountId: opts.accountId, name: opts.name, domain: opts.domain || null })
    .returning();
  await emitEvent(tx, { accountId: opts.accountId, type: 'company_created', subjectType: 'company', subjectId: row.id, payload: { name: row.name, domain: row.domain }, actor: actorOf(opts.actorId) });
  return row.id;
}

async function ownTagIds(tx: Tx, accountId: number, tagIds: number[]) {
  if (!tagIds.length) return [];
  const rows = await tx
    .select({ id: schema.tags.id })
    .from(schema.tags)
    .where(and(eq(schema.tags.accountId, accountId), inArray(schema.tags.id, [...new Set(tagIds)])));
  return rows.map((r) => r.id);
}

async function writeTags(tx: Tx, accountId: number, companyId: number, tagIds: number[]) {
  const own = await ownTagIds(tx, accountId, tagIds);
  await tx.delete(schema.companyTags).where(and(eq(schema.companyTags.accountId, accountId), eq(schema.companyTags.companyId, companyId)));
  if (own.length) await tx.insert(schema.companyTags).values(own.map((tagId) => ({ companyId, tagId, accountId })));
}

function values(input: CompanyWrite) {
  const address = cleanAddress(input.address);
  return {
    name: input.name.trim(),
    domain: input.domain || null,
    url: input.url || null,
    description: input.description || null,
    phone: input.phone || null,
    address,
    country: address.country ?? null,
    bindWithDomain: Boolean(input.bindWithDomain && input.domain),
  };
}

export async function createCompany(opts: { accountId: number; actorId: number | null; input: CompanyWrite }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(co)
      .values({ accountId: opts.accountId, ...values(opts.input) })
      .returning();
    if (opts.input.tagIds?.length) await writeTags(tx, opts.accountId, row.id, opts.input.tagIds);
    const linked = row.bindWithDomain && row.domain ? await bindContactsByDomain(tx, { accountId: opts.accountId, companyId: row.id, domain: row.domain }) : 0;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'company_created',
      subjectType: 'company',
      subjectId: row.id,
      payload: { name: row.name, domain: row.domain, bindWithDomain: row.bindWithDomain, linkedContacts: linked },
      actor: actorOf(opts.actorId),
    });
    return { ...row, linkedContacts: linked };
  });
}

/** Undefined when the account has no such company. Turning bindWithDomain on links the matching contacts. */
export async function updateCompany(opts: { accountId: number; actorId: number | null; id: number; input: CompanyWrite }) {
  return getDb().transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(co)
      .where(and(eq(co.accountId, opts.accountId), eq(co.id, opts.id)))
      .for('update');
    if (!before) return undefined;
    const [row] = await tx
      .update(co)
      .set({ ...values(opts.input), updatedAt: new Date() })
      .where(and(eq(co.accountId, opts.accountId), eq(co.id, before.id)))
      .returning();
    if (opts.input.tagIds) await writeTags(tx, opts.accountId, row.id, opts.input.tagIds);
    const linked = row.bindWithDomain && row.domain ? await bindContactsByDomain(tx, { accountId: opts.accountId, companyId: row.id, domain: row.domain }) : 0;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'company_updated',
      subjectType: 'company',
      subjectId: row.id,
      payload: { name: row.name, domain: row.domain, bindWithDomain: row.bindWithDomain, linkedContacts: linked, previousName: before.name },
      actor: actorOf(opts.actorId),
    });
    return { ...row, linkedContacts: linked };
  });
}

export async function deleteCompanies(opts: { accountId: number; actorId: number | null; ids: number[] }) {
  if (!opts.ids.length) return 0;
  return getDb().transaction(async (tx) => {
    const rows = await tx
      .delete(co)
      .where(and(eq(co.accountId, opts.accountId), inArray(co.id, [...new Set(opts.ids)])))
      .returning({ id: co.id, name: co.name });
    for (const r of rows) {
      await emitEvent(tx, { accountId: opts.accountId, type: 'company_deleted', subjectType: 'company', subjectId: r.id, payload: { name: r.name }, actor: actorOf(opts.actorId) });
    }
    return rows.length;
  });
}

export async function setCompanyFavourite(opts: { accountId: number; actorId: number | null; id: number; isFavourite: boolean }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(co)
      .set({ isFavourite: opts.isFavourite, updatedAt: new Date() })
      .where(and(eq(co.accountId, opts.accountId), eq(co.id, opts.id)))
      .returning({ id: co.id });
    if (!row) return undefined;
    await emitEvent(tx, { accountId: opts.accountId, type: 'company_updated', subjectType: 'company', subjectId: row.id, payload: { isFavourite: opts.isFavourite }, actor: actorOf(opts.actorId) });
    return row;
  });
}

/** Adds a tag to the account's companies among the ids. */
export async function tagCompanies(opts: { accountId: number; actorId: number | null; ids: number[]; tagId: number }) {
  return getDb().transaction(async (tx) => {
    const [tag] = await tx.select({ id: schema.tags.id }).from(schema.tags).where(and(eq(schema.tags.accountId, opts.accountId), eq(schema.tags.id, opts.tagId)));
    if (!tag) throw new FieldInputError('Choose a tag from the list', 'tagId');
    const ids = [...new Set(opts.ids)];
    if (!ids.length) return 0;
    const added = await tx.execute<{ company_id: number }>(sql`
      insert into ${schema.companyTags} (company_id, tag_id, account_id)
      select ${co.id}, ${opts.tagId}, ${opts.accountId} from ${co}
      where ${co.accountId} = ${opts.accountId} and ${co.id} in ${ids}
      on conflict do nothing
      returning company_id`);
    for (const r of added) {
      await emitEvent(tx, { accountId: opts.accountId, type: 'company_updated', subjectType: 'company', subjectId: r.company_id, payload: { tagAdded: opts.tagId }, actor: actorOf(opts.actorId) });
    }
    return added.length;
  });
}
