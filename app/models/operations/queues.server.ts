import { sql } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { QUEUES } from '../../utils/jobs.server';

/**
 * What waits in pg-boss's queues (ADR 150): the metrics (parley_queue_jobs, parley_engine_oldest_unhandled_event_seconds)
 * and the operator console read it. Installation-wide on purpose: the job table is the cluster's, not an account's.
 * Both answers are kept for CACHE_MS, so that frequent scrapes (several nodes, several Prometheus) stay one read.
 */
const CACHE_MS = 5_000;

export type QueueDepth = { queue: string; queued: number; active: number; retrying: number; failed: number };

let depthsCache: { at: number; value: Promise<QueueDepth[]> } | undefined;
let lagCache: { at: number; value: Promise<{ oldestUnhandledSeconds: number | null }> } | undefined;

/**
 * Per queue: jobs due now and not yet fetched (`queued`; a timer's job due later is not counted), fetched and under way
 * (`active`), waiting for a retry after a failure (`retrying`), and failed for good and still in pg-boss's job table
 * (`failed`, until pg-boss archives them; their copies wait in the dead-letter queue).
 */
export function queueDepths(): Promise<QueueDepth[]> {
  const now = Date.now();
  if (depthsCache && now - depthsCache.at < CACHE_MS) return depthsCache.value;
  const value = (async () => {
    const rows = (await getDb().execute(sql`
      select q.name as queue,
             count(*) filter (where j.state = 'created' and j.start_after <= now())::int as queued,
             count(*) filter (where j.state = 'active')::int as active,
             count(*) filter (where j.state = 'retry')::int as retrying,
             count(*) filter (where j.state = 'failed')::int as failed
        from pgboss.queue q
        left join pgboss.job j on j.name = q.name and j.state in ('created', 'active', 'retry', 'failed')
       where not starts_with(q.name, '__pgboss__')
       group by q.name
       order by q.name`)) as unknown as QueueDepth[];
    return rows.map((r) => ({ queue: r.queue, queued: Number(r.queued), active: Number(r.active), retrying: Number(r.retrying), failed: Number(r.failed) }));
  })();
  depthsCache = { at: now, value };
  // A failed read (the database away) is not kept: the next scrape tries again.
  value.catch(() => {
    if (depthsCache?.value === value) depthsCache = undefined;
  });
  return value;
}

/**
 * How long the oldest domain event queued for the engine has waited unhandled: its job is waiting, under way or
 * retrying (null when none is). Events no handler wants are never queued (ADR 031), so they never count.
 */
export function engineLag(): Promise<{ oldestUnhandledSeconds: number | null }> {
  const now = Date.now();
  if (lagCache && now - lagCache.at < CACHE_MS) return lagCache.value;
  const value = (async () => {
    const [row] = (await getDb().execute(sql`
      select extract(epoch from now() - min(created_on))::float8 as seconds
        from pgboss.job
       where name = ${QUEUES.domainEvents} and state in ('created', 'active', 'retry')`)) as unknown as { seconds: number | null }[];
    return { oldestUnhandledSeconds: row?.seconds === null || row?.seconds === undefined ? null : Math.max(0, Number(row.seconds)) };
  })();
  lagCache = { at: now, value };
  value.catch(() => {
    if (lagCache?.value === value) lagCache = undefined;
  });
  return value;
}

/** Drops the cached readings (tests read twice within CACHE_MS). */
export function forgetQueueReadings() {
  depthsCache = undefined;
  lagCache = undefined;
}
