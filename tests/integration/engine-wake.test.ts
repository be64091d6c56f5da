import { afterAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type PgBoss from 'pg-boss';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation, snoozeConversation } from '../../app/models/inbox/conversations.server';
import { enqueueInTx, jobsNotice, parseJobsNotice, QUEUES, startBoss, stopBoss } from '../../app/utils/jobs.server';
import { startEngine } from '../../engine/index';
import { DueJobs } from '../../engine/due-jobs';
import { QueueWorker } from '../../engine/worker';
import { createTestAccount } from '../factories';

/** An idle engine does not poll (ADR 142): these run with every poll and the timer's safety net 10 minutes away. */
const NEVER = 10 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pg-boss's own times of a job (the database's clock on both sides), once it completed. */
async function finished(id: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const [row] = await getDb().execute<{ state: string; started_late: number; done_late: number; created_to_start: number }>(sql`
      select state::text,
             (extract(epoch from started_on - start_after) * 1000)::float8 as started_late,
             (extract(epoch from completed_on - start_after) * 1000)::float8 as done_late,
             (extract(epoch from started_on - created_on) * 1000)::float8 as created_to_start
        from pgboss.job where id = ${id}`);
    if (row?.state === 'completed') return row;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${row?.state ?? 'missing'} after ${ms} ms`);
    await sleep(25);
  }
}

describe('JOBS_CHANNEL notices', () => {
  it('say the queue, and the due time of a delayed job', () => {
    expect(parseJobsNotice(jobsNotice(QUEUES.domainEvents))).toEqual({ queue: QUEUES.domainEvents });
    expect(parseJobsNotice(jobsNotice(QUEUES.snoozeWake, 1_700_000_000_123))).toEqual({ queue: QUEUES.snoozeWake, at: 1_700_000_000_123 });
    expect(parseJobsNotice('sla.breach-check')).toEqual({ queue: 'sla.breach-check' });
  });
});

describe('an idle engine wakes for its jobs without polling', () => {
  let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
  afterAll(async () => {
    await engine?.stop();
    await stopBoss();
  });

  it('works a job queued for now at once, woken by its NOTIFY', async () => {
    engine = await startEngine({ mode: 'inline', concurrency: 1, pollMs: NEVER, maxSleepMs: NEVER });
    // Let the workers' first fetches pass: from here on they sleep.
    await sleep(500);
    for (let i = 0; i < 3; i++) {
      const id = await getDb().transaction((tx) => enqueueInTx(tx, QUEUES.domainEvents, { eventId: 0, type: 'engine_wake_probe' }));
      const job = await finished(id, 5_000);
      expect(job.created_to_start).toBeLessThan(500);
      await sleep(300);
    }
  });

  it('reopens a snoozed conversation within about a second of its time, woken by its one timer', async () => {
    const { account, owner } = await createTestAccount();
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: `wake-${account.id}@example.test` });
    const { conversation } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Later, please',
      contact: { email: 'later@example.com', name: 'Lou Later' },
      message: { kind: 'incoming', text: 'Get back to me in a moment' },
    });
    const until = new Date(Date.now() + 2_000);
    await snoozeConversation({ accountId: account.id, actorId: owner.id, id: conversation.id, until });
    const [job] = await getDb().execute<{ id: string }>(
      sql`select id from pgboss.job where name = ${QUEUES.snoozeWake} and data->>'conversationId' = ${String(conversation.id)}`,
    );
    const done = await finished(job.id, 8_000);
    expect(done.started_late).toBeGreaterThanOrEqual(0);
    expect(done.done_late).toBeLessThan(1_500);
    const [row] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversation.id));
    expect(row.status).toBe('open');
  });

  it('runs several delayed jobs of different queues each at its own time', async () => {
    const at = (ms: number) => new Date(Date.now() + ms);
    const ids = await getDb().transaction(async (tx) => [
      await enqueueInTx(tx, QUEUES.snoozeWake, { accountId: 0, conversationId: 0 }, { startAfter: at(2_500) }),
      await enqueueInTx(tx, QUEUES.snoozeWake, { accountId: 0, conversationId: 0 }, { startAfter: at(1_000) }),
      await enqueueInTx(tx, QUEUES.meetingReminder, { accountId: 0, bookingId: 0, minutes: 0, startsAt: new Date().toISOString() }, { startAfter: at(1_800) }),
    ]);
    for (const id of ids) {
      const done = await finished(id, 8_000);
      expect(done.started_late).toBeGreaterThanOrEqual(0);
      expect(done.done_late).toBeLessThan(1_500);
    }
  });
});

describe('the timer and a queue worker', () => {
  const queue = 'test.engine-wake';
  let boss: PgBoss;
  const stops: (() => unknown)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('finds the jobs queued while nobody listened, and runs a failed job again when pg-boss retries it', async () => {
    boss = await startBoss();
    await boss.createQueue(queue, { name: queue, retryLimit: 2, retryDelay: 1, retryBackoff: false } as PgBoss.Queue);
    // Queued with no NOTIFY, before anything works the queue.
    const early = await boss.send(queue, { attempt: 'early' });
    const attempts: { id: string; at: number }[] = [];
    let failNext = true;
    const worker = new QueueWorker(
      boss,
      queue,
      async (data) => {
        attempts.push({ id: String(data.attempt), at: Date.now() });
        if (data.attempt === 'flaky' && failNext) {
          failNext = false;
          throw new Error('first attempt fails');
        }
      },
      { batchSize: 5, concurrency: 1, onRetryLater: () => void due.recheck() },
    );
    const due = new DueJobs({ queues: [queue], wake: () => worker.wake(), maxSleepMs: NEVER });
    stops.push(
      () => worker.stop(),
      () => due.stop(),
    );
    worker.start();
    await due.start();
    expect((await finished(early!, 5_000)).state).toBe('completed');

    // The worker sleeps with no poll: a job for now needs its wake-up (what the engine's listener does on NOTIFY).
    await sleep(300);
    const flaky = await boss.send(queue, { attempt: 'flaky' });
    worker.wake();
    const done = await finished(flaky!, 8_000);
    const runs = attempts.filter((a) => a.id === 'flaky');
    expect(runs).toHaveLength(2);
    // pg-boss put the retry 1 s after the failure; the timer ran it then, not at a poll.
    expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(900);
    expect(done.done_late).toBeLessThan(1_000);
  });
});
