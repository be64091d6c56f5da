import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import type { SegmentConditions } from '../../../db/schema/contacts';
import { emitEvent } from '../events/events.server';
import { FieldInputError } from '../productivity/shared.server';

export type SegmentKind = 'contact' | 'company';
export type Segment = typeof schema.segments.$inferSelect;

const c = schema.contacts;
const co = schema.companies;
const s = schema.segments;

/** Keeps only the conditions a kind knows, dropping empty ones (section 4: filters apply only if one is non-empty). */
export function cleanConditions(kind: SegmentKind, raw: SegmentConditions): SegmentConditions {
  const out: SegmentConditions = {};
  if (raw.tag) out.tag = raw.tag;
  if (raw.country) out.country = raw.country;
  if (raw.isFavourite === 'true' || raw.isFavourite === 'false') out.isFavourite = raw.isFavourite;
  if (kind === 'contact') {
    if (raw.assigneeId) out.assigneeId = raw.assigneeId;
    if (raw.company) out.company = raw.company;
  }
  return out;
}

/** A dynamic segment's conditions as a WHERE on the contacts or companies table (undefined: no condition set). */
export function conditionsWhere(opts: { accountId: number; kind: SegmentKind; conditions: SegmentConditions }): SQL | undefined {
  const cond = cleanConditions(opts.kind, opts.conditions);
  const parts: SQL[] = [];
  if (opts.kind === 'contact') {
    if (cond.assigneeId) parts.push(sql`${c.assigneeId} = ${cond.assigneeId}`);
    if (cond.company) parts.push(sql`${c.companyId} = ${cond.company}`);
    if (cond.country) parts.push(sql`${c.country} = ${cond.country}`);
    if (cond.isFavourite) parts.push(sql`${c.isFavourite} = ${cond.isFavourite === 'true'}`);
    if (cond.tag)
      parts.push(
        sql`exists (select 1 from ${schema.contactTags} ct where ct.contact_id = ${c.id} and ct.account_id = ${opts.accountId} and ct.tag_id = ${cond.tag})`,
      );
  } else {
    if (cond.country) parts.push(sql`${co.country} = ${cond.country}`);
    if (cond.isFavourite) parts.push(sql`${co.isFavourite} = ${cond.isFavourite === 'true'}`);
    if (cond.tag)
      parts.push(
        sql`exists (select 1 from ${schema.companyTags} kt where kt.company_id = ${co.id} and kt.account_id = ${opts.accountId} and kt.tag_id = ${cond.tag})`,
      );
  }
  return parts.length ? and(...parts) : undefined;
}

/**
 * The one place a segment becomes SQL: listContacts and listCompanies (and exports, campaigns, workflows) add this
 * to their WHERE, so a segment page is the normal list filtered in the database. Static segments read
 * segment_members; dynamic ones their conditions.
 */
export function segmentWhere(opts: { accountId: number; segment: Pick<Segment, 'id' | 'kind' | 'isStatic' | 'conditions'> }): SQL | undefined {
  const { segment, accountId } = opts;
  const idCol = segment.kind === 'contact' ? c.id : co.id;
  if (segment.isStatic) {
    return sql`${idCol} in (select sm.member_id from ${schema.segmentMembers} sm where sm.segment_id = ${segment.id} and sm.account_id = ${accountId})`;
  }
  return conditionsWhere({ accountId, kind: segment.kind, conditions: segment.conditions });
}

export async function listSegments(opts: { accountId: number; kind: SegmentKind }, db: DbOrTx = getDb()) {
  return db
    .select({ id: s.id, name: s.name, isStatic: s.isStatic, kind: s.kind })
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.kind, opts.kind)))
    .orderBy(sql`lower(${s.name})`, asc(s.id));
}

/** One segment of the account (of the given kind when asked), with its static member ids; undefined when not its own. */
export async function getSegment(opts: { accountId: number; id: number; kind?: SegmentKind }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(s)
    .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id), opts.kind ? eq(s.kind, opts.kind) : undefined));
  if (!row) return undefined;
  const members = row.isStatic
    ? (
        await db
          .select({ id: schema.segmentMembers.memberId })
          .from(schema.segmentMembers)
          .where(and(eq(schema.segmentMembers.segmentId, row.id), eq(schema.segmentMembers.accountId, opts.accountId)))
      ).map((m) => m.id)
    : [];
  return { ...row, memberIds: members };
}

/** How many rows a set of conditions matches right now (the dialog's live preview), counted in SQL. */
export async function countConditionMatches(opts: { accountId: number; kind: SegmentKind; conditions: SegmentConditions }) {
  const table = opts.kind === 'contact' ? c : co;
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(table)
    .where(and(eq(table.accountId, opts.accountId), conditionsWhere(opts)));
  return row.n;
}

export type SegmentWrite = {
  accountId: number;
  actorId: number | null;
  kind: SegmentKind;
  name: string;
  isStatic: boolean;
  conditions: SegmentConditions;
  memberIds: number[];
};

/** Ids named in conditions must be the account's own: another account's tag, company or user is bad input. */
async function checkConditionIds(tx: Tx, accountId: number, kind: SegmentKind, cond: SegmentConditions) {
  if (cond.tag) {
    const [t] = await tx.select({ id: schema.tags.id }).from(schema.tags).where(and(eq(schema.tags.accountId, accountId), eq(schema.tags.id, cond.tag)));
    if (!t) throw new FieldInputError('Choose a tag from the list', 'tag');
  }
  if (kind === 'contact' && cond.company) {
    const [k] = await tx.select({ id: co.id }).from(co).where(and(eq(co.accountId, accountId), eq(co.id, cond.company)));
    if (!k) throw new FieldInputError('Choose a company from the list', 'company');
  }
  if (kind === 'contact' && cond.assigneeId) {
    const [u] = await tx
      .select({ id: schema.users.id })
      .from(schema.users)
      .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, cond.assigneeId)));
    if (!u) throw new FieldInputError('Choose a user from the list', 'assigneeId');
  }
}

/** Replaces a static segment's members with the chosen ids that are the account's own rows of the segment's kind. */
async function writeMembers(tx: Tx, opts: { accountId: number; segmentId: number; kind: SegmentKind; memberIds: number[] }) {
  await tx.delete(schema.segmentMembers).where(and(eq(schema.segmentMembers.segmentId, opts.segmentId), eq(schema.segmentMembers.accountId, opts.accountId)));
  const ids = [...new Set(opts.memberIds)];
  if (!ids.length) return 0;
  const table = opts.kind === 'contact' ? c : co;
  const rows = await tx
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.accountId, opts.accountId), inArray(table.id, ids)));
  if (!rows.length) return 0;
  await tx.insert(schema.segmentMembers).values(rows.map((r) => ({ segmentId: opts.segmentId, memberId: r.id, accountId: opts.accountId })));
  return rows.length;
}

export async function createSegment(opts: SegmentWrite) {
  return getDb().transaction(async (tx) => {
    const conditions = opts.isStatic ? {} : cleanConditions(opts.kind, opts.conditions);
    await checkConditionIds(tx, opts.accountId, opts.kind, conditions);
    const [row] = await tx
      .insert(s)
      .values({ accountId: opts.accountId, kind: opts.kind, name: opts.name.trim(), isStatic: opts.isStatic, conditions, createdById: opts.actorId })
      .returning();
    const members = opts.isStatic ? await writeMembers(tx, { accountId: opts.accountId, segmentId: row.id, kind: opts.kind, memberIds: opts.memberIds }) : 0;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'segment_created',
      subjectType: 'segment',
      subjectId: row.id,
      payload: { kind: row.kind, name: row.name, isStatic: row.isStatic, conditions, members },
      actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
    });
    return row;
  });
}

/** The kind never changes; returns undefined when the account has no such segment. */
export async function updateSegment(opts: Omit<SegmentWrite, 'kind'> & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)))
      .for('update');
    if (!before) return undefined;
    const conditions = opts.isStatic ? {} : cleanConditions(before.kind, opts.conditions);
    await checkConditionIds(tx, opts.accountId, before.kind, conditions);
    const [row] = await tx
      .update(s)
      .set({ name: opts.name.trim(), isStatic: opts.isStatic, conditions, updatedAt: new Date() })
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, before.id)))
      .returning();
    const members = await writeMembers(tx, { accountId: opts.accountId, segmentId: row.id, kind: row.kind, memberIds: opts.isStatic ? opts.memberIds : [] });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'segment_updated',
      subjectType: 'segment',
      subjectId: row.id,
      payload: { kind: row.kind, name: row.name, isStatic: row.isStatic, conditions, members, previousName: before.name },
      actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
    });
    return row;
  });
}

export async function deleteSegment(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(s)
      .where(and(eq(s.accountId, opts.accountId), eq(s.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'segment_deleted',
      subjectType: 'segment',
      subjectId: row.id,
      payload: { kind: row.kind, name: row.name },
      actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
    });
    return row;
  });
}
