import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { getDb, schema } from '../../db/client';
import { processEvent } from '../../engine/events';

/**
 * Runs the engine's handlers over the account's domain events in order, including the events those handlers
 * write, until nothing new is left — the engine's work, made deterministic for a test (no queue in between).
 * Returns the events it processed.
 */
export async function drainEvents(accountId: number, opts: { after?: number; maxRounds?: number } = {}) {
  let last = opts.after ?? 0;
  const seen: (typeof schema.domainEvents.$inferSelect)[] = [];
  for (let round = 0; round < (opts.maxRounds ?? 50); round++) {
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, accountId), gt(schema.domainEvents.id, last)))
      .orderBy(asc(schema.domainEvents.id));
    if (events.length === 0) return seen;
    for (const e of events) {
      await processEvent(e.id);
      seen.push(e);
      last = e.id;
    }
  }
  throw new Error('events kept coming after 50 rounds: a loop?');
}

/** The id of the account's newest domain event (0 when none): drain after it to skip set-up events. */
export async function lastEventId(accountId: number) {
  const [row] = await getDb()
    .select({
      id: sql<number>`coalesce(max(${schema.domainEvents.id}), 0)::int`,
    })
    .from(schema.domainEvents)
    .where(eq(schema.domainEvents.accountId, accountId));
  return Number(row.id);
}
