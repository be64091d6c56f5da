import { bigint, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per backup of the whole installation (ADR 151): the scheduled ones the engine runs
 * (PARLEY_BACKUP_SCHEDULE) and those an operator makes with `npm run parley -- backup`. Installation-wide, so no
 * account. The operator console lists them and /metrics reads the last success and the failures from here.
 */
export const backupRuns = pgTable(
  'backup_runs',
  {
    id: serial('id').primaryKey(),
    /** `scheduled` (the engine's cron) or `command` (npm run parley -- backup). */
    kind: text('kind').$type<'scheduled' | 'command'>().notNull(),
    status: text('status').$type<'running' | 'succeeded' | 'failed'>().notNull().default('running'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** The archive's size on disk, once written. */
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    /** Bytes of the database's tables (uncompressed) and the stored files in the archive. */
    databaseBytes: bigint('database_bytes', { mode: 'number' }),
    fileCount: integer('file_count'),
    /** Where the archive was written (absolute path). */
    path: text('path'),
    error: text('error'),
    /** When the retention (PARLEY_BACKUP_KEEP) removed the archive's file; the row stays as history. */
    prunedAt: timestamp('pruned_at', { withTimezone: true }),
  },
  (t) => [index('backup_runs_started_idx').on(t.startedAt)],
);
