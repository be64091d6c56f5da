import { sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { getLogger } from '../app/utils/logger.server';

/**
 * The one timer of an engine process for jobs that become due later (ADR 142): snooze wake-ups, SLA checks, reminders,
 * retries after a failure, anything queued with pg-boss's `startAfter`. The queues' workers sleep until something
 * wakes them; this timer knows the earliest start time of the waiting jobs of every queue (one indexed read of
 * pgboss.job), sleeps until then and wakes exactly the queues whose jobs are due. A delayed enqueue NOTIFYs its time
 * (`dueAt`), a failure that pg-boss retries later asks for a new read (`recheck`), and at least every `maxSleepMs` it
 * reads again anyway: that catches what nobody announced (jobs pg-boss's cron inserts, jobs of a killed engine that
 * maintenance on another node expired into a retry, a NOTIFY lost while the listening connection was down).
 */
export class DueJobs {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (epoch ms), Infinity when none is. */
  private armedAt = Infinity;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private stopped = false;

  constructor(
    private readonly opts: {
      queues: readonly string[];
      /** Jobs of this queue can be fetched now. */
      wake: (queue: string) => void;
      /** The longest sleep between two reads, whatever is known. */
      maxSleepMs: number;
    },
  ) {}

  /** Reads once (and wakes the queues with due jobs: what waited while no engine ran) and arms the timer. */
  start() {
    return this.recheck();
  }

  /** A job becomes due at `at` (epoch ms): sleep no later than that. */
  dueAt(at: number) {
    if (this.stopped || at >= this.armedAt) return;
    this.arm(at - Date.now());
  }

  /** Reads the waiting jobs again (coalesced: one read at a time, and at most one more after it). */
  recheck(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.read();
      } while (this.readAgain && !this.stopped);
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.armedAt = Infinity;
  }

  private arm(delayMs: number) {
    clearTimeout(this.timer);
    const delay = Math.min(Math.max(0, Math.ceil(delayMs)), this.opts.maxSleepMs);
    this.armedAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.armedAt = Infinity;
      void this.recheck();
    }, delay);
    this.timer.unref();
  }

  private async read() {
    let rows: { name: string; due: boolean; in_ms: number | null }[];
    try {
      rows = await readWaitingJobs(this.opts.queues);
    } catch (err) {
      getLogger().warn({ err: (err as Error).message }, 'engine could not read when its next jobs are due');
      if (!this.stopped) this.arm(Math.min(5_000, this.opts.maxSleepMs));
      return;
    }
    if (this.stopped) return;
    let next = Infinity;
    for (const row of rows) {
      if (row.due) this.opts.wake(row.name);
      if (row.in_ms !== null) next = Math.min(next, row.in_ms);
    }
    // pg-boss fetches jobs whose start_after < now(): the timer fires a millisecond after the earliest one. A notice
    // heard while reading may have armed it sooner for a job this read did not see yet: that time stands.
    this.arm(Math.min(next + 1, this.armedAt - Date.now()));
  }
}

/**
 * Per queue: whether a waiting job (created or retry) can be fetched now, and in how many milliseconds the next one
 * that cannot yet will be. pg-boss 10 keeps one partition of pgboss.job per queue, each with the index job_i5 on
 * (name, start_after) of its waiting jobs: two index probes per queue, whatever the number of jobs.
 */
async function readWaitingJobs(queues: readonly string[]) {
  return (await getDb().execute(sql`
    select q.name,
           exists (select 1 from pgboss.job j where j.name = q.name and j.state < 'active' and j.start_after < now()) as due,
           (select (extract(epoch from j.start_after - now()) * 1000)::float8
              from pgboss.job j
             where j.name = q.name and j.state < 'active' and j.start_after >= now()
             order by j.start_after
             limit 1) as in_ms
      from unnest(${`{${queues.join(',')}}`}::text[]) as q(name)`)) as unknown as { name: string; due: boolean; in_ms: number | null }[];
}
