import { bigint, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export type AccountExportStatus = 'queued' | 'running' | 'ready' | 'downloaded' | 'expired' | 'failed';

/**
 * One archive of a whole account (ADR 153): made in the background by the engine, downloadable once, then its file is
 * deleted; a ready archive nobody fetched is deleted when it expires. The row stays as the record of what happened.
 */
export const accountExports = pgTable(
  'account_exports',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Who asked: a user of the account, or an operator of the installation (no foreign key: operators are not users). */
    requestedByKind: text('requested_by_kind').$type<'user' | 'operator'>().notNull(),
    requestedById: integer('requested_by_id').notNull(),
    status: text('status').$type<AccountExportStatus>().notNull().default('queued'),
    /** Rows (and stored files) to write, counted when the job starts; done grows as the job writes them. */
    totalRows: integer('total_rows').notNull().default(0),
    doneRows: integer('done_rows').notNull().default(0),
    /** The archive in the file storage (ADR 141) while it can be downloaded; null before and after. */
    storageKey: text('storage_key'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    sha256: text('sha256'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [index('account_exports_account_idx').on(t.accountId, t.createdAt)],
);
