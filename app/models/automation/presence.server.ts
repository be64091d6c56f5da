import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';

/**
 * Which agents are online, for routing: a count of open agent sockets per user, shared by every web process
 * through `agent_presence`. A row whose lastSeenAt is older than the TTL counts as offline whatever its count
 * says (its process died without closing); live processes refresh their users' rows every HEARTBEAT.
 */
export const PRESENCE_TTL_SECONDS = 90;
export const PRESENCE_HEARTBEAT_MS = 30_000;

const p = schema.agentPresence;

/** SQL: the presence row says online now. */
export const onlineSql = sql<boolean>`(${p.connections} > 0 and ${p.lastSeenAt} > now() - make_interval(secs => ${PRESENCE_TTL_SECONDS}))`;

async function lockRow(tx: Tx, opts: { accountId: number; userId: number }) {
  // The row exists first (a no-op when it does), so that every process then waits on the same row lock.
  await tx.insert(p).values({ userId: opts.userId, accountId: opts.accountId, connections: 0 }).onConflictDoNothing({ target: p.userId });
  const [row] = await tx
    .select({
      connections: p.connections,
      online: onlineSql,
      accountId: p.accountId,
    })
    .from(p)
    .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)))
    .for('update');
  return row;
}

async function emitPresence(tx: Tx, opts: { accountId: number; userId: number }, online: boolean) {
  await emitEvent(tx, {
    accountId: opts.accountId,
    type: 'agent_presence_changed',
    subjectType: 'user',
    subjectId: opts.userId,
    payload: { online },
    actor: { type: 'user', id: opts.userId },
  });
}

/** An authenticated agent socket opened: 0 → 1 is "online" (agent_presence_changed). Returns whether that happened. */
export async function agentConnected(opts: { accountId: number; userId: number }) {
  return getDb().transaction(async (tx) => {
    const row = await lockRow(tx, opts);
    if (!row) return { cameOnline: false };
    // A stale row's count belongs to a process that is gone: start again from this socket.
    const connections = row.online ? row.connections + 1 : 1;
    await tx
      .update(p)
      .set({ connections, lastSeenAt: new Date() })
      .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)));
    if (!row.online) await emitPresence(tx, opts, true);
    return { cameOnline: !row.online };
  });
}

/** An agent socket closed: 1 → 0 is "offline" (agent_presence_changed). */
export async function agentDisconnected(opts: { accountId: number; userId: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .select({ connections: p.connections, online: onlineSql })
      .from(p)
      .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)))
      .for('update');
    if (!row) return { wentOffline: false };
    const connections = row.online ? Math.max(0, row.connections - 1) : 0;
    await tx
      .update(p)
      .set({ connections, lastSeenAt: new Date() })
      .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)));
    const wentOffline = row.online && connections === 0;
    if (wentOffline) await emitPresence(tx, opts, false);
    return { wentOffline };
  });
}

/** The heartbeat of a web process: its connected agents are still there. */
export async function refreshPresence(opts: { accountId: number; userIds: number[] }) {
  if (opts.userIds.length === 0) return;
  await getDb()
    .update(p)
    .set({ lastSeenAt: new Date() })
    .where(and(eq(p.accountId, opts.accountId), inArray(p.userId, opts.userIds), sql`${p.connections} > 0`));
}

/** At boot: rows nobody refreshed within the TTL belong to processes that are gone. Live processes' rows are kept. */
export async function resetStalePresence() {
  await getDb()
    .update(p)
    .set({ connections: 0 })
    .where(and(sql`${p.connections} > 0`, lt(p.lastSeenAt, sql`now() - make_interval(secs => ${PRESENCE_TTL_SECONDS})`)));
}

export async function isAgentOnline(opts: { accountId: number; userId: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select({ online: onlineSql })
    .from(p)
    .where(and(eq(p.userId, opts.userId), eq(p.accountId, opts.accountId)));
  return Boolean(row?.online);
}
