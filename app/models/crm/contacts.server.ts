import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { ContactAddress } from '../../../db/schema/contacts';
import { actorFields, actorOf, emitEvent, withTx, type Via } from '../events/events.server';
import { tagsOfRecords, type RecordTag } from './record-tags.server';
import { FieldInputError, isUniqueViolation, likePattern } from '../productivity/shared.server';
import { ensureCompanyByName, companyForEmailDomain } from './companies.server';
import { segmentWhere, getSegment } from './segments.server';

export const CRM_PAGE_SIZE = 50;
/**
 * Sortable columns, each served by an index at a million contacts. Company is not among them: ordering by a
 * joined company name means sorting every contact (about 0.9 s at 1M); it would need the name stored on the contact.
 */
export const CONTACT_SORT_COLUMNS = ['name', 'email', 'country', 'interaction', 'created'] as const;
export const COUNT_CAP = 10_000;
export type ContactSortColumn = (typeof CONTACT_SORT_COLUMNS)[number];
export const EMAIL_TAKEN_MESSAGE = 'A contact with this email already exists';

const c = schema.contacts;
const co = schema.companies;

export type ContactFilters = {
  q?: string | null;
  tag?: number | null;
  sort?: ContactSortColumn | null;
  dir?: 'asc' | 'desc';
  page?: number;
  pageSize?: number;
  segmentId?: number | null;
};

/** The text filter: names and email through their trigram indexes, plus the stored tsvector. */
export function contactTextWhere(q: string): SQL {
  const p = likePattern(q.toLowerCase());
  return sql`(lower(${c.firstName} || ' ' || ${c.lastName}) like ${p} or lower(coalesce(${c.email}, '')) like ${p} or ${c.search} @@ plainto_tsquery('simple', ${q}))`;
}

/** Everything a contact list filters by, as one WHERE scoped by the account (a segment adds its own SQL). */
export async function contactListWhere(opts: { accountId: number; filters: ContactFilters }) {
  const f = opts.filters;
  const q = f.q?.trim().slice(0, 100);
  let segmentSql: SQL | undefined;
  if (f.segmentId) {
    const segment = await getSegment({ accountId: opts.accountId, id: f.segmentId, kind: 'contact' });
    segmentSql = segment ? segmentWhere({ accountId: opts.accountId, segment }) : sql`false`;
  }
  return and(
    eq(c.accountId, opts.accountId),
    q ? contactTextWhere(q) : undefined,
    f.tag
      ? sql`exists (select 1 from ${schema.contactTags} ct where ct.contact_id = ${c.id} and ct.account_id = ${opts.accountId} and ct.tag_id = ${f.tag})`
      : undefined,
    segmentSql,
  );
}

function orderFor(sort: ContactSortColumn | null | undefined, dir: 'asc' | 'desc' = 'asc') {
  const d = (x: SQL | typeof c.id) => (dir === 'desc' ? desc(x) : asc(x));
  switch (sort) {
    case 'name':
      return [d(sql`lower(${c.firstName})`), d(sql`lower(${c.lastName})`), d(c.id)];
    case 'email':
      return [d(sql`lower(${c.email})`), d(c.id)];
    case 'country':
      return [d(sql`${c.country}`), d(c.id)];
    case 'interaction':
      // Matches contacts_account_interaction_idx (desc nulls last), scanned forwards or backwards.
      return [dir === 'desc' ? sql`${c.lastInteractionAt} desc nulls last` : sql`${c.lastInteractionAt} asc nulls first`, d(c.id)];
    case 'created':
      return [d(c.id)];
    default:
      return [desc(c.id)];
  }
}

/** One page of the account's contacts: every filter, the segment and the sort run in SQL; never all rows. */
export async function listContacts(opts: { accountId: number; filters: ContactFilters }) {
  const f = opts.filters;
  const pageSize = f.pageSize ?? CRM_PAGE_SIZE;
  const page = Math.max(1, f.page ?? 1);
  const where = await contactListWhere(opts);
  const db = getDb();
  const rowsRead = db
    .select({
      id: c.id,
      firstName: c.firstName,
      lastName: c.lastName,
      email: c.email,
      phone: c.phone,
      country: c.country,
      isFavourite: c.isFavourite,
      lastInteractionAt: c.lastInteractionAt,
      createdAt: c.createdAt,
      companyId: c.companyId,
      companyName: co.name,
      // The row's tags in the same statement, by name (as tagsOfRecords gives them; ADR 136).
      tags: sql<RecordTag[]>`coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name), t.id)
          from ${schema.contactTags} ct join ${schema.tags} t on t.id = ct.tag_id and t.account_id = ct.account_id
         where ct.account_id = ${opts.accountId} and ct.contact_id = ${c.id}), '[]'::json)`,
    })
    .from(c)
    .leftJoin(co, and(eq(co.id, c.companyId), eq(co.accountId, opts.accountId)))
    .where(where)
    .orderBy(...orderFor(f.sort, f.dir))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  // The count stops at COUNT_CAP ("10,000+"), filtered or not: the pager never shows more, and counting a million
  // contacts exactly cost 200 ms a page (issue 23); an index walk of 10,001 entries costs a few.
  const counted = db
    .select({ one: sql`1` })
    .from(c)
    .where(where)
    .limit(COUNT_CAP + 1)
    .as('capped');
  // The page with its tags and its capped total at once (two round trips in one wait).
  const [rows, [{ total }]] = await Promise.all([rowsRead, db.select({ total: sql<number>`count(*)::int` }).from(counted)]);
  return { rows, total: Math.min(total, COUNT_CAP), totalCapped: total > COUNT_CAP, page, pageSize };
}

/** A contact of the account with its company, tags, notes, conversations and the timeline of its events. */
export async function getContact(opts: { accountId: number; id: number }) {
  const db = getDb();
  const [row] = await db
    .select({ contact: c, companyName: co.name, companyDomain: co.domain })
    .from(c)
    .leftJoin(co, and(eq(co.id, c.companyId), eq(co.accountId, opts.accountId)))
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)));
  if (!row) return undefined;
  const id = row.contact.id;
  const [tags, notes, conversations, timeline] = await Promise.all([
    tagsOfRecords('contact', opts.accountId, [id]),
    db
      .select({
        id: schema.crmNotes.id,
        body: schema.crmNotes.body,
        createdAt: schema.crmNotes.createdAt,
        firstName: schema.users.firstName,
        lastName: schema.users.lastName,
      })
      .from(schema.crmNotes)
      .leftJoin(schema.users, eq(schema.users.id, schema.crmNotes.userId))
      .where(and(eq(schema.crmNotes.accountId, opts.accountId), eq(schema.crmNotes.contactId, id)))
      .orderBy(desc(schema.crmNotes.id))
      .limit(100),
    db
      .select({
        id: schema.conversations.id,
        subject: schema.conversations.subject,
        status: schema.conversations.status,
        lastMessageAt: schema.conversations.lastMessageAt,
      })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.contactId, id), sql`${schema.conversations.deletedAt} is null`))
      .orderBy(desc(schema.conversations.lastMessageAt))
      .limit(50),
    contactTimeline({ accountId: opts.accountId, id }),
  ]);
  return {
    ...row.contact,
    company: row.contact.companyId ? { id: row.contact.companyId, name: row.companyName ?? '', domain: row.companyDomain } : null,
    tags: tags.get(id) ?? [],
    notes,
    conversations,
    timeline,
  };
}

/** The contact's domain events: about it (subject) or naming it (payload.contactId), newest first. */
export async function contactTimeline(opts: { accountId: number; id: number; limit?: number }) {
  const e = schema.domainEvents;
  return getDb()
    .select({ id: e.id, type: e.type, occurredAt: e.occurredAt, actorType: e.actorType, payload: e.payload })
    .from(e)
    .where(
      and(
        eq(e.accountId, opts.accountId),
        sql`((${e.subjectType} = 'contact' and ${e.subjectId} = ${String(opts.id)}) or ${e.payload}->>'contactId' = ${String(opts.id)})`,
      ),
    )
    .orderBy(desc(e.id))
    .limit(opts.limit ?? 30);
}

export type ContactWrite = {
  firstName: string;
  lastName?: string;
  email?: string | null;
  phone?: string | null;
  title?: string | null;
  website?: string | null;
  companyName?: string | null;
  companyDomain?: string | null;
  address?: ContactAddress;
  assigneeId?: number | null;
  tagIds?: number[];
};

function cleanAddress(a: ContactAddress | undefined): ContactAddress {
  const out: ContactAddress = {};
  for (const k of ['country', 'locality', 'streetAddress', 'postalCode'] as const) if (a?.[k]) out[k] = a[k];
  return out;
}

async function checkEmailFree(tx: Tx, accountId: number, email: string | null | undefined, exceptId?: number) {
  if (!email) return;
  const [clash] = await tx
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.accountId, accountId), sql`lower(${c.email}) = ${email.toLowerCase()}`, exceptId ? sql`${c.id} <> ${exceptId}` : undefined));
  if (clash) throw new FieldInputError(EMAIL_TAKEN_MESSAGE, 'email');
}

async function checkAssignee(tx: Tx, accountId: number, assigneeId: number | null | undefined) {
  if (!assigneeId) return;
  const [u] = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, assigneeId)));
  if (!u) throw new FieldInputError('Choose a user from the list', 'assigneeId');
}

/** The account's own tag ids among those given (another account's ids are dropped, never linked). */
async function ownTagIds(tx: Tx, accountId: number, tagIds: number[]) {
  if (!tagIds.length) return [];
  const rows = await tx
    .select({ id: schema.tags.id })
    .from(schema.tags)
    .where(and(eq(schema.tags.accountId, accountId), inArray(schema.tags.id, [...new Set(tagIds)])));
  return rows.map((r) => r.id);
}

/** The company a contact belongs to: the named one (created when new), else one bound to its email's domain. */
async function resolveCompany(
  tx: Tx,
  opts: { accountId: number; actorId: number | null; companyName?: string | null; companyDomain?: string | null; email?: string | null },
) {
  if (opts.companyName?.trim())
    return ensureCompanyByName(tx, { accountId: opts.accountId, actorId: opts.actorId, name: opts.companyName.trim(), domain: opts.companyDomain ?? null });
  return opts.email ? companyForEmailDomain(tx, { accountId: opts.accountId, email: opts.email }) : null;
}

/** Creates a contact (contact_created in the same transaction). An email already used by the account is bad input. */
export async function createContact(opts: { accountId: number; actorId: number | null; input: ContactWrite; source?: string }) {
  const input = opts.input;
  const email = input.email?.trim().toLowerCase() || null;
  try {
    return await getDb().transaction(async (tx) => {
      await checkEmailFree(tx, opts.accountId, email);
      await checkAssignee(tx, opts.accountId, input.assigneeId);
      const companyId = await resolveCompany(tx, { ...opts, ...input, email });
      const address = cleanAddress(input.address);
      const [row] = await tx
        .insert(c)
        .values({
          accountId: opts.accountId,
          firstName: input.firstName.trim(),
          lastName: input.lastName?.trim() ?? '',
          email,
          phone: input.phone || null,
          title: input.title || null,
          website: input.website || null,
          address,
          country: address.country ?? null,
          companyId,
          assigneeId: input.assigneeId ?? null,
          source: opts.source ?? 'crm',
        })
        .returning();
      const tagIds = await ownTagIds(tx, opts.accountId, input.tagIds ?? []);
      if (tagIds.length) await tx.insert(schema.contactTags).values(tagIds.map((tagId) => ({ contactId: row.id, tagId, accountId: opts.accountId })));
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'contact_created',
        subjectType: 'contact',
        subjectId: row.id,
        payload: { contactId: row.id, email, phone: row.phone, source: row.source, companyId, country: row.country ?? null },
        actor: actorOf(opts.actorId),
      });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new FieldInputError(EMAIL_TAKEN_MESSAGE, 'email');
    throw err;
  }
}

/** Updates a contact of the account (contact_updated); undefined when it has no such contact. */
export async function updateContact(opts: { accountId: number; actorId: number | null; id: number; input: ContactWrite }) {
  const input = opts.input;
  try {
    return await getDb().transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(c)
        .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)))
        .for('update');
      if (!before) return undefined;
      const email = input.email === undefined ? before.email : input.email?.trim().toLowerCase() || null;
      if (email !== before.email) await checkEmailFree(tx, opts.accountId, email, before.id);
      await checkAssignee(tx, opts.accountId, input.assigneeId);
      const companyId = await resolveCompany(tx, { ...opts, ...input, email });
      const address = cleanAddress(input.address);
      const [row] = await tx
        .update(c)
        .set({
          firstName: input.firstName.trim(),
          lastName: input.lastName?.trim() ?? '',
          email,
          phone: input.phone || null,
          title: input.title || null,
          website: input.website || null,
          address,
          country: address.country ?? null,
          companyId,
          assigneeId: input.assigneeId ?? null,
          updatedAt: new Date(),
        })
        .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
        .returning();
      if (input.tagIds) {
        const tagIds = await ownTagIds(tx, opts.accountId, input.tagIds);
        await tx.delete(schema.contactTags).where(and(eq(schema.contactTags.accountId, opts.accountId), eq(schema.contactTags.contactId, row.id)));
        if (tagIds.length) await tx.insert(schema.contactTags).values(tagIds.map((tagId) => ({ contactId: row.id, tagId, accountId: opts.accountId })));
      }
      const changed = (['firstName', 'lastName', 'email', 'phone', 'title', 'website', 'companyId', 'assigneeId', 'country'] as const).filter(
        (k) => (before[k] ?? null) !== (row[k] ?? null),
      );
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'contact_updated',
        subjectType: 'contact',
        subjectId: row.id,
        payload: { contactId: row.id, changed, tagIds: input.tagIds ?? undefined },
        actor: actorOf(opts.actorId),
      });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new FieldInputError(EMAIL_TAKEN_MESSAGE, 'email');
    throw err;
  }
}

/** Deletes the account's contacts among the ids (contact_deleted for each); returns how many went. */
export async function deleteContacts(opts: { accountId: number; actorId: number | null; ids: number[] }) {
  if (!opts.ids.length) return 0;
  return getDb().transaction(async (tx) => {
    const rows = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), inArray(c.id, [...new Set(opts.ids)])))
      .returning({ id: c.id, email: c.email });
    for (const r of rows) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'contact_deleted',
        subjectType: 'contact',
        subjectId: r.id,
        payload: { contactId: r.id, email: r.email },
        actor: actorOf(opts.actorId),
      });
    }
    return rows.length;
  });
}

async function requireOwnTag(tx: Tx, accountId: number, tagId: number) {
  const [tag] = await tx
    .select({ id: schema.tags.id })
    .from(schema.tags)
    .where(and(eq(schema.tags.accountId, accountId), eq(schema.tags.id, tagId)));
  if (!tag) throw new FieldInputError('Choose a tag from the list', 'tagId');
}

/** Adds a tag to the account's contacts among the ids (contact_updated for each one that gained it). */
export async function tagContacts(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    tagId: number;
  },
) {
  return withTx(opts.tx, async (tx) => {
    await requireOwnTag(tx, opts.accountId, opts.tagId);
    const ids = [...new Set(opts.ids)];
    if (!ids.length) return 0;
    const added = await tx.execute<{ contact_id: number }>(sql`
      insert into ${schema.contactTags} (contact_id, tag_id, account_id)
      select ${c.id}, ${opts.tagId}, ${opts.accountId} from ${c}
      where ${c.accountId} = ${opts.accountId} and ${c.id} in ${ids}
      on conflict do nothing
      returning contact_id`);
    for (const r of added) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'contact_updated',
        subjectType: 'contact',
        subjectId: r.contact_id,
        payload: { contactId: r.contact_id, tagAdded: opts.tagId },
        ...actorFields(opts),
      });
    }
    return added.length;
  });
}

export async function untagContacts(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    tagId: number;
  },
) {
  return withTx(opts.tx, async (tx) => {
    await requireOwnTag(tx, opts.accountId, opts.tagId);
    if (!opts.ids.length) return 0;
    const removed = await tx
      .delete(schema.contactTags)
      .where(and(eq(schema.contactTags.accountId, opts.accountId), eq(schema.contactTags.tagId, opts.tagId), inArray(schema.contactTags.contactId, opts.ids)))
      .returning({ contactId: schema.contactTags.contactId });
    for (const r of removed) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'contact_updated',
        subjectType: 'contact',
        subjectId: r.contactId,
        payload: { contactId: r.contactId, tagRemoved: opts.tagId },
        ...actorFields(opts),
      });
    }
    return removed.length;
  });
}

/**
 * Sets some fields of a contact (what automations add: website, title, company, owner) and records
 * contact_updated with the changed fields; undefined when the account has no such contact.
 */
export async function setContactFields(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    id: number;
    fields: {
      website?: string;
      title?: string;
      companyId?: number;
      assigneeId?: number;
    };
  },
) {
  return withTx(opts.tx, async (tx) => {
    const [before] = await tx
      .select()
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)))
      .for('update');
    if (!before) return undefined;
    if (opts.fields.companyId !== undefined) {
      const [company] = await tx
        .select({ id: schema.companies.id })
        .from(schema.companies)
        .where(and(eq(schema.companies.accountId, opts.accountId), eq(schema.companies.id, opts.fields.companyId)));
      if (!company) throw new FieldInputError('Company must be specified', 'companyId');
    }
    if (opts.fields.assigneeId !== undefined) await checkAssignee(tx, opts.accountId, opts.fields.assigneeId);
    const changed = (Object.keys(opts.fields) as (keyof typeof opts.fields)[]).filter((k) => opts.fields[k] !== undefined && before[k] !== opts.fields[k]);
    if (changed.length === 0) return before;
    const [row] = await tx
      .update(c)
      .set({ ...opts.fields, updatedAt: new Date() })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'contact_updated',
      subjectType: 'contact',
      subjectId: row.id,
      payload: { contactId: row.id, changed },
      ...actorFields(opts),
    });
    return row;
  });
}

export async function setContactFavourite(opts: { accountId: number; actorId: number | null; id: number; isFavourite: boolean }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(c)
      .set({ isFavourite: opts.isFavourite, updatedAt: new Date() })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)))
      .returning({ id: c.id });
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'contact_updated',
      subjectType: 'contact',
      subjectId: row.id,
      payload: { contactId: row.id, isFavourite: opts.isFavourite },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}

/** The account's users, for the assignee (owner) select. */
export async function listAccountUsers(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
    .from(schema.users)
    .where(eq(schema.users.accountId, opts.accountId))
    .orderBy(sql`lower(${schema.users.firstName})`, asc(schema.users.id));
}
