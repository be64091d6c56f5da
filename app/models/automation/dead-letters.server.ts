/**
 * Failed automations: jobs that used up their retries and that pg-boss moved to the dead-letter queue. pg-boss
 * copies only the job's data and last error there, so a dead letter is tied to an account through what its data
 * names (a domain event, a message, or the account itself) and to its queue through the original failed job.
 */
import { sql, type SQL } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db/client';
import { enqueueInTx, QUEUES, WORK_QUEUES } from '../../utils/jobs.server';
import { actorOf, emitEvent } from '../events/events.server';

/** pg-boss's schema (its default; Parley does not change it). */
const BOSS = sql.raw('pgboss');
export const DEAD_LETTERS_PAGE_SIZE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type DeadLetter = {
  id: string;
  data: Record<string, unknown>;
  /** When the job ended up here (its last attempt failed). */
  failedAt: Date;
  /** The queue the job came from, when it can still be told (see queueOf). */
  queue: string | null;
  attempts: number | null;
  eventId: number | null;
  eventType: string | null;
  occurredAt: Date | null;
  subjectType: string | null;
  subjectId: string | null;
  messageId: number | null;
  conversationId: number | null;
  error: string | null;
};

type Row = {
  id: string;
  data: Record<string, unknown>;
  failed_at: Date | string;
  original_queue: string | null;
  attempts: number | null;
  event_id: string | number | null;
  event_type: string | null;
  occurred_at: Date | string | null;
  subject_type: string | null;
  subject_id: string | null;
  message_id: string | number | null;
  conversation_id: number | null;
  output_error: string | null;
  handler_error: string | null;
};

/**
 * The account a dead letter belongs to: a domain-event job's event's, a delivery's message's, else the account id
 * the job carries. A job naming a row that no longer exists belongs to nobody and is not shown.
 */
const accountOf = sql`case
  when j.data ? 'eventId' then e.account_id
  when j.data ? 'messageId' then m.account_id
  when (j.data->>'accountId') ~ '^[0-9]{1,9}$' then (j.data->>'accountId')::int
end`;

function select(db: DbOrTx, opts: { accountId: number; id?: string; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? DEAD_LETTERS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const byId: SQL = opts.id ? sql`and j.id = ${opts.id}::uuid` : sql``;
  return db.execute<Row>(sql`
    select j.id::text as id, j.data, j.created_on as failed_at,
      orig.name as original_queue, orig.retry_count as attempts,
      e.id as event_id, e.type as event_type, e.occurred_at, e.subject_type, e.subject_id,
      m.id as message_id, m.conversation_id,
      coalesce(j.output->>'message', j.output->'value'->>'message') as output_error,
      (select h.error from event_handlings h
        where h.event_id = e.id and h.account_id = ${opts.accountId} and h.status = 'failed'
        order by h.handled_at desc limit 1) as handler_error
    from ${BOSS}.job j
    left join domain_events e on e.id = case when (j.data->>'eventId') ~ '^[0-9]{1,18}$' then (j.data->>'eventId')::bigint end
    left join messages m on m.id = case when (j.data->>'messageId') ~ '^[0-9]{1,18}$' then (j.data->>'messageId')::bigint end
    -- pg-boss writes the failed job and its dead letter in one statement: same data, same timestamp.
    left join lateral (
      select o.name, o.retry_count from (
        select name, retry_count from ${BOSS}.job where state = 'failed' and completed_on = j.created_on and data = j.data and name <> ${QUEUES.deadLetters}
        union all
        select name, retry_count from ${BOSS}.archive where state = 'failed' and completed_on = j.created_on and data = j.data and name <> ${QUEUES.deadLetters}
      ) o limit 1
    ) orig on true
    where j.name = ${QUEUES.deadLetters} and j.state = 'created' and ${accountOf} = ${opts.accountId} ${byId}
    order by j.created_on desc, j.id
    limit ${pageSize} offset ${(page - 1) * pageSize}
  `);
}

function toDeadLetter(r: Row): DeadLetter {
  const data = r.data ?? {};
  return {
    id: r.id,
    data,
    failedAt: new Date(r.failed_at),
    queue: queueOf(r.original_queue, data),
    attempts: r.attempts === null ? null : Number(r.attempts) + 1,
    eventId: r.event_id === null ? null : Number(r.event_id),
    eventType: r.event_type,
    occurredAt: r.occurred_at ? new Date(r.occurred_at) : null,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    messageId: r.message_id === null ? null : Number(r.message_id),
    conversationId: r.conversation_id,
    error: r.output_error ?? r.handler_error,
  };
}

/**
 * The queue to send a dead letter back to: the original failed job's, while pg-boss keeps it (7 days in its
 * archive); else what the data's shape says, where only one queue carries that shape. Timers that carry only
 * { accountId, conversationId } (snooze, auto-resolve) cannot be told apart then: null, no retry.
 */
export function queueOf(originalQueue: string | null, data: Record<string, unknown>): string | null {
  if (originalQueue && (WORK_QUEUES as readonly string[]).includes(originalQueue)) return originalQueue;
  if ('eventId' in data) return QUEUES.domainEvents;
  if ('messageId' in data) return QUEUES.channelDeliver;
  if ('importId' in data) return QUEUES.contactImport;
  if ('target' in data && 'dueAt' in data) return QUEUES.slaBreachCheck;
  return null;
}

const JOB_LABELS: Record<string, string> = {
  [QUEUES.channelDeliver]: 'Message delivery',
  [QUEUES.contactImport]: 'Contact import',
  [QUEUES.snoozeWake]: 'Snooze wake-up',
  [QUEUES.channelAutoResolve]: 'Auto-resolve',
  [QUEUES.slaBreachCheck]: 'SLA check',
};

/** What failed, in a word: the domain event's type, else the kind of job. */
export function deadLetterLabel(letter: Pick<DeadLetter, 'eventType' | 'queue'>) {
  return letter.eventType ?? (letter.queue ? JOB_LABELS[letter.queue] : undefined) ?? 'Timer';
}

export async function listDeadLetters(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? DEAD_LETTERS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const [rows, [{ total }]] = await Promise.all([
    select(db, { ...opts, page, pageSize }),
    db.execute<{ total: number }>(sql`
      select count(*)::int as total
      from ${BOSS}.job j
      left join domain_events e on e.id = case when (j.data->>'eventId') ~ '^[0-9]{1,18}$' then (j.data->>'eventId')::bigint end
      left join messages m on m.id = case when (j.data->>'messageId') ~ '^[0-9]{1,18}$' then (j.data->>'messageId')::bigint end
      where j.name = ${QUEUES.deadLetters} and j.state = 'created' and ${accountOf} = ${opts.accountId}
    `),
  ]);
  return {
    rows: [...rows].map(toDeadLetter),
    total: Number(total),
    page,
    pageSize,
  };
}

export async function getDeadLetter(opts: { accountId: number; id: string }, db: DbOrTx = getDb()) {
  if (!UUID.test(opts.id)) return undefined;
  const [row] = await select(db, {
    accountId: opts.accountId,
    id: opts.id,
    pageSize: 1,
  });
  return row ? toDeadLetter(row) : undefined;
}

export class DeadLetterNotRetriableError extends Error {}

/**
 * Sends the job back to its queue (a fresh job with the same data and the queue's retries) and removes the dead
 * letter, in one transaction. Returns undefined when the account has no such dead letter (or it was just taken).
 */
export async function retryDeadLetter(opts: { accountId: number; actorId: number | null; id: string }) {
  return getDb().transaction(async (tx) => {
    const letter = await getDeadLetter(opts, tx);
    if (!letter) return undefined;
    if (!letter.queue) throw new DeadLetterNotRetriableError('This job cannot be retried: its queue is no longer known. Dismiss it instead.');
    // The delete claims the letter: of two retries at once, only one finds it.
    const removed = await tx.execute(sql`delete from ${BOSS}.job where name = ${QUEUES.deadLetters} and id = ${letter.id}::uuid returning id`);
    if (removed.length === 0) return undefined;
    const jobId = await enqueueInTx(tx, letter.queue, letter.data);
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'dead_letter_retried',
      subjectType: 'job',
      subjectId: letter.id,
      payload: {
        queue: letter.queue,
        jobId,
        eventId: letter.eventId,
        messageId: letter.messageId,
      },
      actor: actorOf(opts.actorId),
    });
    return { ...letter, jobId };
  });
}

/** Removes the dead letter without running it again. */
export async function dismissDeadLetter(opts: { accountId: number; actorId: number | null; id: string }) {
  return getDb().transaction(async (tx) => {
    const letter = await getDeadLetter(opts, tx);
    if (!letter) return undefined;
    const removed = await tx.execute(sql`delete from ${BOSS}.job where name = ${QUEUES.deadLetters} and id = ${letter.id}::uuid returning id`);
    if (removed.length === 0) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'dead_letter_dismissed',
      subjectType: 'job',
      subjectId: letter.id,
      payload: {
        queue: letter.queue,
        eventId: letter.eventId,
        messageId: letter.messageId,
        error: letter.error,
      },
      actor: actorOf(opts.actorId),
    });
    return letter;
  });
}
