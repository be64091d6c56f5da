import { and, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { nodeId, nodeName } from '../cluster/node.server';

/**
 * Which agents are online, for routing, across every web process of the cluster.
 *
 * Each node counts its own open agent sockets per user in `agent_presence_nodes` (user, node, connections,
 * lastSeenAt) and refreshes its rows every HEARTBEAT. A row older than the TTL no longer counts: its node died
 * without closing. `agent_presence` (one row per user, what routing and the widget read) is the sum of the user's
 * fresh node rows, written by whoever changes them under that row's lock, so that `agent_presence_changed` is emitted
 * exactly once each way for the whole cluster: its `connections > 0` is what was last announced.
 *
 * A node that dies leaves its rows behind. Agents also connected elsewhere are recounted by the other nodes'
 * heartbeats; agents who were only there go stale with their summary row, and the sweep (one node at a time, under
 * the `presence:sweep` lease, every SWEEP) announces them offline. A node starting up deletes only the stale rows of
 * its own earlier lives (same node name), never a live node's.
 */
export const PRESENCE_TTL_SECONDS = 90;
export const PRESENCE_HEARTBEAT_MS = 30_000;
export const PRESENCE_SWEEP_MS = 30_000;
/** Rows of nodes gone this long are deleted by the sweep (they stopped counting at the TTL already). */
const FORGET_AFTER_SECONDS = 3600;

const p = schema.agentPresence;
const n = schema.agentPresenceNodes;

const freshSql = (column: typeof p.lastSeenAt | typeof n.lastSeenAt) => sql<boolean>`${column} > now() - make_interval(secs => ${PRESENCE_TTL_SECONDS})`;

/** SQL: the presence row says online now. */
export const onlineSql = sql<boolean>`(${p.connections} > 0 and ${p.lastSeenAt} > now() - make_interval(secs => ${PRESENCE_TTL_SECONDS}))`;

type Who = { accountId: number; userId: number };

async function emitPresence(tx: Tx, who: Who, online: boolean) {
  await emitEvent(tx, {
    accountId: who.accountId,
    type: 'agent_presence_changed',
    subjectType: 'user',
    subjectId: who.userId,
    payload: { online },
    actor: { type: 'user', id: who.userId },
  });
}

/** Locks the users' summary rows, in user order so that writers on several nodes never deadlock. */
async function lockSummaries(tx: Tx, userIds: number[]) {
  if (userIds.length === 0) return [];
  return tx
    .select({ userId: p.userId, accountId: p.accountId, connections: p.connections, fresh: freshSql(p.lastSeenAt) })
    .from(p)
    .where(inArray(p.userId, userIds))
    .orderBy(p.userId)
    .for('update');
}

/**
 * Brings the users' summary rows (locked by the caller) to the sum of their fresh node rows and announces the changes:
 * online → offline when nothing fresh is left, offline → online when something is. A row still announcing online
 * though it went stale (all its nodes died, the sweep not there yet) is announced offline first, late rather than never.
 */
async function settle(tx: Tx, locked: Awaited<ReturnType<typeof lockSummaries>>) {
  const outcome = new Map<number, { cameOnline: boolean; wentOffline: boolean }>();
  if (locked.length === 0) return outcome;
  // A statement after the locks: its snapshot sees what the writers we waited for committed.
  const sums = await tx
    .select({ userId: n.userId, connections: sql<number>`sum(${n.connections})::int` })
    .from(n)
    .where(
      and(
        inArray(
          n.userId,
          locked.map((r) => r.userId),
        ),
        sql`${n.connections} > 0`,
        freshSql(n.lastSeenAt),
      ),
    )
    .groupBy(n.userId);
  const sumOf = new Map(sums.map((s) => [s.userId, Number(s.connections)]));
  const updates: { u: number; c: number }[] = [];
  for (const row of locked) {
    const connections = sumOf.get(row.userId) ?? 0;
    const announced = row.connections > 0;
    const wasOnline = announced && Boolean(row.fresh);
    const online = connections > 0;
    const who = { accountId: row.accountId, userId: row.userId };
    if (announced && !wasOnline) await emitPresence(tx, who, false);
    if (online !== wasOnline) await emitPresence(tx, who, online);
    outcome.set(row.userId, { cameOnline: online && !wasOnline, wentOffline: announced && !online });
    // Online rows are touched every time (their lastSeenAt is the cluster's heartbeat); offline ones only when they change.
    if (online || row.connections !== 0) updates.push({ u: row.userId, c: connections });
  }
  if (updates.length) {
    await tx.execute(sql`
      update ${p} set connections = v.c, last_seen_at = case when v.c > 0 then now() else ${p.lastSeenAt} end
      from (select (e->>'u')::int as u, (e->>'c')::int as c from jsonb_array_elements(${JSON.stringify(updates)}::jsonb) e) v
      where ${p.userId} = v.u`);
  }
  return outcome;
}

/** Adds `delta` sockets to the user's row on this node (a row at zero is deleted). */
async function countOnNode(tx: Tx, who: Who, node: string, delta: 1 | -1) {
  if (delta > 0) {
    await tx
      .insert(n)
      .values({ userId: who.userId, nodeId: node, accountId: who.accountId, connections: 1 })
      .onConflictDoUpdate({
        target: [n.userId, n.nodeId],
        set: { connections: sql`${n.connections} + 1`, lastSeenAt: sql`now()` },
      });
  } else {
    const [row] = await tx
      .update(n)
      .set({ connections: sql`greatest(${n.connections} - 1, 0)`, lastSeenAt: sql`now()` })
      .where(and(eq(n.userId, who.userId), eq(n.nodeId, node), eq(n.accountId, who.accountId)))
      .returning({ connections: n.connections });
    if (row && row.connections === 0) await tx.delete(n).where(and(eq(n.userId, who.userId), eq(n.nodeId, node)));
  }
}

/** An authenticated agent socket opened on this node: offline → online across the cluster emits agent_presence_changed. */
export async function agentConnected(opts: Who & { nodeId?: string }) {
  const who = { accountId: opts.accountId, userId: opts.userId };
  return getDb().transaction(async (tx) => {
    // The row exists first (a no-op when it does), so that every node then waits on the same row lock.
    await tx.insert(p).values({ userId: who.userId, accountId: who.accountId, connections: 0 }).onConflictDoNothing({ target: p.userId });
    const locked = (await lockSummaries(tx, [who.userId])).filter((r) => r.accountId === who.accountId);
    if (locked.length === 0) return { cameOnline: false };
    await countOnNode(tx, who, opts.nodeId ?? nodeId(), 1);
    const outcome = await settle(tx, locked);
    return { cameOnline: outcome.get(who.userId)?.cameOnline ?? false };
  });
}

/** An agent socket on this node closed: online → offline across the cluster emits agent_presence_changed. */
export async function agentDisconnected(opts: Who & { nodeId?: string }) {
  const who = { accountId: opts.accountId, userId: opts.userId };
  return getDb().transaction(async (tx) => {
    const locked = (await lockSummaries(tx, [who.userId])).filter((r) => r.accountId === who.accountId);
    if (locked.length === 0) return { wentOffline: false };
    await countOnNode(tx, who, opts.nodeId ?? nodeId(), -1);
    const outcome = await settle(tx, locked);
    return { wentOffline: outcome.get(who.userId)?.wentOffline ?? false };
  });
}

/**
 * The heartbeat of a web node: its rows are fresh again, and its users' summaries are recounted (which is how an agent
 * also connected through a node that died stops being counted there once that node's rows go stale).
 */
export async function refreshPresence(opts: { nodeId?: string } = {}) {
  const node = opts.nodeId ?? nodeId();
  await getDb().transaction(async (tx) => {
    const mine = await tx.select({ userId: n.userId }).from(n).where(eq(n.nodeId, node));
    if (mine.length === 0) return;
    const locked = await lockSummaries(
      tx,
      mine.map((r) => r.userId),
    );
    await tx.update(n).set({ lastSeenAt: sql`now()` }).where(eq(n.nodeId, node));
    await settle(tx, locked);
  });
}

/**
 * At start-up: the stale rows of this node's earlier lives (same node name, another id) are deleted; a live node's
 * rows (fresh, or named otherwise) are never touched. Users who were online only there are announced offline.
 */
export async function resetStalePresence(opts: { nodeId?: string } = {}) {
  const node = opts.nodeId ?? nodeId();
  const mine = and(
    sql`regexp_replace(${n.nodeId}, '#[0-9a-f]{6}$', '') = ${nodeName(node)}`,
    ne(n.nodeId, node),
    lt(n.lastSeenAt, sql`now() - make_interval(secs => ${PRESENCE_TTL_SECONDS})`),
  );
  await getDb().transaction(async (tx) => {
    const stale = await tx.selectDistinct({ userId: n.userId }).from(n).where(mine);
    if (stale.length === 0) return;
    const locked = await lockSummaries(
      tx,
      stale.map((r) => r.userId),
    );
    await tx.delete(n).where(mine);
    await settle(tx, locked);
  });
}

/**
 * The sweep (one node at a time, every SWEEP): agents still announced online whose every node went quiet are
 * announced offline, once; rows of nodes gone for long are forgotten. Returns the users announced offline.
 */
export async function sweepPresence(opts: { limit?: number } = {}) {
  const wentOffline: number[] = [];
  await getDb().transaction(async (tx) => {
    const stale = await tx
      .select({ userId: p.userId })
      .from(p)
      .where(and(sql`${p.connections} > 0`, lt(p.lastSeenAt, sql`now() - make_interval(secs => ${PRESENCE_TTL_SECONDS})`)))
      .orderBy(p.userId)
      .limit(opts.limit ?? 500);
    const locked = await lockSummaries(
      tx,
      stale.map((r) => r.userId),
    );
    for (const [userId, o] of await settle(tx, locked)) if (o.wentOffline) wentOffline.push(userId);
    await tx.delete(n).where(lt(n.lastSeenAt, sql`now() - make_interval(secs => ${FORGET_AFTER_SECONDS})`));
  });
  return wentOffline;
}

export async function isAgentOnline(opts: Who, db: DbOrTx = getDb()) {
  const [row] = await db
    .select({ online: onlineSql })
    .from(p)
    .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)));
  return Boolean(row?.online);
}
