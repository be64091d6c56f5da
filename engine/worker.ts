import type PgBoss from 'pg-boss';
import { getLogger } from '../app/utils/logger.server';
import { isRequestId, runWithCorrelation } from '../app/utils/correlation.server';
import { metrics } from '../app/utils/metrics.server';
import { timed } from './profile';

/**
 * The correlation of one job (ADR 150): the id of the request (or job) that queued it, else the job's own id; and the
 * job's id. Its handler's log lines, and the jobs it queues, carry them.
 */
export function jobCorrelation(job: { id: string; data: Record<string, unknown> }) {
  return { requestId: isRequestId(job.data?.requestId) ? job.data.requestId : job.id, jobId: job.id };
}

/** A batch's data for its handler: each job's data with its job id (the handler runs each item under its correlation). */
const withJobIds = (jobs: PgBoss.Job<Record<string, unknown>>[]) => jobs.map((j) => ({ ...j.data, jobId: j.id }));

export type JobHandler = (data: Record<string, unknown>) => Promise<unknown>;
/** Works a whole fetched batch at once (ADR 043): one answer per job, in order, an Error for a job that failed. */
export type BatchJobHandler = (datas: Record<string, unknown>[]) => Promise<unknown[]>;
/**
 * A batch handler in two stages (ADR 140): it resolves once the batch's first stage is done, with the promise of its
 * answers; its second stage starts only once `after` (the previous batch's second stage) has settled.
 */
export type StagedBatchJobHandler = (datas: Record<string, unknown>[], after: Promise<unknown>) => Promise<{ answers: Promise<unknown[]> }>;

/**
 * Works one queue: fetches a batch, runs its jobs a few at a time, completes the ones that succeeded in one
 * statement and fails the others one by one (so pg-boss retries each with backoff, then dead-letters it).
 * Unlike pg-boss's own `work`, it fetches again at once while there is work, and when the queue is empty it
 * sleeps until woken (ADR 142): by a NOTIFY that a job was queued, or by the engine's one timer (DueJobs) when a
 * delayed job's time has come. An idle queue costs no statement; `pollMs`, when given, still fetches that often.
 */
/** How soon a worker whose fetch failed tries again. */
const FAILED_FETCH_RETRY_MS = 1000;

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
      /** Fetch at least this often while idle; by default an idle worker sleeps until woken. */
      pollMs?: number;
      /** Some jobs failed and pg-boss retries them later (a delayed job): the engine's timer must know. */
      onRetryLater?: () => void;
      /** When given, the batch goes to it whole instead of job by job to `handle`. */
      handleBatch?: BatchJobHandler;
      /**
       * When given (instead of `handleBatch`), the batch goes to it whole, and the next batch is fetched and started as
       * soon as its first stage is done: one batch in its second stage while the next is in its first, never more.
       */
      handleStaged?: StagedBatchJobHandler;
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

  /** The previous batch's second stage and the completion of its jobs (staged handlers only). */
  private later: Promise<void> = Promise.resolve();

  private async run() {
    const log = getLogger();
    try {
      await this.fetchLoop(log);
    } finally {
      await this.later;
    }
  }

  private async fetchLoop(log: ReturnType<typeof getLogger>) {
    while (!this.stopping) {
      this.woken = false;
      let jobs: PgBoss.Job<Record<string, unknown>>[] = [];
      let failed = false;
      try {
        jobs =
          (await timed(`${this.queue}: fetch`, () =>
            this.boss.fetch<Record<string, unknown>>(this.queue, {
              batchSize: this.opts.batchSize,
            }),
          )) ?? [];
      } catch (err) {
        log.warn({ queue: this.queue, err: (err as Error).message }, 'job fetch failed');
        failed = true;
      }
      if (jobs.length > 0) {
        await this.runBatch(jobs);
        continue;
      }
      if (this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        // After a failed fetch (the database away) try again in a second, whatever woke it or not: no NOTIFY comes
        // for the jobs queued meanwhile until the listener is back.
        const pollMs = failed ? Math.min(FAILED_FETCH_RETRY_MS, this.opts.pollMs ?? Infinity) : this.opts.pollMs;
        const timer = pollMs === undefined ? undefined : setTimeout(resolve, pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private async runBatch(jobs: PgBoss.Job<Record<string, unknown>>[]) {
    if (this.opts.handleStaged) return this.runStaged(jobs, this.opts.handleStaged);
    if (this.opts.handleBatch) return this.runWhole(jobs, this.opts.handleBatch);
    const done: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        try {
          await runWithCorrelation(jobCorrelation(job), () => this.handle(job.data));
          done.push(job.id);
        } catch (err) {
          const e = err as Error;
          metrics().engineJobs.inc({ queue: this.queue, result: 'failed' });
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
    if (done.length < jobs.length) this.opts.onRetryLater?.();
  }

  /**
   * Starts the batch and answers once its first stage is done; its second stage and the completion of its jobs go on
   * behind the next batch's first stage. Before answering, the previous batch's second stage is awaited, so no more
   * than one batch is ever in its second stage.
   */
  private async runStaged(jobs: PgBoss.Job<Record<string, unknown>>[], handleStaged: StagedBatchJobHandler) {
    const previous = this.later;
    const allFailed = (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      return jobs.map(() => error);
    };
    let answers: Promise<unknown[]>;
    try {
      answers = (await timed(`${this.queue}: first stage`, () => handleStaged(withJobIds(jobs), previous))).answers;
    } catch (err) {
      answers = Promise.resolve(allFailed(err));
    }
    this.later = timed(`${this.queue}: second stage`, () => answers)
      .catch(allFailed)
      .then((a) => this.settleJobs(jobs, a));
    await previous;
  }

  private async runWhole(jobs: PgBoss.Job<Record<string, unknown>>[], handleBatch: BatchJobHandler) {
    let answers: unknown[];
    try {
      answers = await timed(`${this.queue}: handle batch`, () => handleBatch(withJobIds(jobs)));
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      answers = jobs.map(() => error);
    }
    await this.settleJobs(jobs, answers);
  }

  /** Completes the jobs that succeeded in one statement and fails the others one by one. */
  private async settleJobs(jobs: PgBoss.Job<Record<string, unknown>>[], answers: unknown[]) {
    const done: string[] = [];
    await Promise.all(
      jobs.map(async (job, i) => {
        const answer = answers[i];
        if (!(answer instanceof Error)) return void done.push(job.id);
        metrics().engineJobs.inc({ queue: this.queue, result: 'failed' });
        await this.boss.fail(this.queue, job.id, { message: answer.message ?? String(answer), name: answer.name }).catch(() => {});
      }),
    );
    await this.complete(done);
    if (done.length < jobs.length) this.opts.onRetryLater?.();
  }

  private async complete(done: string[]) {
    if (done.length) {
      metrics().engineJobs.inc({ queue: this.queue, result: 'completed' }, done.length);
      await timed(`${this.queue}: complete`, () => this.boss.complete(this.queue, done)).catch((err) =>
        getLogger().warn({ queue: this.queue, err: (err as Error).message }, 'job completion failed'),
      );
    }
  }
}
