import { eq } from 'drizzle-orm';
import { getDb, schema, type Tx, type DbOrTx } from '../../../db/client';
import { enqueueInTx, enqueueManyInTx, QUEUES } from '../../utils/jobs.server';
import { currentRequestOrigin } from '../../utils/request-origin.server';
import { singleton } from '../../utils/singleton.server';
import type { DomainEventType } from './types';

export type Actor = { type: 'user'; id: number } | { type: 'system' } | { type: 'engine'; id?: number } | { type: 'contact'; id: number };
export const actorOf = (actorId: number | null | undefined): Actor => (actorId ? { type: 'user', id: actorId } : { type: 'system' });

/**
 * What an automation passes when it changes something: the event that set it off and its rule. Events the change
 * writes then name the engine (and the rule) as their actor and the event as their cause, which is what the loop
 * guard reads. `tx` lets the engine record the action in the same transaction as the change.
 */
export type Cause = { eventId: number; ruleId?: number };
export type Via = { tx?: Tx; cause?: Cause };

/** The actor and cause fields of an event written by a person (actorId) or by an automation (cause). */
export function actorFields(opts: { actorId?: number | null; cause?: Cause }): {
  actor: Actor;
  causedByEventId?: number;
} {
  if (opts.cause)
    return {
      actor: { type: 'engine', id: opts.cause.ruleId },
      causedByEventId: opts.cause.eventId,
    };
  return { actor: actorOf(opts.actorId) };
}

/** Runs in the caller's transaction when there is one, else in a new one. */
export function withTx<T>(tx: Tx | undefined, run: (tx: Tx) => Promise<T>): Promise<T> {
  return tx ? run(tx) : getDb().transaction(run);
}

export type EmitEventInput = {
  accountId: number;
  type: DomainEventType;
  subjectType: string;
  subjectId: string | number;
  payload?: Record<string, unknown>;
  actor?: { type: 'user' | 'system' | 'engine' | 'contact'; id?: number | null };
  causedByEventId?: number | null;
};

/**
 * `db` is the emitting transaction: a filter that reads must read through it, never from the pool, since a pool
 * exhausted by transactions waiting for their filter's read would never free a connection (seen at 20 conversations a second).
 */
type QueueFilter = (event: { accountId: number; type: string; payload: Record<string, unknown>; actorType: string }, db: DbOrTx) => boolean | Promise<boolean>;
const queueFilter = () => singleton('event-queue-filter', () => ({ wanted: undefined as QueueFilter | undefined }));

/**
 * Set by the engine running in this process: whether some handler (or some active rule of the account) could act
 * on an event. Events it declines are still written (history, causes) but not queued (ADR 031). Without a filter
 * (the engine runs elsewhere) every event is queued.
 */
export function setEventQueueFilter(filter: QueueFilter | undefined) {
  queueFilter().wanted = filter;
}

async function wanted(event: { accountId: number; type: string; payload: unknown; actorType: string }, db: DbOrTx) {
  const filter = queueFilter().wanted;
  return !filter || (await filter(event as Parameters<QueueFilter>[0], db));
}

/**
 * Appends a domain event and queues it for the engine, in the caller's transaction: the change,
 * the event and the job commit together or not at all.
 */
export async function emitEvent(tx: Tx, input: EmitEventInput) {
  const origin = currentRequestOrigin();
  const [event] = await tx
    .insert(schema.domainEvents)
    .values({
      accountId: input.accountId,
      type: input.type,
      subjectType: input.subjectType,
      subjectId: String(input.subjectId),
      payload: input.payload ?? {},
      actorType: input.actor?.type ?? 'system',
      actorId: input.actor?.id ?? null,
      causedByEventId: input.causedByEventId ?? null,
      ip: origin?.ip ?? null,
      userAgent: origin?.userAgent ?? null,
    })
    .returning();
  // The type rides along so that the engine skips, without a read, the events no handler listens to.
  if (await wanted(event, tx)) await enqueueInTx(tx, QUEUES.domainEvents, { eventId: event.id, type: event.type });
  return event;
}

/** Many events in one statement (bulk writers such as contact imports), queued for the engine in the same transaction. */
export async function emitEvents(tx: Tx, inputs: EmitEventInput[]) {
  if (inputs.length === 0) return [];
  const origin = currentRequestOrigin();
  const events = await tx
    .insert(schema.domainEvents)
    .values(
      inputs.map((input) => ({
        accountId: input.accountId,
        type: input.type,
        subjectType: input.subjectType,
        subjectId: String(input.subjectId),
        payload: input.payload ?? {},
        actorType: input.actor?.type ?? 'system',
        actorId: input.actor?.id ?? null,
        causedByEventId: input.causedByEventId ?? null,
        ip: origin?.ip ?? null,
        userAgent: origin?.userAgent ?? null,
      })),
    )
    .returning({
      id: schema.domainEvents.id,
      type: schema.domainEvents.type,
      accountId: schema.domainEvents.accountId,
      payload: schema.domainEvents.payload,
      actorType: schema.domainEvents.actorType,
    });
  const queued = [];
  for (const e of events) if (await wanted(e, tx)) queued.push({ eventId: e.id, type: e.type });
  await enqueueManyInTx(tx, QUEUES.domainEvents, queued);
  return events;
}

export async function getEvent(db: DbOrTx, id: number) {
  const [event] = await db.select().from(schema.domainEvents).where(eq(schema.domainEvents.id, id));
  return event;
}
