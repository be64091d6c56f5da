import { sql } from 'drizzle-orm';
import { getSql, type DbOrTx } from '../../db/client';

export const LIVE_CHANNEL = 'parley_live';

export type LiveMessage = { type: string; [key: string]: unknown };

/**
 * Publishes a message to every connected user of one account. Goes through PostgreSQL NOTIFY so that
 * the engine (possibly another process) and every web process reach the websocket clients.
 */
export async function publishToAccount(accountId: number, message: LiveMessage, opts: { userId?: number; tx?: DbOrTx } = {}) {
  const payload = JSON.stringify({ accountId, userId: opts.userId ?? null, message });
  // Inside a transaction NOTIFY is delivered at commit, so clients never hear of a change that rolled back.
  if (opts.tx) await opts.tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${payload})`);
  else await getSql()`select pg_notify(${LIVE_CHANNEL}, ${payload})`;
}
