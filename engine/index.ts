import os from 'node:os';
import { startBoss } from '../app/utils/jobs.server';
import { JOB_HANDLERS } from './jobs/index';
import { getLogger } from '../app/utils/logger.server';
import { engineState, HEARTBEAT_MS, removeHeartbeat, writeHeartbeat } from './status';

export { processEvent } from './events';

type Running = { stop: () => Promise<void> };

/** Starts working every queue (domain events, channel deliveries, timers). `mode` is 'inline' inside the web process, 'external' for `npm run engine`. */
export async function startEngine(opts: { mode: 'inline' | 'external'; concurrency?: number }): Promise<Running> {
  const boss = await startBoss();
  const log = getLogger();
  const workerIds: string[] = [];
  for (let i = 0; i < (opts.concurrency ?? 2); i++) {
    for (const [queue, handle] of Object.entries(JOB_HANDLERS)) {
      workerIds.push(
        await boss.work<Record<string, unknown>>(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          for (const job of jobs) await handle(job.data);
        }),
      );
    }
  }
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
      for (const id of workerIds) await boss.offWork({ id } as never).catch(() => {});
      await removeHeartbeat(heartbeatId).catch(() => {});
    },
  };
}
