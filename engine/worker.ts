import type PgBoss from 'pg-boss';
import { getLogger } from '../app/utils/logger.server';
import { timed } from './profile';

export type JobHandler = (data: Record<string, unknown>) => Promise<unknown>;
/** Works a whole fetched batch at once (ADR 043): one answer per job, in order, an Error for a job that failed. */
export type BatchJobHandler = (datas: Record<string, unknown>[]) => Promise<unknown[]>;

/**
 * Works one queue: fetches a batch, runs its jobs a few at a time, completes the ones that succeeded in one
 * statement and fails the others one by one (so pg-boss retries each with backoff, then dead-letters it).
 * Unlike pg-boss's own `work`, it fetches again at once while there is work, and when the queue is empty it
 * sleeps until a NOTIFY says a job was queued (or the poll interval passes, which is what catches timer jobs
 * whose start time has come).
 */
export class QueueWorker {
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private woken = false;

  constructor(
    private readonly boss: PgBoss,
    readonly queue: string,
    private readonly handle: JobHandler,
    private readonly opts: {
      batchSize: number;
      concurrency: number;
      pollMs: number;
      /** When given, the batch goes to it whole instead of job by job to `handle`. */
      handleBatch?: BatchJobHandler;
    },
  ) {}

  start() {
    this.loop ??= this.run();
    return this;
  }

  /** A job was queued: fetch now instead of at the next poll. */
  wake() {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop() {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  private async run() {
    const log = getLogger();
    while (!this.stopping) {
      this.woken = false;
      let jobs: PgBoss.Job<Record<string, unknown>>[] = [];
      try {
        jobs =
          (await timed(`${this.queue}: fetch`, () =>
            this.boss.fetch<Record<string, unknown>>(this.queue, {
              batchSize: this.opts.batchSize,
            }),
          )) ?? [];
      } catch (err) {
        log.warn({ queue: this.queue, err: (err as Error).message }, 'job fetch failed');
      }
      if (jobs.length > 0) {
        await this.runBatch(jobs);
        continue;
      }
      if (this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.opts.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private async runBatch(jobs: PgBoss.Job<Record<string, unknown>>[]) {
    if (this.opts.handleBatch) return this.runWhole(jobs, this.opts.handleBatch);
    const done: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        try {
          await this.handle(job.data);
          done.push(job.id);
        } catch (err) {
          const e = err as Error;
          await this.boss
            .fail(this.queue, job.id, {
              message: e.message ?? String(err),
              name: e.name,
            })
            .catch(() => {});
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, jobs.length) }, lane));
    await this.complete(done);
  }

  private async runWhole(jobs: PgBoss.Job<Record<string, unknown>>[], handleBatch: BatchJobHandler) {
    let answers: unknown[];
    try {
      answers = await timed(`${this.queue}: handle batch`, () => handleBatch(jobs.map((j) => j.data)));
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      answers = jobs.map(() => error);
    }
    const done: string[] = [];
    await Promise.all(
      jobs.map(async (job, i) => {
        const answer = answers[i];
        if (!(answer instanceof Error)) return void done.push(job.id);
        await this.boss.fail(this.queue, job.id, { message: answer.message ?? String(answer), name: answer.name }).catch(() => {});
      }),
    );
    await this.complete(done);
  }

  private async complete(done: string[]) {
    if (done.length) {
      await timed(`${this.queue}: complete`, () => this.boss.complete(this.queue, done)).catch((err) =>
        getLogger().warn({ queue: this.queue, err: (err as Error).message }, 'job completion failed'),
      );
    }
  }
}
