import os from 'node:os';
import { JOBS_CHANNEL, markEngineProcess, parseJobsNotice, QUEUES, startBoss } from '../app/utils/jobs.server';
import { getSql } from '../db/client';
import { BATCH_JOB_HANDLERS, JOB_HANDLERS, STAGED_JOB_HANDLERS } from './jobs/index';
import { getLogger } from '../app/utils/logger.server';
import { engineState, HEARTBEAT_MS, removeHeartbeat, writeHeartbeat } from './status';
import { QueueWorker } from './worker';
import { DueJobs } from './due-jobs';
import { HANDLERS } from './handlers/index';
import { eventWanted } from './events';
import { startRuleCache, stopRuleCache } from '../app/models/automation/rule-cache.server';
import { setEventQueueFilter } from '../app/models/events/events.server';

export { processEvent } from './events';

type Running = { stop: () => Promise<void> };

/** The longest the engine sleeps without reading when its next jobs are due (ADR 142): the safety net of its timer. */
export const DUE_JOBS_MAX_SLEEP_MS = 30_000;

/**
 * Starts working every queue (domain events, channel deliveries, timers). `mode` is 'inline' inside the web process,
 * 'external' for `npm run engine`. `concurrency` is how many jobs of one queue run at once.
 *
 * An idle engine runs no statement of its own but its heartbeat (ADR 142): each queue's worker sleeps until a NOTIFY
 * on JOBS_CHANNEL says a job was queued, and one timer (DueJobs) wakes the queues whose delayed jobs are due.
 * `pollMs` (tests) makes every worker fetch that often besides; `maxSleepMs` bounds the timer's sleep.
 */
export async function startEngine(opts: { mode: 'inline' | 'external'; concurrency?: number; pollMs?: number; maxSleepMs?: number }): Promise<Running> {
  // pg-boss's maintenance (which expires the jobs of a killed engine) and cron run where an engine runs.
  markEngineProcess();
  const boss = await startBoss();
  const log = getLogger();
  const concurrency = opts.concurrency ?? Number(process.env.PARLEY_ENGINE_CONCURRENCY ?? 8);
  const workers = new Map<string, QueueWorker[]>();
  const wake = (queue: string) => workers.get(queue)?.forEach((w) => w.wake());
  const due = new DueJobs({ queues: Object.keys(JOB_HANDLERS), wake, maxSleepMs: opts.maxSleepMs ?? DUE_JOBS_MAX_SLEEP_MS });
  const retryLater = () => void due.recheck();
  for (const [queue, handle] of Object.entries(JOB_HANDLERS)) {
    // Domain events come in floods (imports, bursts of mail): big batches, worked whole (ADR 043). PARLEY_ENGINE_EVENT_LOOPS
    // runs several fetch loops at once (2 made no difference measurable on the loaded 2-core machine; 1 by default).
    // Other queues are light or slow.
    const events = queue === QUEUES.domainEvents;
    const loops = events ? Math.max(1, Number(process.env.PARLEY_ENGINE_EVENT_LOOPS ?? 1) || 1) : 1;
    workers.set(
      queue,
      Array.from({ length: loops }, () =>
        new QueueWorker(boss, queue, handle, {
          batchSize: events ? 100 : 10,
          concurrency,
          pollMs: opts.pollMs,
          onRetryLater: retryLater,
          handleBatch: BATCH_JOB_HANDLERS[queue as keyof typeof BATCH_JOB_HANDLERS],
          // With several loops the batches of one queue already run side by side: overlap only a single loop's.
          handleStaged: loops === 1 ? STAGED_JOB_HANDLERS[queue as keyof typeof STAGED_JOB_HANDLERS] : undefined,
        }).start(),
      ),
    );
  }
  // Rules in memory, and events nothing here could act on left unqueued (ADR 031).
  await startRuleCache();
  setEventQueueFilter(eventWanted(HANDLERS) as Parameters<typeof setEventQueueFilter>[0]);
  // Enqueuers NOTIFY on commit: the queue's name for a job to work now (its workers fetch at once), with its time for
  // a delayed job (the timer sleeps no later than that). On every (re)connection of the listener the waiting jobs
  // are read again: what was queued while it was down is not lost.
  let listening = false;
  const listener = await getSql().listen(
    JOBS_CHANNEL,
    (payload) => {
      const notice = parseJobsNotice(payload);
      if (notice.at === undefined) wake(notice.queue);
      else due.dueAt(notice.at);
    },
    () => {
      if (listening) void due.recheck();
      listening = true;
    },
  );
  // Maintenance here may just have expired a killed engine's jobs into retries: read when they are due.
  const afterMaintenance = () => void due.recheck();
  boss.on('maintenance', afterMaintenance);
  await due.start();
  const state = engineState();
  state.mode = opts.mode;
  state.running = true;
  const heartbeatId = `${os.hostname()}:${process.pid}`;
  const beat = () => writeHeartbeat(heartbeatId).catch((err) => log.warn({ err: (err as Error).message }, 'engine heartbeat failed'));
  await beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  log.info({ mode: opts.mode }, 'engine consuming domain events');
  return {
    async stop() {
      clearInterval(timer);
      state.running = false;
      due.stop();
      boss.off('maintenance', afterMaintenance);
      await listener.unlisten().catch(() => {});
      setEventQueueFilter(undefined);
      await stopRuleCache();
      await Promise.all([...workers.values()].flat().map((w) => w.stop()));
      await removeHeartbeat(heartbeatId).catch(() => {});
    },
  };
}
