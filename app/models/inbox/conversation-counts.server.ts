import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { ConversationStatus } from '../../../db/schema/inbox';
import { priorityRank, type ConversationFilters } from './filters';
import type { CountGroup } from './live-list';
import { requestMemo } from '../../utils/request-scope.server';

/** Past this many delta rows for an account, a reader folds them into one row per group (ADR 032). */
const FOLD_AFTER = 500;

/**
 * The side panel's counts (per status under the other filters, per inbox under the other filters) from the
 * account's count deltas: a read of a few hundred rows at most, whatever the number of conversations. Answers the
 * filters the deltas carry (assignee, team, priority, source); text and tag filters are counted by the caller.
 */
export function countConversationsFromDeltas(opts: { accountId: number; userId: number; filters: ConversationFilters }) {
  // The side panel and the list's total ask the same question on one page: read once per request.
  return requestMemo(`count-deltas ${JSON.stringify(opts)}`, () => readCountsFromDeltas(opts));
}

async function readCountsFromDeltas(opts: { accountId: number; userId: number; filters: ConversationFilters }) {
  const d = schema.conversationCountDeltas;
  const f = opts.filters;
  const where: (SQL | undefined)[] = [eq(d.accountId, opts.accountId)];
  if (f.assignee === 'mine') where.push(eq(d.assigneeId, opts.userId));
  else if (f.assignee === 'unassigned') where.push(isNull(d.assigneeId));
  else if (f.assignee) where.push(eq(d.assigneeId, Number(f.assignee)));
  if (f.team) where.push(eq(d.teamId, f.team));
  if (f.priority) where.push(eq(d.priority, priorityRank(f.priority)));
  if (f.source) where.push(eq(d.sourceType, f.source));
  // One statement: the filtered sums per (status, inbox), and how many delta rows the account has (to fold them).
  const rows = await getDb()
    .select({ status: d.status, inboxId: d.inboxId, n: sql<number>`coalesce(sum(${d.n}) filter (where ${and(...where)}), 0)::int`, raw: sql<number>`count(*)::int` })
    .from(d)
    .where(eq(d.accountId, opts.accountId))
    .groupBy(d.status, d.inboxId);
  const rowsOfAccount = rows.reduce((n, g) => n + g.raw, 0);
  if (rowsOfAccount > FOLD_AFTER) await foldCountDeltas(opts.accountId);
  const wantedStatus = f.status === 'all' ? undefined : f.status ?? 'open';
  const byStatus: Partial<Record<ConversationStatus, number>> = {};
  const byInbox: Record<number, number> = {};
  for (const r of rows) {
    if (r.n === 0) continue;
    const status = r.status as ConversationStatus;
    if (!f.inbox || r.inboxId === f.inbox) byStatus[status] = (byStatus[status] ?? 0) + r.n;
    if (!wantedStatus || status === wantedStatus) byInbox[r.inboxId] = (byInbox[r.inboxId] ?? 0) + r.n;
  }
  return { byStatus, byInbox, approximate: false };
}

/**
 * Folds the account's deltas into one row per group, in one statement: rows appended meanwhile by writers are not
 * touched (they are not in the statement's snapshot), and two folds at once delete each row once.
 */
export async function foldCountDeltas(accountId: number) {
  await getDb().execute(sql`
    with gone as (
      delete from ${schema.conversationCountDeltas} where account_id = ${accountId}
      returning account_id, inbox_id, status, assignee_id, team_id, priority, source_type, n
    )
    insert into ${schema.conversationCountDeltas} (account_id, inbox_id, status, assignee_id, team_id, priority, source_type, n)
    select account_id, inbox_id, status, assignee_id, team_id, priority, source_type, sum(n)::int
      from gone group by account_id, inbox_id, status, assignee_id, team_id, priority, source_type
    having sum(n) <> 0`);
}

/** How many conversations the list's filters (no text, no tag) match, from the deltas: the list's total. */
export async function totalFromDeltas(opts: { accountId: number; userId: number; filters: ConversationFilters }) {
  const { byStatus, byInbox } = await countConversationsFromDeltas({ ...opts, filters: { ...opts.filters, inbox: undefined } });
  const f = opts.filters;
  if (f.inbox) return byInbox[f.inbox] ?? 0;
  return Object.values(f.status === 'all' ? byStatus : byInbox).reduce((n, v) => n + (v ?? 0), 0);
}

/**
 * Every count group of the account (status, inbox, assignee, team, priority, source), summed: what the live feed
 * computes each watching agent's side panel from, in one read per change however many agents watch (ADR 045).
 */
export async function readCountGroups(accountId: number): Promise<CountGroup[]> {
  const d = schema.conversationCountDeltas;
  const rows = await getDb()
    .select({
      status: d.status,
      inboxId: d.inboxId,
      assigneeId: d.assigneeId,
      teamId: d.teamId,
      priority: d.priority,
      sourceType: d.sourceType,
      n: sql<number>`sum(${d.n})::int`,
      raw: sql<number>`count(*)::int`,
    })
    .from(d)
    .where(eq(d.accountId, accountId))
    .groupBy(d.status, d.inboxId, d.assigneeId, d.teamId, d.priority, d.sourceType);
  if (rows.reduce((n, r) => n + r.raw, 0) > FOLD_AFTER) await foldCountDeltas(accountId);
  return rows.map(({ raw: _raw, ...g }) => g);
}
