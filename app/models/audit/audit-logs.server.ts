import { and, desc, eq, gte, isNull, lt, notInArray, sql, type SQL } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { csvStream } from '../../utils/csv-stream.server';
import { AUDITED_TYPES, describeType, NOT_AUDITED } from './constants';

export { AUDIT_COUNT_CAP, AUDIT_OBJECT_TYPES, AUDIT_PAGE_SIZE, AUDITED_TYPES, describeType, NOT_AUDITED } from './constants';
import { AUDIT_COUNT_CAP, AUDIT_PAGE_SIZE } from './constants';

const e = schema.domainEvents;
const u = schema.users;

/**
 * How long the log shows events: PARLEY_AUDIT_RETENTION_DAYS (default 365), read at call time so that tests and the
 * operator's environment agree. Nothing in the app edits or deletes an entry (ADR 070).
 */
export function auditRetentionDays() {
  const n = Number(process.env.PARLEY_AUDIT_RETENTION_DAYS ?? 365);
  return Number.isInteger(n) && n > 0 ? n : 365;
}

export type AuditFilters = {
  /** A user id, or 'engine' / 'system' for changes nobody typed. */
  actor?: string;
  type?: string;
  subjectType?: string;
  subjectId?: string;
  /** Inclusive day bounds, YYYY-MM-DD, read as UTC days. */
  from?: string;
  to?: string;
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters of a URL, with anything malformed dropped (an unknown type is not a filter, it is nothing). */
export function readAuditFilters(url: URL): AuditFilters {
  const p = (k: string) => url.searchParams.get(k)?.trim().slice(0, 100) || undefined;
  const f: AuditFilters = {};
  const actor = p('actor');
  if (actor && (/^\d{1,9}$/.test(actor) || actor === 'engine' || actor === 'system')) f.actor = actor;
  const type = p('type');
  if (type && (AUDITED_TYPES as readonly string[]).includes(type)) f.type = type;
  const subjectType = p('object');
  if (subjectType && /^[a-z_]{1,40}$/.test(subjectType)) f.subjectType = subjectType;
  const subjectId = p('objectId');
  if (subjectId && /^[\w-]{1,64}$/.test(subjectId)) f.subjectId = subjectId;
  const from = p('from');
  if (from && DAY.test(from) && !Number.isNaN(Date.parse(from))) f.from = from;
  const to = p('to');
  if (to && DAY.test(to) && !Number.isNaN(Date.parse(to))) f.to = to;
  return f;
}

function where(accountId: number, f: AuditFilters): SQL {
  const since = new Date(Date.now() - auditRetentionDays() * 86_400_000);
  const parts: (SQL | undefined)[] = [eq(e.accountId, accountId), gte(e.occurredAt, since)];
  if (f.type) parts.push(eq(e.type, f.type));
  else parts.push(notInArray(e.type, [...NOT_AUDITED]));
  if (f.actor === 'engine') parts.push(eq(e.actorType, 'engine'));
  else if (f.actor === 'system') parts.push(and(eq(e.actorType, 'system'), isNull(e.actorId)));
  else if (f.actor) parts.push(and(eq(e.actorType, 'user'), eq(e.actorId, Number(f.actor))));
  if (f.subjectType) parts.push(eq(e.subjectType, f.subjectType));
  if (f.subjectId) parts.push(eq(e.subjectId, f.subjectId));
  if (f.from) parts.push(gte(e.occurredAt, new Date(`${f.from}T00:00:00Z`)));
  if (f.to) parts.push(lt(e.occurredAt, new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000)));
  return and(...parts)!;
}

export type AuditChange = { field: string; before: unknown; after: unknown };

/**
 * The before and after values an event carries: `before`/`after` objects (settings changes), or the
 * `previousX`/`x` pairs the settings rows record. Only the fields that differ.
 */
export function changesOf(payload: Record<string, unknown>): AuditChange[] {
  const out: AuditChange[] = [];
  const before = payload.before;
  const after = payload.after;
  if (before && after && typeof before === 'object' && typeof after === 'object') {
    const b = before as Record<string, unknown>;
    const a = after as Record<string, unknown>;
    for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (JSON.stringify(b[field]) !== JSON.stringify(a[field])) out.push({ field, before: b[field] ?? null, after: a[field] ?? null });
    }
    return out;
  }
  for (const [key, value] of Object.entries(payload)) {
    const m = /^previous([A-Z]\w*)$/.exec(key);
    if (!m) continue;
    const field = m[1][0].toLowerCase() + m[1].slice(1);
    if (JSON.stringify(value) !== JSON.stringify(payload[field])) out.push({ field, before: value ?? null, after: payload[field] ?? null });
  }
  return out;
}

function selection() {
  return {
    id: e.id,
    type: e.type,
    subjectType: e.subjectType,
    subjectId: e.subjectId,
    payload: e.payload,
    actorType: e.actorType,
    actorId: e.actorId,
    actorName: sql<string | null>`nullif(trim(${u.firstName} || ' ' || ${u.lastName}), '')`,
    actorEmail: u.email,
    ip: e.ip,
    userAgent: e.userAgent,
    occurredAt: e.occurredAt,
  };
}

/** One page of the account's audit log, newest first, and how many entries match (counted up to AUDIT_COUNT_CAP). */
export async function listAuditEntries(opts: { accountId: number; filters: AuditFilters; page: number; pageSize?: number }) {
  const db = getDb();
  const pageSize = opts.pageSize ?? AUDIT_PAGE_SIZE;
  const page = Math.max(1, Math.min(opts.page, Math.ceil(AUDIT_COUNT_CAP / pageSize)));
  const w = where(opts.accountId, opts.filters);
  const [rows, [{ n }]] = await Promise.all([
    db
      .select(selection())
      .from(e)
      // The actor must belong to the same account: ids are global, the join is scoped too.
      .leftJoin(u, and(eq(u.id, e.actorId), eq(u.accountId, e.accountId), eq(e.actorType, 'user')))
      .where(w)
      .orderBy(desc(e.occurredAt), desc(e.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.execute<{ n: number }>(sql`select count(*)::int as n from (select 1 from ${e} where ${w} limit ${AUDIT_COUNT_CAP}) capped`),
  ]);
  return {
    page,
    pageSize,
    total: Number(n),
    capped: Number(n) >= AUDIT_COUNT_CAP,
    rows: rows.map((r) => ({ ...r, action: describeType(r.type), changes: changesOf(r.payload) })),
  };
}

/** The people who appear as actors in the filter: the account's users (deleted ones keep their id in old entries). */
export async function listAuditActors(opts: { accountId: number }) {
  return getDb()
    .select({ id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email })
    .from(u)
    .where(eq(u.accountId, opts.accountId))
    .orderBy(u.firstName, u.id);
}

/** The filtered log as a streamed CSV, newest first like the screen; both the event and the actor are the account's. */
export function exportAuditCsv(opts: { accountId: number; filters: AuditFilters }) {
  const query = sql`select ${e.occurredAt} as occurred_at, ${e.type} as type, ${e.subjectType} as subject_type,
      ${e.subjectId} as subject_id, ${e.payload} as payload, ${e.actorType} as actor_type, ${e.actorId} as actor_id,
      nullif(trim(${u.firstName} || ' ' || ${u.lastName}), '') as actor_name, ${u.email} as actor_email,
      ${e.ip} as ip, ${e.userAgent} as user_agent
    from ${e} left join ${u} on ${u.id} = ${e.actorId} and ${u.accountId} = ${e.accountId} and ${e.actorType} = 'user'
    where ${where(opts.accountId, opts.filters)}
    order by ${e.occurredAt} desc, ${e.id} desc`;
  type Row = { occurred_at: Date | string; type: string; subject_type: string; subject_id: string; payload: Record<string, unknown> | string; actor_type: string; actor_id: number | null; actor_name: string | null; actor_email: string | null; ip: string | null; user_agent: string | null };
  return csvStream<Row>({
    query,
    header: ['When (UTC)', 'Actor', 'Actor email', 'Action', 'Object', 'Object id', 'Changes', 'IP', 'User agent'],
    toRecord: (r) => [
      new Date(r.occurred_at).toISOString(),
      r.actor_type === 'user' ? (r.actor_name ?? `User ${r.actor_id}`) : r.actor_type,
      r.actor_email ?? '',
      describeType(r.type),
      r.subject_type,
      r.subject_id,
      changesOf(typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload)
        .map((c) => `${c.field}: ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`)
        .join('; '),
      r.ip ?? '',
      r.user_agent ?? '',
    ],
  });
}

export class AuditQueryError extends Error {}

const QUERY_KEYS = ['actor', 'type', 'object', 'objectId', 'from', 'to'] as const;

/**
 * The list endpoints' input (`POST audit-logs`, `POST qa-audit/trail-logs`, ADR 089): the screen's filters under the
 * screen's names, plus `page` and `pageSize` (1-100). Unlike the screen, which drops a malformed filter, an API caller
 * gets a 400 naming it. `trail` (the trail of one object) requires `object` and `objectId`.
 */
export function readAuditQuery(input: Record<string, unknown>, opts: { trail?: boolean } = {}) {
  const url = new URL('http://x/');
  for (const k of QUERY_KEYS) {
    const v = input[k];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw new AuditQueryError(`${k} must be a string`);
    url.searchParams.set(k, String(v));
  }
  const filters = readAuditFilters(url);
  const names: Record<(typeof QUERY_KEYS)[number], keyof AuditFilters> = { actor: 'actor', type: 'type', object: 'subjectType', objectId: 'subjectId', from: 'from', to: 'to' };
  for (const k of QUERY_KEYS) {
    if (url.searchParams.has(k) && filters[names[k]] === undefined) {
      throw new AuditQueryError(
        k === 'type' ? `Unknown event type: ${url.searchParams.get(k)}` : k === 'actor' ? 'actor must be a user id, engine or system' : k === 'from' || k === 'to' ? `${k} must be a day as YYYY-MM-DD` : `${k} is not valid`,
      );
    }
  }
  if (opts.trail && (!filters.subjectType || !filters.subjectId)) throw new AuditQueryError('object and objectId are required');
  const num = (k: string, fallback: number, max: number) => {
    const v = input[k];
    if (v === undefined || v === null || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new AuditQueryError(`${k} must be a whole number from 1 to ${max}`);
    return n;
  };
  return { filters, page: num('page', 1, AUDIT_COUNT_CAP), pageSize: num('pageSize', AUDIT_PAGE_SIZE, 100) };
}

/** One page as the endpoints answer it: ISO times, the actor as an object, changes with before/after. */
export async function auditPageJson(opts: { accountId: number; filters: AuditFilters; page: number; pageSize: number }) {
  const list = await listAuditEntries(opts);
  return {
    page: list.page,
    pageSize: list.pageSize,
    total: list.total,
    capped: list.capped,
    retentionDays: auditRetentionDays(),
    entries: list.rows.map((r) => ({
      id: r.id,
      occurredAt: r.occurredAt.toISOString(),
      type: r.type,
      action: r.action,
      object: r.subjectType,
      objectId: r.subjectId,
      actor: { type: r.actorType, id: r.actorId, name: r.actorName, email: r.actorEmail },
      changes: r.changes,
      ip: r.ip,
      userAgent: r.userAgent,
    })),
  };
}
