import { and, asc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { publishToAccount } from '../../utils/live.server';
import { nodeId, nodeName } from '../cluster/node.server';

/**
 * Who is looking at which conversation, shared by every web node: one `conversation_viewers` row per agent socket
 * (node id + connection id), written when the page says it views or left a conversation, refreshed by its node's
 * heartbeat. A row older than the TTL no longer counts (its node died); the presence sweep deletes it and tells the
 * conversation's viewers. Keys are the connections, so one agent with two tabs is one viewer, and a closed tab stops
 * counting at once.
 *
 * Each change is told to the conversation's viewers on every node as one `presence` message on the live channel
 * (NOTIFY), carrying the full list read from the table in the same transaction. Writers to one conversation take turns
 * (an advisory lock per conversation until commit), and NOTIFYs are delivered in commit order, so the last list every
 * node hears is the list as it stands. Presence stays a hint: a reload shows the same truth without it.
 */
export const VIEWER_TTL_SECONDS = 90;

export type PresenceUsers = { id: number; name: string }[];
export type ViewerConnection = { connectionId: string; nodeId?: string };

const v = schema.conversationViewers;
const u = schema.users;
/** PostgreSQL's NOTIFY payload limit is 8000 bytes: a list longer than this leaves its last names out. */
const MAX_PAYLOAD = 7000;

const fresh = sql`${v.seenAt} > now() - make_interval(secs => ${VIEWER_TTL_SECONDS})`;

/** The users of one account viewing one conversation now, each once, by name. */
export async function conversationViewers(opts: { accountId: number; conversationId: number }, db: DbOrTx = getDb()): Promise<PresenceUsers> {
  const rows = await db
    .selectDistinct({ id: u.id, firstName: u.firstName, lastName: u.lastName })
    .from(v)
    .innerJoin(u, and(eq(u.id, v.userId), eq(u.accountId, opts.accountId)))
    .where(and(eq(v.accountId, opts.accountId), eq(v.conversationId, opts.conversationId), fresh))
    .orderBy(asc(u.id));
  return rows
    .map((r) => ({ id: r.id, name: `${r.firstName} ${r.lastName}`.trim() }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}

/** Writers to these conversations' viewers take turns until commit, always in the same order. */
async function lockConversations(tx: Tx, conversationIds: number[]) {
  const ids = [...new Set(conversationIds)].sort((a, b) => a - b);
  for (const id of ids) await tx.execute(sql`select pg_advisory_xact_lock(hashtext('conversation_viewers'), ${id})`);
  return ids;
}

/** Tells every node's viewers of these conversations who views each now (delivered at commit). */
async function publishViewers(tx: Tx, accountId: number, conversationIds: number[]) {
  for (const conversationId of conversationIds) {
    const users = await conversationViewers({ accountId, conversationId }, tx);
    while (users.length > 0 && JSON.stringify(users).length > MAX_PAYLOAD) users.pop();
    await publishToAccount(accountId, { type: 'presence', conversationId, users }, { tx });
  }
}

const connectionIs = (c: ViewerConnection) => and(eq(v.nodeId, c.nodeId ?? nodeId()), eq(v.connectionId, c.connectionId));

/** The connection now views this conversation (instead of the one it viewed before, if any). */
export async function viewConversation(opts: { accountId: number; userId: number; conversationId: number; connection: ViewerConnection }) {
  const node = opts.connection.nodeId ?? nodeId();
  await getDb().transaction(async (tx) => {
    // Only this connection's own node writes its row, one message after another: no lock needed to read it.
    const [before] = await tx.select({ conversationId: v.conversationId }).from(v).where(connectionIs(opts.connection));
    if (before?.conversationId === opts.conversationId) {
      await tx.update(v).set({ seenAt: sql`now()` }).where(connectionIs(opts.connection));
      return;
    }
    const changed = await lockConversations(tx, before ? [before.conversationId, opts.conversationId] : [opts.conversationId]);
    await tx
      .insert(v)
      .values({ nodeId: node, connectionId: opts.connection.connectionId, accountId: opts.accountId, userId: opts.userId, conversationId: opts.conversationId })
      .onConflictDoUpdate({ target: [v.nodeId, v.connectionId], set: { conversationId: opts.conversationId, userId: opts.userId, accountId: opts.accountId, seenAt: sql`now()` } });
    await publishViewers(tx, opts.accountId, changed);
  });
}

/** The connection left its conversation (or closed). */
export async function leaveConversation(opts: { accountId: number; connection: ViewerConnection }) {
  await getDb().transaction(async (tx) => {
    const [before] = await tx
      .select({ conversationId: v.conversationId })
      .from(v)
      .where(and(connectionIs(opts.connection), eq(v.accountId, opts.accountId)));
    if (!before) return;
    const changed = await lockConversations(tx, [before.conversationId]);
    await tx.delete(v).where(and(connectionIs(opts.connection), eq(v.accountId, opts.accountId)));
    await publishViewers(tx, opts.accountId, changed);
  });
}

/** The heartbeat of a web node: its viewers are still there. */
export async function refreshViewers(opts: { nodeId?: string } = {}) {
  await getDb()
    .update(v)
    .set({ seenAt: sql`now()` })
    .where(eq(v.nodeId, opts.nodeId ?? nodeId()));
}

/** Deletes the matching rows and tells their conversations' viewers; one transaction per account. */
async function forgetViewers(where: ReturnType<typeof and>) {
  const rows = await getDb().selectDistinct({ accountId: v.accountId, conversationId: v.conversationId }).from(v).where(where).limit(1000);
  const byAccount = new Map<number, number[]>();
  for (const r of rows) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r.conversationId]);
  let forgotten = 0;
  for (const [accountId, conversationIds] of byAccount) {
    await getDb().transaction(async (tx) => {
      const locked = await lockConversations(tx, conversationIds);
      const gone = await tx
        .delete(v)
        .where(and(where, eq(v.accountId, accountId), inArray(v.conversationId, locked)))
        .returning({ conversationId: v.conversationId });
      forgotten += gone.length;
      await publishViewers(tx, accountId, [...new Set(gone.map((g) => g.conversationId))]);
    });
  }
  return forgotten;
}

/** The presence sweep: viewers whose node stopped refreshing them are gone, and their conversations' viewers are told. */
export async function sweepViewers() {
  return forgetViewers(and(lt(v.seenAt, sql`now() - make_interval(secs => ${VIEWER_TTL_SECONDS})`)));
}

/**
 * At start-up, or when the node stops: this node's rows go. At start-up (`staleOnly`) only the stale rows of its earlier
 * lives under the same name; never a live node's rows.
 */
export async function resetViewers(opts: { nodeId?: string; staleOnly?: boolean } = {}) {
  const node = opts.nodeId ?? nodeId();
  if (!opts.staleOnly) return forgetViewers(and(eq(v.nodeId, node)));
  return forgetViewers(
    and(
      sql`regexp_replace(${v.nodeId}, '#[0-9a-f]{6}$', '') = ${nodeName(node)}`,
      ne(v.nodeId, node),
      lt(v.seenAt, sql`now() - make_interval(secs => ${VIEWER_TTL_SECONDS})`),
    ),
  );
}

/** What a browser may say over the socket about presence; anything else is ignored. */
export function readPresenceMessage(raw: string): { type: 'viewing'; conversationId: number } | { type: 'left' } | null {
  if (raw.length > 200) return null;
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!msg || typeof msg !== 'object') return null;
  const m = msg as { type?: unknown; conversationId?: unknown };
  if (m.type === 'left') return { type: 'left' };
  if (
    m.type === 'viewing' &&
    typeof m.conversationId === 'number' &&
    Number.isInteger(m.conversationId) &&
    m.conversationId > 0 &&
    m.conversationId <= 2_147_483_647
  ) {
    return { type: 'viewing', conversationId: m.conversationId };
  }
  return null;
}
