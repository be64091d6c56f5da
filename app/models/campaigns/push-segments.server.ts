import { and, asc, count, eq, ilike, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { PushCondition } from '../../../db/schema/campaigns';
import { cleanQuery, likePattern, paging, recordChange } from '../productivity/shared.server';
import type { PushSegmentInput } from './push-schemas';

const ps = schema.pushSegments;
const sub = schema.pushSubscriptions;

export type PushSegment = typeof ps.$inferSelect;

export async function listPushSegments(opts: { accountId: number; q?: string | null; page?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const query = cleanQuery(opts.q);
  const where = and(eq(ps.accountId, opts.accountId), query ? ilike(ps.name, likePattern(query)) : undefined);
  const db = getDb();
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(ps).where(where).orderBy(sql`lower(${ps.name})`, asc(ps.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(ps).where(where),
  ]);
  return { rows, total, page, pageSize };
}

/** Every push segment of the account, for a campaign's picker. */
export async function pushSegmentOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: ps.id, name: ps.name })
    .from(ps)
    .where(eq(ps.accountId, opts.accountId))
    .orderBy(sql`lower(${ps.name})`, asc(ps.id));
}

export async function getPushSegment(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(ps)
    .where(and(eq(ps.accountId, opts.accountId), eq(ps.id, opts.id)));
  return row;
}

function clean(input: PushSegmentInput) {
  const rows = (list: PushSegmentInput['actions']): PushCondition[] => list.map((r) => ({ key: r.key, operator: r.operator, value: (r.value ?? '').trim() }));
  return { name: input.name.trim(), actionOperator: input.actionOperator, actions: rows(input.actions), propertyOperator: input.propertyOperator, properties: rows(input.properties) };
}

export async function createPushSegment(opts: { accountId: number; actorId: number } & PushSegmentInput) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(ps)
      .values({ accountId: opts.accountId, ...clean(opts) })
      .returning();
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'push_segment_created', subjectType: 'push_segment', subjectId: row.id, payload: { name: row.name } });
    return row;
  });
}

export async function updatePushSegment(opts: { accountId: number; actorId: number; id: number } & PushSegmentInput) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(ps)
      .set({ ...clean(opts), updatedAt: new Date() })
      .where(and(eq(ps.accountId, opts.accountId), eq(ps.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'push_segment_updated', subjectType: 'push_segment', subjectId: row.id, payload: { name: row.name } });
    return row;
  });
}

export async function deletePushSegment(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(ps)
      .where(and(eq(ps.accountId, opts.accountId), eq(ps.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { accountId: opts.accountId, actorId: opts.actorId, type: 'push_segment_deleted', subjectType: 'push_segment', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

/**
 * The subscription fact a key compares: actions are what the visitor did on the latest visit (or when subscribing,
 * before any), properties the browser (ADR 115: refreshed on each visit of a subscribed visitor).
 */
function column(key: string): { expr: SQL; kind: 'text' | 'number' | 'date' } | null {
  const local = sql`(coalesce(${sub.seenAt}, ${sub.createdAt}) at time zone coalesce(${sub.timezone}, 'UTC'))`;
  switch (key) {
    case 'pageUrl':
      return { expr: sql`coalesce(${sub.pageUrl}, '')`, kind: 'text' };
    case 'referrer':
      return { expr: sql`coalesce(${sub.referrer}, '')`, kind: 'text' };
    case 'referrerType':
      return { expr: sql`${sub.referrerType}`, kind: 'text' };
    case 'dayOfWeek':
      return { expr: sql`extract(dow from ${local})`, kind: 'number' };
    case 'hourOfDay':
      return { expr: sql`extract(hour from ${local})`, kind: 'number' };
    case 'subscribed':
      return { expr: sql`${sub.createdAt}`, kind: 'date' };
    case 'os':
      return { expr: sql`coalesce(${sub.os}, 'other')`, kind: 'text' };
    case 'browser':
      return { expr: sql`coalesce(${sub.browser}, '')`, kind: 'text' };
    case 'platform':
      return { expr: sql`${sub.platform}`, kind: 'text' };
    case 'location':
      return { expr: sql`coalesce(${sub.location}, '')`, kind: 'text' };
    case 'timezone':
      return { expr: sql`coalesce(${sub.timezone}, '')`, kind: 'text' };
    default:
      return null;
  }
}

/** One condition as SQL over push_subscriptions (text compares ignore case; unknown keys match nothing). */
export function conditionSql(cond: PushCondition): SQL {
  const col = column(cond.key);
  if (!col) return sql`false`;
  if (col.kind === 'number') {
    const n = Number(cond.value);
    if (!Number.isFinite(n)) return sql`false`;
    const ops: Record<string, SQL> = { equals: sql`${col.expr} = ${n}`, notEquals: sql`${col.expr} <> ${n}`, lessThan: sql`${col.expr} < ${n}`, greaterThan: sql`${col.expr} > ${n}` };
    return ops[cond.operator] ?? sql`false`;
  }
  if (col.kind === 'date') {
    const at = new Date(`${cond.value}T00:00:00Z`);
    if (Number.isNaN(at.getTime())) return sql`false`;
    if (cond.operator === 'lessThan') return sql`${col.expr} < ${at.toISOString()}::timestamptz`;
    if (cond.operator === 'greaterThan') return sql`${col.expr} >= ${new Date(at.getTime() + 86_400_000).toISOString()}::timestamptz`;
    return sql`false`;
  }
  const v = cond.value.toLowerCase();
  const lhs = sql`lower(${col.expr})`;
  switch (cond.operator) {
    case 'equals':
      return sql`${lhs} = ${v}`;
    case 'notEquals':
      return sql`${lhs} <> ${v}`;
    case 'contains':
      return sql`strpos(${lhs}, ${v}) > 0`;
    case 'lessThan':
      return sql`${lhs} < ${v}`;
    case 'greaterThan':
      return sql`${lhs} > ${v}`;
    default:
      return sql`false`;
  }
}

function group(conds: PushCondition[], op: 'AND' | 'OR'): SQL {
  if (!conds.length) return sql`true`;
  return sql`(${sql.join(conds.map(conditionSql), op === 'OR' ? sql` or ` : sql` and `)})`;
}

/** The segment as a WHERE over push_subscriptions: actions (joined by actionOperator) and properties (by propertyOperator). */
export function pushSegmentWhere(segment: Pick<PushSegment, 'actions' | 'actionOperator' | 'properties' | 'propertyOperator'>): SQL {
  return sql`(${group(segment.actions, segment.actionOperator)} and ${group(segment.properties, segment.propertyOperator)})`;
}

/** How many of the account's subscriptions the segment matches now (shown on the segment screen). */
export async function countPushSegment(opts: { accountId: number; segment: PushSegment }) {
  const [row] = await getDb()
    .select({ n: count() })
    .from(sub)
    .where(and(eq(sub.accountId, opts.accountId), pushSegmentWhere(opts.segment)));
  return row.n;
}
