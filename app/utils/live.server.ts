import { sql } from 'drizzle-orm';
import { getSql, type DbOrTx } from '../../db/client';
import { singleton } from './singleton.server';

export const LIVE_CHANNEL = 'parley_live';

export type LiveMessage = { type: string; [key: string]: unknown };

/**
 * Publishes a message to every connected user of one account. Goes through PostgreSQL NOTIFY so that
 * the engine (possibly another process) and every web process reach the websocket clients.
 */
export async function publishToAccount(accountId: number, message: LiveMessage, opts: { userId?: number; tx?: DbOrTx } = {}) {
  const payload = JSON.stringify({ accountId, userId: opts.userId ?? null, message });
  const held = opts.tx ? heldNotifies().get(opts.tx) : undefined;
  if (held) held.push(payload);
  // Inside a transaction NOTIFY is delivered at commit, so clients never hear of a change that rolled back.
  else if (opts.tx) await opts.tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${payload})`);
  else await getSql()`select pg_notify(${LIVE_CHANNEL}, ${payload})`;
}

// A writer that makes many changes in one transaction (the engine applying an event's actions) holds their NOTIFYs
// and sends them in one statement before it commits (ADR 043 addendum). A savepoint holds its own, handed to its
// parent when it is released and dropped when it rolls back, as PostgreSQL itself would drop them.
const heldNotifies = () => singleton('live-held-notifies', () => new WeakMap<object, string[]>());

/** From now on, NOTIFYs published through `tx` are held until `sendHeldNotifies(tx)` (or `handHeldNotifies`). */
export function holdNotifies(tx: DbOrTx) {
  heldNotifies().set(tx, []);
}

/** A released savepoint's held NOTIFYs go to its parent's; a rolled-back one's are dropped (`handHeldNotifies(sp, null)`). */
export function handHeldNotifies(from: DbOrTx, to: DbOrTx | null) {
  const held = heldNotifies().get(from) ?? [];
  heldNotifies().delete(from);
  if (to) heldNotifies().get(to)?.push(...held);
}

/**
 * Takes the held NOTIFYs of `tx` as one SQL expression that sends them in the order they were published (their count),
 * or null when none is held: `sendHeldNotifies` runs it alone; the engine embeds it in its last statement (ADR 132).
 */
export function takeHeldNotifies(tx: DbOrTx) {
  const held = heldNotifies().get(tx) ?? [];
  heldNotifies().delete(tx);
  if (held.length === 0) return null;
  return sql`(select count(pg_notify(${LIVE_CHANNEL}, p))::int from jsonb_array_elements_text(${JSON.stringify(held)}::jsonb) p)`;
}

/** Sends the held NOTIFYs of `tx` in one statement, in the order they were published; they reach clients at commit. */
export async function sendHeldNotifies(tx: DbOrTx) {
  const notify = takeHeldNotifies(tx);
  if (notify) await tx.execute(sql`select ${notify} as notified`);
}
