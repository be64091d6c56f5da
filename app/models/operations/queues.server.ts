import { getSql } from '../../../db/client';
import { QUEUES } from '../../utils/jobs.server';

/*
 * PLACEHOLDER for helper A's file (issue 37): the lead keeps A's at merge. Same signatures, simple bodies.
 */

/** Jobs per queue and state, from pg-boss's own table. */
export async function queueDepths(): Promise<Array<{ queue: string; queued: number; active: number; retrying: number; failed: number }>> {
  const rows = await getSql()<{ queue: string; queued: number; active: number; retrying: number; failed: number }[]>`
    select name as queue,
      count(*) filter (where state = 'created')::int as queued,
      count(*) filter (where state = 'active')::int as active,
      count(*) filter (where state = 'retry')::int as retrying,
      count(*) filter (where state = 'failed')::int as failed
    from pgboss.job group by name order by name`;
  return rows.map((r) => ({ ...r }));
}

/** How long the oldest domain event waiting for the engine has waited. */
export async function engineLag(): Promise<{ oldestUnhandledSeconds: number | null }> {
  const [row] = await getSql()<{ s: number | null }[]>`
    select extract(epoch from now() - min(created_on))::float8 as s from pgboss.job
    where name = ${QUEUES.domainEvents} and state in ('created', 'retry', 'active')`;
  return { oldestUnhandledSeconds: row?.s ?? null };
}
