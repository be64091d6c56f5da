import { getConfigOrExit } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { runningEmbeddedUrl } from '../db/embedded';
import { closeDb } from '../db/client';
import { stopBoss } from '../app/utils/jobs.server';
import { startEngine } from './index';
import { startNodeHeartbeat } from '../app/models/cluster/heartbeat.server';
import { keepRunningOnStrayRejections } from '../server/boot';

/** `npm run engine`: the engine as its own process, for deployments that run the web with PARLEY_ENGINE=off. */
async function main() {
  const config = getConfigOrExit();
  const url = config.databaseUrl ?? runningEmbeddedUrl(config.dataDir);
  if (!url) {
    console.error(`No database: set DATABASE_URL, or start Parley first so that its embedded PostgreSQL (${config.dataDir}) is running.`);
    process.exit(1);
  }
  process.env.DATABASE_URL = url;
  keepRunningOnStrayRejections();
  // A database still away when the engine starts (a cluster restarting, a failover under way): try again every two
  // seconds rather than exit or sit there started on nothing.
  let engine: Awaited<ReturnType<typeof startEngine>>;
  for (let attempt = 1; ; attempt++) {
    try {
      engine = await startEngine({ mode: 'external' });
      break;
    } catch (err) {
      getLogger().warn({ attempt, err: (err as Error).message }, 'engine could not start; trying again in 2 s');
      await stopBoss().catch(() => {});
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  const heartbeat = await startNodeHeartbeat({ role: 'engine' }).catch(() => undefined);
  const stop = async () => {
    await heartbeat?.stop();
    await engine.stop();
    await stopBoss();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  getLogger().info('engine started');
}

void main();
