import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { getFileStorage } from '../storage/files.server';
import { createBackup, type BackupResult } from './backup-archive.server';

/** The advisory lock key of "a backup is running" (the migration lock is 7_203_001). */
const BACKUP_LOCK = 7_203_151;

export type BackupRun = {
  id: number;
  kind: 'scheduled' | 'command';
  startedAt: Date;
  finishedAt: Date | null;
  status: 'running' | 'succeeded' | 'failed';
  sizeBytes: number | null;
  path: string | null;
  error: string | null;
  /** When the retention removed the archive's file (the row stays). */
  prunedAt: Date | null;
};

/** The newest backups, scheduled or made by command, newest first (the operator console, /metrics). */
export async function latestBackups(limit: number): Promise<BackupRun[]> {
  const rows = await getDb()
    .select()
    .from(schema.backupRuns)
    .orderBy(desc(schema.backupRuns.startedAt), desc(schema.backupRuns.id))
    .limit(Math.max(1, Math.min(1000, Math.floor(limit))));
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    status: r.status,
    sizeBytes: r.sizeBytes,
    path: r.path,
    error: r.error,
    prunedAt: r.prunedAt,
  }));
}


/**
 * Makes a backup of the whole installation and records it in backup_runs (running, then succeeded or failed with
 * the error). Throws the failure after recording it. Refuses to start while another backup is running.
 */
export async function runRecordedBackup(opts: { kind: 'scheduled' | 'command'; out: string; log?: (msg: string) => void }): Promise<BackupResult & { runId: number }> {
  const db = getDb();
  // One backup at a time across the cluster: a session lock held on a connection of its own while it runs. Whoever
  // holds it knows that a row still "running" belongs to a process that died (killed command, engine restarted).
  const lock = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {}, connection: { application_name: 'parley-backup-lock' } });
  try {
    const [{ locked }] = await lock<{ locked: boolean }[]>`select pg_try_advisory_lock(${BACKUP_LOCK}) as locked`;
    if (!locked) throw new Error('Another backup is running: wait for it to finish.');
    await db
      .update(schema.backupRuns)
      .set({ status: 'failed', finishedAt: new Date(), error: 'interrupted: the process running it stopped before it finished' })
      .where(eq(schema.backupRuns.status, 'running'));
    const [run] = await db.insert(schema.backupRuns).values({ kind: opts.kind, status: 'running' }).returning({ id: schema.backupRuns.id });
    return await recordBackup(run.id, opts);
  } finally {
    await lock.end();
  }
}

async function recordBackup(runId: number, opts: { out: string; log?: (msg: string) => void }): Promise<BackupResult & { runId: number }> {
  const db = getDb();
  try {
    const config = getConfig();
    const result = await createBackup({ databaseUrl: process.env.DATABASE_URL!, storage: getFileStorage(), config, out: opts.out, log: opts.log });
    await db
      .update(schema.backupRuns)
      .set({
        status: 'succeeded',
        finishedAt: new Date(),
        sizeBytes: result.sizeBytes,
        databaseBytes: result.manifest.totals.databaseBytes,
        fileCount: result.manifest.totals.files,
        path: result.path,
      })
      .where(eq(schema.backupRuns.id, runId));
    return { ...result, runId };
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    await db.update(schema.backupRuns).set({ status: 'failed', finishedAt: new Date(), error: message }).where(eq(schema.backupRuns.id, runId));
    throw err;
  }
}

/**
 * The engine's scheduled backup (PARLEY_BACKUP_SCHEDULE; one job per tick across the cluster, pg-boss's cron): an
 * archive in PARLEY_BACKUP_DIR, then the scheduled archives beyond PARLEY_BACKUP_KEEP removed, oldest first. A
 * failure is recorded and logged at error level, not thrown: retrying a failed backup at once rarely helps, and the
 * next tick tries again (the console and /metrics show the failure meanwhile).
 */
export async function runScheduledBackup(): Promise<{ runId: number | null; pruned: number }> {
  const log = getLogger();
  const { dir, keep } = getConfig().backup;
  let runId: number | null = null;
  try {
    const result = await runRecordedBackup({ kind: 'scheduled', out: `${dir}${path.sep}` });
    runId = result.runId;
    log.info({ path: result.path, sizeBytes: result.sizeBytes, seconds: Math.round(result.seconds) }, 'scheduled backup written');
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'scheduled backup failed');
    return { runId, pruned: 0 };
  }
  return { runId, pruned: await pruneScheduledBackups(keep) };
}

/**
 * Keeps the newest `keep` successful scheduled archives and removes the files of the older ones (only files this
 * installation wrote and recorded; an operator's own archives in the directory are never touched).
 */
export async function pruneScheduledBackups(keep: number) {
  const db = getDb();
  const older = await db
    .select({ id: schema.backupRuns.id, path: schema.backupRuns.path })
    .from(schema.backupRuns)
    .where(and(eq(schema.backupRuns.kind, 'scheduled'), eq(schema.backupRuns.status, 'succeeded'), isNull(schema.backupRuns.prunedAt)))
    .orderBy(desc(schema.backupRuns.startedAt), desc(schema.backupRuns.id))
    .offset(keep);
  const pruned: number[] = [];
  for (const run of older) {
    try {
      if (run.path) await fs.promises.rm(run.path, { force: true });
      pruned.push(run.id);
    } catch (err) {
      getLogger().error({ err: (err as Error).message, path: run.path }, 'an old backup could not be removed');
    }
  }
  if (pruned.length) await db.update(schema.backupRuns).set({ prunedAt: new Date() }).where(inArray(schema.backupRuns.id, pruned));
  return pruned.length;
}
