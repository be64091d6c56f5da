import type { DbOrTx, schema } from '../../db/client';
import type { DomainEventType } from '../../app/models/events/types';

export type DomainEvent = typeof schema.domainEvents.$inferSelect;

/** A reaction to domain events. It must call app/models functions only, so that the UI and the engine share one set of rules. */
export type EventHandler = {
  name: string;
  on: DomainEventType[];
  /** Returns what it did; NOTHING_DONE when the event did not concern it (nothing to remember, nothing to redo). */
  handle: (event: DomainEvent) => Promise<HandlerOutcome>;
  /**
   * Whether the handler could do anything for an event of one of its types; false only when `handle` would surely
   * answer NOTHING_DONE. An event no handler wants is written but not queued (ADR 031). Absent: always wanted.
   */
  /**
   * The handler for a batch of events (ADR 043): one answer per event, in order, an Error for an event that failed.
   * The engine uses it instead of `handle` when it works a fetched batch; it must do what `handle` does for each.
   */
  handleBatch?: (events: DomainEvent[]) => Promise<(HandlerOutcome | Error)[]>;
  /** The handler writes its event_handlings row itself, in the transaction of its work (one commit, not two). */
  recordsItself?: boolean;
  /**
   * The handler reads only the committed log and writes only its own tables, so its work on a batch does not depend
   * on the other handlers' work on it (ADR 127): it runs at the same time as they do, once the handlers that complete
   * an event's payload have run. Its failure fails the event's job; the others' failures do not stop it (it is
   * idempotent on the redelivery, as every handler is).
   */
  alongside?: boolean;
  /**
   * The handler does not depend on the work of the handlers next to it in the chain that are `parallel` too, nor they
   * on its: such a run of handlers works a batch at the same time (ADR 139), after the chain's earlier handlers and
   * before its later ones. A failure of one does not stop the others of the run on that event.
   */
  parallel?: boolean;
  /** The handler completes the event's payload (in the database and on the object): `alongside` handlers wait for it. */
  completesPayload?: boolean;
  /** `db` is the emitting transaction: read through it, never from the pool (see setEventQueueFilter). */
  wants?: (event: WantedEvent, db?: DbOrTx) => boolean | Promise<boolean>;
};

export type HandlerOutcome = Record<string, unknown> | void | typeof NOTHING_DONE;

/** What is known of an event when it is written, before any read. */
export type WantedEvent = Pick<DomainEvent, 'accountId' | 'type' | 'payload' | 'actorType'>;

/** A handler's answer when it had nothing to do: the engine then writes no record of the run (most events, most handlers). */
export const NOTHING_DONE = Symbol('nothing done');

/** How many jobs (or events of a batch) the engine works at once: PARLEY_ENGINE_CONCURRENCY, 8 by default. */
export function engineConcurrency() {
  return Number(process.env.PARLEY_ENGINE_CONCURRENCY ?? 8) || 8;
}
