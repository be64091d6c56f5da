import { inArray, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../db/client';
import { getLogger } from '../app/utils/logger.server';
import { newRequestId, runWithCorrelation, type Correlation } from '../app/utils/correlation.server';
import { metrics } from '../app/utils/metrics.server';
import { HANDLERS } from './handlers/index';
import { timed } from './profile';
import { engineConcurrency, NOTHING_DONE, type DomainEvent, type EventHandler, type HandlerOutcome, type WantedEvent } from './handlers/types';

export type EventOutcome = { ran: string[] } | { skipped: 'missing' };

/**
 * Runs every handler registered for the event's type. Each (event, handler) pair runs to completion once:
 * a redelivered job skips what already ran. A failure is recorded and rethrown so pg-boss retries with backoff.
 */
export async function processEvent(eventId: number, handlers: EventHandler[] = HANDLERS, type?: string) {
  const [outcome] = await processEventBatch([{ eventId, type }], handlers);
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

/**
 * `processEvent` for a fetched batch of jobs (ADR 043). The events and what already ran of them are one read; then
 * handler by handler, in the order of HANDLERS, the events that need it: a handler with `handleBatch` takes them
 * all at once (automation: facts in one query, the unmatched decisions in one statement), the others run event by
 * event a few at a time; the records of what each did are one insert per handler. An event whose handler fails
 * skips its later handlers and answers its error (its job is failed and retried alone); the others go on.
 */
/** One job's event; `requestId` and `jobId` are its correlation (ADR 150): the request that wrote it, and the job. */
export type EventItem = { eventId: number; type?: string; requestId?: string; jobId?: string };

export async function processEventBatch(items: EventItem[], handlers: EventHandler[] = HANDLERS): Promise<(EventOutcome | Error)[]> {
  const { answers } = await processEventBatchStaged(items, handlers);
  return answers;
}

/**
 * `processEventBatch` in two stages (ADR 140): it answers once the handlers before the first `parallel` one have
 * worked the batch (the workflows and routing), with the promise of the batch's answers. The later handlers (and the
 * `alongside` ones) wait for `after` first, the previous batch's later stage: the engine's loop starts the next
 * batch's workflows while this batch's SLA timers, notifications and webhooks run, and each handler still works the
 * batches one after the other, in the order they were fetched (a follow-up event never reaches a handler before its
 * cause).
 */
export async function processEventBatchStaged(
  items: EventItem[],
  handlers: EventHandler[] = HANDLERS,
  after: Promise<unknown> = Promise.resolve(),
): Promise<{ answers: Promise<(EventOutcome | Error)[]> }> {
  const out: (EventOutcome | Error)[] = items.map(() => ({ ran: [] }));
  // Most events concern no handler (a tag renamed, a page viewed): when the job says the type, skip them unread.
  const toRead = items.map((item, at) => ({ ...item, at })).filter((item) => !item.type || handlers.some((h) => h.on.includes(item.type as never)));
  if (toRead.length === 0) return { answers: Promise.resolve(out) };
  const db = getDb();
  // The events and, in the same read, the handlers that already ran each (a redelivery).
  let rows: { event: DomainEvent; done: string[] }[];
  try {
    rows = await timed('events: read', () =>
      db
        .select({
          event: schema.domainEvents,
          done: sql<string[]>`array(select h.handler from ${schema.eventHandlings} h where h.event_id = ${schema.domainEvents.id} and h.status = 'done')`,
        })
        .from(schema.domainEvents)
        .where(
          inArray(
            schema.domainEvents.id,
            toRead.map((t) => t.eventId),
          ),
        ),
    );
  } catch (err) {
    for (const t of toRead) out[t.at] = err as Error;
    return { answers: Promise.resolve(out) };
  }
  const byId = new Map(rows.map((r) => [Number(r.event.id), r]));
  type Work = { at: number; event: DomainEvent; done: Set<string>; ran: string[]; failed: boolean; correlation: Correlation };
  const work: Work[] = [];
  // The same event twice in a batch (queued twice) runs once; the second job answers as the first.
  const twins: { at: number; first: number }[] = [];
  const firstAt = new Map<number, number>();
  for (const t of toRead) {
    if (firstAt.has(t.eventId)) {
      twins.push({ at: t.at, first: firstAt.get(t.eventId)! });
      continue;
    }
    firstAt.set(t.eventId, t.at);
    const row = byId.get(t.eventId);
    if (!row) {
      out[t.at] = { skipped: 'missing' };
      continue;
    }
    // The event's handlers log under the id of the request that wrote it (else the job's, else a new one).
    const requestId = t.requestId ?? t.jobId ?? newRequestId();
    const w = { at: t.at, event: row.event, done: new Set(row.done), ran: [] as string[], failed: false, correlation: { requestId, jobId: t.jobId } };
    work.push(w);
    out[t.at] = { ran: w.ran };
  }
  const log = getLogger();
  /** Runs one handler on the events that need it; answers how to apply its outcomes (after the others, if alongside). */
  const run = async (handler: EventHandler, mine: Work[]) => {
    let outcomes: (HandlerOutcome | Error)[];
    if (handler.handleBatch) {
      try {
        // A batch handler works every event at once: under their correlation when they share one (one request's events).
        const one = mine.every((w) => w.correlation.requestId === mine[0].correlation.requestId) ? mine[0].correlation : undefined;
        const all = () => handler.handleBatch!(mine.map((w) => w.event));
        outcomes = await timed(`handler ${handler.name}`, () => (one ? runWithCorrelation({ requestId: one.requestId, jobId: mine.length === 1 ? one.jobId : undefined }, all) : all()));
      } catch (err) {
        outcomes = mine.map(() => err as Error);
      }
    } else {
      outcomes = new Array(mine.length);
      let next = 0;
      const lane = async () => {
        while (next < mine.length) {
          const i = next++;
          try {
            outcomes[i] = await runWithCorrelation(mine[i].correlation, () => handler.handle(mine[i].event));
          } catch (err) {
            outcomes[i] = err as Error;
          }
        }
      };
      await timed(`handler ${handler.name}`, () => Promise.all(Array.from({ length: Math.min(engineConcurrency(), mine.length) }, lane)));
    }
    return outcomes;
  };
  const settle = async (handler: EventHandler, mine: Work[], outcomes: (HandlerOutcome | Error)[]) => {
    const records: (typeof schema.eventHandlings.$inferInsert)[] = [];
    for (const [i, w] of mine.entries()) {
      const outcome = outcomes[i];
      if (outcome instanceof Error) {
        const message = outcome.message ?? String(outcome);
        log.error({ ...w.correlation, eventId: w.event.id, type: w.event.type, handler: handler.name, err: message }, 'event handler failed');
        records.push({ eventId: w.event.id, handler: handler.name, accountId: w.event.accountId, status: 'failed', error: message });
        // An event that already failed keeps its first error.
        if (!w.failed) out[w.at] = outcome;
        w.failed = true;
        continue;
      }
      if (outcome === NOTHING_DONE) continue;
      w.ran.push(handler.name);
      if (!handler.recordsItself)
        records.push({ eventId: w.event.id, handler: handler.name, accountId: w.event.accountId, status: 'done', result: outcome ?? {} });
    }
    if (records.length > 0) {
      try {
        await timed('events: handler records', () =>
          db
            .insert(schema.eventHandlings)
            .values(records)
            .onConflictDoUpdate({
              target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
              set: {
                status: sql`excluded.status`,
                result: sql`coalesce(excluded.result, ${schema.eventHandlings.result})`,
                error: sql`excluded.error`,
                handledAt: new Date(),
              },
            }),
        );
      } catch (err) {
        // Without its record a handler that acted would run again on the redelivery: fail those events.
        for (const w of mine) {
          if (w.failed || !records.some((r) => r.eventId === w.event.id)) continue;
          w.failed = true;
          out[w.at] = err as Error;
        }
      }
    }
  };
  const needs = (handler: EventHandler) => work.filter((w) => !w.failed && handler.on.includes(w.event.type as never) && !w.done.has(handler.name));
  // Handlers that count from the committed log (ADR 127) run at the same time as the chain, once the handlers that
  // complete payloads have run; their outcomes are applied after the chain's, so the chain never sees them half-way.
  // PARLEY_ENGINE_ALONGSIDE=0 runs them in the chain, in their place (to measure what running alongside gains).
  const together = process.env.PARLEY_ENGINE_ALONGSIDE !== '0';
  const alongside = handlers.filter((h) => together && h.alongside);
  const chain = handlers.filter((h) => !alongside.includes(h));
  const lastCompleter = chain.reduce((at, h, i) => (h.completesPayload ? i : at), -1);
  let started: Promise<void>[] = [];
  const settleAlongside: (() => Promise<void>)[] = [];
  // The previous batch's later stage, settled (its failures are its own events'): what this batch's later stage waits for.
  const previous = after.then(
    () => undefined,
    () => undefined,
  );
  const startAlongside = () => {
    started = alongside.map(async (handler) => {
      await previous;
      const mine = needs(handler);
      if (mine.length === 0) return;
      const outcomes = await run(handler, mine);
      settleAlongside.push(() => settle(handler, mine, outcomes));
    });
  };
  if (lastCompleter < 0) startAlongside();
  // PARLEY_ENGINE_PARALLEL=0 runs `parallel` handlers one after the other (to measure what running them together gains).
  const parallelOn = process.env.PARLEY_ENGINE_PARALLEL !== '0';
  /** Runs the chain's handlers from `from` up to (not including) `to`. */
  const runChain = async (from: number, to: number) => {
    for (let i = from; i < to; ) {
      // A run of `parallel` handlers works the batch at the same time; its records are written in the chain's order.
      let end = i + 1;
      while (parallelOn && chain[i].parallel && end < to && chain[end].parallel && end - 1 !== lastCompleter) end++;
      const group = chain.slice(i, end).map((handler) => ({ handler, mine: needs(handler) })).filter((g) => g.mine.length > 0);
      const outcomes = await Promise.all(group.map((g) => run(g.handler, g.mine)));
      for (const [k, g] of group.entries()) await settle(g.handler, g.mine, outcomes[k]);
      if (lastCompleter >= i && lastCompleter < end) startAlongside();
      i = end;
    }
  };
  // The first stage: the chain up to its first `parallel` handler (never before the handlers that complete payloads).
  // PARLEY_ENGINE_OVERLAP=0 works the whole chain before answering (to measure what overlapping batches gains).
  const overlap = process.env.PARLEY_ENGINE_OVERLAP !== '0';
  const firstParallel = chain.findIndex((h, i) => h.parallel && i > lastCompleter);
  const split = overlap && firstParallel >= 0 ? firstParallel : chain.length;
  await runChain(0, split);
  const rest = async () => {
    await previous;
    await runChain(split, chain.length);
    await Promise.all(started);
    for (const s of settleAlongside) await s();
    for (const t of twins) out[t.at] = out[t.first];
    noteHandled(work, log);
    return out;
  };
  const answers = rest();
  // Nothing left for later: the whole batch is done when this answers (a caller that does not overlap sees no change).
  if (split === chain.length) await answers.catch(() => {});
  return { answers };
}

/**
 * The engine's lag (ADR 150): for each event of the batch its handlers worked without failing, the time from its
 * writing to now, into the histogram; and, at debug level, one line per event under its correlation.
 */
function noteHandled(work: { event: DomainEvent; ran: string[]; failed: boolean; correlation: Correlation }[], log: ReturnType<typeof getLogger>) {
  const now = Date.now();
  const lag = metrics().engineLag;
  const debug = log.isLevelEnabled('debug');
  for (const w of work) {
    if (w.failed) continue;
    const seconds = Math.max(0, now - new Date(w.event.occurredAt).getTime()) / 1000;
    lag.observe(seconds);
    if (debug) runWithCorrelation(w.correlation, () => log.debug({ eventId: w.event.id, type: w.event.type, ran: w.ran, lagMs: Math.round(seconds * 1000) }, 'event handled'));
  }
}

/** Whether some handler could act on the event (see EventHandler.wants): the engine's filter for queueing events. */
export function eventWanted(handlers: EventHandler[]) {
  return async (event: WantedEvent, db?: DbOrTx) => {
    for (const handler of handlers) {
      if (!handler.on.includes(event.type as never)) continue;
      if (!handler.wants || (await handler.wants(event, db))) return true;
    }
    return false;
  };
}
