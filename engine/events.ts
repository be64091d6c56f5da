import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../db/client';
import { getEvent } from '../app/models/events/events.server';
import { getLogger } from '../app/utils/logger.server';
import { HANDLERS } from './handlers/index';
import { NOTHING_DONE, type EventHandler } from './handlers/types';

/**
 * Runs every handler registered for the event's type. Each (event, handler) pair runs to completion once:
 * a redelivered job skips what already ran. A failure is recorded and rethrown so pg-boss retries with backoff.
 */
export async function processEvent(eventId: number, handlers: EventHandler[] = HANDLERS) {
  const db = getDb();
  const event = await getEvent(db, eventId);
  if (!event) return { skipped: 'missing' };
  const mine = handlers.filter((h) => h.on.includes(event.type as never));
  if (mine.length === 0) return { ran: [] };
  const log = getLogger();
  const ran: string[] = [];
  // One read for every handler's earlier run of this event (a redelivery).
  const done = new Set(
    (
      await db
        .select({ handler: schema.eventHandlings.handler })
        .from(schema.eventHandlings)
        .where(and(eq(schema.eventHandlings.eventId, event.id), eq(schema.eventHandlings.status, 'done')))
    ).map((r) => r.handler),
  );
  for (const handler of mine) {
    if (done.has(handler.name)) continue;
    try {
      const outcome = await handler.handle(event);
      if (outcome === NOTHING_DONE) continue;
      const result = outcome ?? {};
      await db
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: handler.name, accountId: event.accountId, status: 'done', result })
        .onConflictDoUpdate({
          target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
          set: { status: 'done', result, error: null, handledAt: new Date() },
        });
      ran.push(handler.name);
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      log.error({ eventId: event.id, type: event.type, handler: handler.name, err: message }, 'event handler failed');
      await db
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: handler.name, accountId: event.accountId, status: 'failed', error: message })
        .onConflictDoUpdate({
          target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
          set: { status: 'failed', error: message, handledAt: new Date() },
        });
      throw err;
    }
  }
  return { ran };
}
