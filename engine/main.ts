import { getConfigOrExit } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { runningEmbeddedUrl } from '../db/embedded';
import { closeDb, getSql } from '../db/client';
import { refuseNewerSchema, SchemaNewerThanBuildError } from '../db/migrate';
import { stopBoss } from '../app/utils/jobs.server';
import { startEngine } from './index';
import { startNodeHeartbeat } from '../app/models/cluster/heartbeat.server';
import { keepRunningOnStrayRejections } from '../server/boot';
import { markProcessRole, startMetricsListener } from '../server/metrics';

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
  await waitForThisBuildsSchema();
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
  // The engine's own /metrics (ADR 150): it has no web port, so only on METRICS_PORT.
  markProcessRole('engine');
  const metricsListener = await startMetricsListener();
  if (!metricsListener && config.metrics.token && config.metrics.port === null) {
    getLogger().warn('METRICS_TOKEN is set but METRICS_PORT is not: the engine process has no web port, so its metrics are not served');
  }
  const heartbeat = await startNodeHeartbeat({ role: 'engine' }).catch(() => undefined);
  const stop = async () => {
    await heartbeat?.stop();
    await metricsListener?.close().catch(() => {});
    await engine.stop();
    await stopBoss();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  getLogger().info('engine started');
}

/**
 * The engine does not migrate (the web nodes do, at start). On a schema newer than this build it exits with the same
 * message as the web (ADR 154); on an older one it waits for a web node of its version to migrate, rather than run
 * queries the schema cannot answer yet.
 */
async function waitForThisBuildsSchema() {
  for (let attempt = 1; ; attempt++) {
    try {
      const state = await refuseNewerSchema(getSql());
      if (state === 'current') return;
      getLogger().warn({ attempt }, 'the database is not migrated to this version yet: waiting for a web node of this version to migrate it');
    } catch (err) {
      if (err instanceof SchemaNewerThanBuildError) {
        console.error(err.message);
        await closeDb().catch(() => {});
        process.exit(1);
      }
      getLogger().warn({ attempt, err: (err as Error).message }, 'could not read the schema version; trying again in 2 s');
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

void main();
