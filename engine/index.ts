import os from 'node:os';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../db/client';
import { getEvent } from '../app/models/events/events.server';
import { QUEUES, startBoss } from '../app/utils/jobs.server';
import { getLogger } from '../app/utils/logger.server';
import { HANDLERS } from './handlers/index';
import type { EventHandler } from './handlers/types';
import { engineState, HEARTBEAT_MS, removeHeartbeat, writeHeartbeat } from './status';

/**
 * Runs every handler registered for the event's type. Each (event, handler) pair runs to completion once:
 * a redelivered job skips what already ran. A failure is recorded and rethrown so pg-boss retries with backoff.
 */
export async function processEvent(eventId: number, handlers: EventHandler[] = HANDLERS) {
  const db = getDb();
  const event = await getEvent(db, eventId);
  if (!event) return { skipped: 'missing' };
  const log = getLogger();
  const ran: string[] = [];
  for (const handler of handlers.filter((h) => h.on.includes(event.type as never))) {
    const [done] = await db
      .select({ status: schema.eventHandlings.status })
      .from(schema.eventHandlings)
      .where(and(eq(schema.eventHandlings.eventId, event.id), eq(schema.eventHandlings.handler, handler.name)));
    if (done?.status === 'done') continue;
    try {
      const result = (await handler.handle(event)) ?? {};
      await db
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: handler.name, accountId: event.accountId, status: 'done', result })
        .onConflictDoUpdate({ target: [schema.eventHandlings.eventId, schema.eventHandlings.handler], set: { status: 'done', result, error: null, handledAt: new Date() } });
      ran.push(handler.name);
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      log.error({ eventId: event.id, type: event.type, handler: handler.name, err: message }, 'event handler failed');
      await db
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: handler.name, accountId: event.accountId, status: 'failed', error: message })
        .onConflictDoUpdate({ target: [schema.eventHandlings.eventId, schema.eventHandlings.handler], set: { status: 'failed', error: message, handledAt: new Date() } });
      throw err;
    }
  }
  return { ran };
}

type Running = { stop: () => Promise<void> };

/** Starts consuming domain events. `mode` is 'inline' inside the web process, 'external' for `npm run engine`. */
export async function startEngine(opts: { mode: 'inline' | 'external'; concurrency?: number }): Promise<Running> {
  const boss = await startBoss();
  const log = getLogger();
  const workerIds: string[] = [];
  for (let i = 0; i < (opts.concurrency ?? 2); i++) {
    workerIds.push(
      await boss.work<{ eventId: number }>(QUEUES.domainEvents, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
        for (const job of jobs) await processEvent(job.data.eventId);
      }),
    );
  }
  const state = engineState();
  state.mode = opts.mode;
  state.running = true;
  const heartbeatId = `${os.hostname()}:${process.pid}`;
  const beat = () => writeHeartbeat(heartbeatId).catch((err) => log.warn({ err: (err as Error).message }, 'engine heartbeat failed'));
  await beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  log.info({ mode: opts.mode }, 'engine consuming domain events');
  return {
    async stop() {
      clearInterval(timer);
      state.running = false;
      for (const id of workerIds) await boss.offWork({ id } as never).catch(() => {});
      await removeHeartbeat(heartbeatId).catch(() => {});
    },
  };
}
