import { eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../db/client';
import { getLogger } from '../app/utils/logger.server';
import { HANDLERS } from './handlers/index';
import { NOTHING_DONE, type EventHandler, type WantedEvent } from './handlers/types';

/**
 * Runs every handler registered for the event's type. Each (event, handler) pair runs to completion once:
 * a redelivered job skips what already ran. A failure is recorded and rethrown so pg-boss retries with backoff.
 */
export async function processEvent(eventId: number, handlers: EventHandler[] = HANDLERS, type?: string) {
  // Most events concern no handler (a tag renamed, a page viewed): when the job says the type, skip them unread.
  if (type && !handlers.some((h) => h.on.includes(type as never))) return { ran: [] };
  const db = getDb();
  // The event and, in the same read, the handlers that already ran it (a redelivery).
  const [row] = await db
    .select({
      event: schema.domainEvents,
      done: sql<string[]>`array(select h.handler from ${schema.eventHandlings} h where h.event_id = ${schema.domainEvents.id} and h.status = 'done')`,
    })
    .from(schema.domainEvents)
    .where(eq(schema.domainEvents.id, eventId));
  if (!row) return { skipped: 'missing' };
  const event = row.event;
  const mine = handlers.filter((h) => h.on.includes(event.type as never));
  if (mine.length === 0) return { ran: [] };
  const log = getLogger();
  const ran: string[] = [];
  const done = new Set(row.done);
  for (const handler of mine) {
    if (done.has(handler.name)) continue;
    try {
      const outcome = await handler.handle(event);
      if (outcome === NOTHING_DONE) continue;
      if (handler.recordsItself) {
        ran.push(handler.name);
        continue;
      }
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

/** Whether some handler could act on the event (see EventHandler.wants): the engine's filter for queueing events. */
export function eventWanted(handlers: EventHandler[]) {
  return async (event: WantedEvent) => {
    for (const handler of handlers) {
      if (!handler.on.includes(event.type as never)) continue;
      if (!handler.wants || (await handler.wants(event))) return true;
    }
    return false;
  };
}
