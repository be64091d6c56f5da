import { leaveShutdownSignalsToCaller, runningEmbeddedUrl, startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded';
import { runMigrations } from '../db/migrate';
import { closeDb } from '../db/client';
import { getConfig } from '../app/utils/env.server';
import { stopBoss } from '../app/utils/jobs.server';
import { getLogger } from '../app/utils/logger.server';
import { noteDatabaseError } from '../db/availability';

export type ResolvedDatabase = {
  url: string;
  /** external: DATABASE_URL; shared: the embedded server a running Parley owns; embedded: started by this process. */
  source: 'external' | 'shared' | 'embedded';
  /** Set only when this process started the embedded server, and so must stop it. */
  embedded?: EmbeddedDatabase;
};

/**
 * The one answer to "which database?", for the server, the CLI and the seed: DATABASE_URL when set,
 * otherwise the embedded PostgreSQL under PARLEY_DATA_DIR. With `shareRunning` (command-line tools) the
 * embedded server of a Parley that is running is used as it is; without it (the server) a server still
 * running on the data directory is taken to be left over from a killed process and restarted.
 * Applies migrations and leaves DATABASE_URL in the environment for every pool created afterwards.
 */
export async function resolveDatabase(opts: { shareRunning?: boolean; log?: (msg: string) => void; migrate?: boolean } = {}): Promise<ResolvedDatabase> {
  const config = getConfig();
  const log = opts.log ?? (() => {});
  let resolved: ResolvedDatabase;
  if (config.databaseUrl) {
    resolved = { url: config.databaseUrl, source: 'external' };
  } else {
    const running = opts.shareRunning ? runningEmbeddedUrl(config.dataDir) : undefined;
    if (running) {
      log(`using the embedded PostgreSQL of the running Parley (${config.dataDir})`);
      resolved = { url: running, source: 'shared' };
    } else {
      const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log });
      log(`embedded PostgreSQL started (${config.dataDir})`);
      resolved = { url: embedded.url, source: 'embedded', embedded };
    }
  }
  process.env.DATABASE_URL = resolved.url;
  // `migrate: false`: a task that replaces the whole schema itself (restoring a backup into a database a newer version
  // migrated, to roll back) must not be refused by the check that stops an older version from running on it (ADR 154).
  if (opts.migrate === false) return resolved;
  try {
    await runMigrations(resolved.url, { log });
  } catch (err) {
    await resolved.embedded?.stop().catch(() => {});
    throw err;
  }
  return resolved;
}

/** The server's start-up: its own embedded server (a leftover one is stopped first) or DATABASE_URL. */
export async function prepareDatabase(): Promise<{ embedded?: EmbeddedDatabase }> {
  const log = getLogger();
  const { embedded } = await resolveDatabase({ log: (m) => log.info(m) });
  // From here server/index.ts stops the embedded server itself, last, after requests and jobs have drained.
  leaveShutdownSignalsToCaller();
  return { embedded };
}

/**
 * Runs a command-line task (CLI, seed) against the database the server uses, then releases everything it
 * opened: pools, the job queue, and the embedded server if the task had to start it.
 */
export async function withDatabase<T>(task: (db: ResolvedDatabase) => Promise<T>, opts: { log?: (msg: string) => void; migrate?: boolean } = {}): Promise<T> {
  const db = await resolveDatabase({ shareRunning: true, log: opts.log, migrate: opts.migrate });
  leaveShutdownSignalsToCaller();
  const release = async () => {
    await stopBoss().catch(() => {});
    await closeDb().catch(() => {});
    await db.embedded?.stop().catch(() => {});
  };
  // Ctrl-C while the task runs must not leave an embedded server behind.
  const onSignal = () => void release().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await task(db);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await release();
  }
}

/**
 * A promise nobody awaited that failed (a timer's query while the database was away, a library's reconnect) is logged,
 * and the process goes on serving: a database that stops for a minute must not take every node down with it (ADR 143).
 * Node's default would end the process.
 */
export function keepRunningOnStrayRejections() {
  process.on('unhandledRejection', (reason) => {
    const databaseAway = noteDatabaseError(reason);
    const err = reason as { message?: unknown; code?: unknown; stack?: unknown };
    getLogger()[databaseAway ? 'warn' : 'error'](
      { err: String(err?.message ?? reason).slice(0, 300), code: typeof err?.code === 'string' ? err.code : undefined, stack: databaseAway ? undefined : String(err?.stack ?? '') },
      databaseAway ? 'a background query failed while the database is away' : 'unhandled promise rejection',
    );
  });
}
