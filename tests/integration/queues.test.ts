import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../db/client';
import { engineLag, forgetQueueReadings, queueDepths } from '../../app/models/operations/queues.server';
import { enqueueInTx, QUEUES, startBoss } from '../../app/utils/jobs.server';
import { emitEvent } from '../../app/models/events/events.server';
import { runWithCorrelation } from '../../app/utils/correlation.server';
import { createTestAccount } from '../factories';

/** What waits in pg-boss's queues (ADR 150), read from its job table with no engine running in this process. */
describe('queueDepths and engineLag', () => {
  it('count jobs due now per queue and state, leave timers due later out, and age the oldest unhandled event', async () => {
    await startBoss();
    const a = await createTestAccount();
    forgetQueueReadings();
    const depth = (all: Awaited<ReturnType<typeof queueDepths>>, queue: string) => all.find((d) => d.queue === queue);
    const before = await queueDepths();
    expect(before.some((d) => d.queue.startsWith('__pgboss'))).toBe(false);
    expect(depth(before, QUEUES.kbImport)).toEqual({ queue: QUEUES.kbImport, queued: 0, active: 0, retrying: 0, failed: 0 });
    // The account's creation queued its events (no engine here takes them): the oldest has an age.
    const lagBefore = await engineLag();
    expect(lagBefore.oldestUnhandledSeconds).not.toBeNull();

    await getDb().transaction(async (tx) => {
      await enqueueInTx(tx, QUEUES.kbImport, { accountId: a.account.id, importId: 1 });
      await enqueueInTx(tx, QUEUES.kbImport, { accountId: a.account.id, importId: 2 });
      // A timer due in an hour is not work waiting now.
      await enqueueInTx(tx, QUEUES.kbImport, { accountId: a.account.id, importId: 3 }, { startAfter: new Date(Date.now() + 3_600_000) });
      await runWithCorrelation({ requestId: 'queues-test-1' }, () =>
        emitEvent(tx, { accountId: a.account.id, type: 'user_invited', subjectType: 'user', subjectId: a.owner.id, payload: {} }),
      );
    });
    // Cached for 5 s: the same answer until then.
    expect(depth(await queueDepths(), QUEUES.kbImport)?.queued).toBe(0);
    forgetQueueReadings();
    const after = await queueDepths();
    expect(depth(after, QUEUES.kbImport)).toEqual({ queue: QUEUES.kbImport, queued: 2, active: 0, retrying: 0, failed: 0 });
    expect(depth(after, QUEUES.domainEvents)!.queued).toBe(depth(before, QUEUES.domainEvents)!.queued + 1);
    // The event's job carries the id of the request that wrote it.
    const [job] = await getDb().execute<{ data: { requestId?: string; type?: string } }>(
      sql`select data from pgboss.job where name = ${QUEUES.domainEvents} and data->>'type' = 'user_invited' order by created_on desc limit 1`,
    );
    expect(job.data).toMatchObject({ type: 'user_invited', requestId: 'queues-test-1' });

    // A job failed for good and one waiting for its retry.
    await getDb().execute(sql`update pgboss.job set state = 'failed' where name = ${QUEUES.kbImport} and data->>'importId' = '1'`);
    await getDb().execute(sql`update pgboss.job set state = 'retry' where name = ${QUEUES.kbImport} and data->>'importId' = '2'`);
    forgetQueueReadings();
    expect(depth(await queueDepths(), QUEUES.kbImport)).toEqual({ queue: QUEUES.kbImport, queued: 0, active: 0, retrying: 1, failed: 1 });

    // Nothing waiting for the engine: null.
    await getDb().execute(sql`update pgboss.job set state = 'completed' where name = ${QUEUES.domainEvents}`);
    forgetQueueReadings();
    expect(await engineLag()).toEqual({ oldestUnhandledSeconds: null });
  });
});
