import { eq } from 'drizzle-orm';
import { schema, type Tx, type DbOrTx } from '../../../db/client';
import { enqueueInTx, enqueueManyInTx, QUEUES } from '../../utils/jobs.server';
import type { DomainEventType } from './types';

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
 * Appends a domain event and queues it for the engine, in the caller's transaction: the change,
 * the event and the job commit together or not at all.
 */
export async function emitEvent(tx: Tx, input: EmitEventInput) {
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
    })
    .returning();
  await enqueueInTx(tx, QUEUES.domainEvents, { eventId: event.id });
  return event;
}

/** Many events in one statement (bulk writers such as contact imports), queued for the engine in the same transaction. */
export async function emitEvents(tx: Tx, inputs: EmitEventInput[]) {
  if (inputs.length === 0) return [];
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
      })),
    )
    .returning({ id: schema.domainEvents.id });
  await enqueueManyInTx(
    tx,
    QUEUES.domainEvents,
    events.map((e) => ({ eventId: e.id })),
  );
  return events;
}

export async function getEvent(db: DbOrTx, id: number) {
  const [event] = await db.select().from(schema.domainEvents).where(eq(schema.domainEvents.id, id));
  return event;
}
