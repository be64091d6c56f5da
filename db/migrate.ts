import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** One lock key for "migrating Parley's schema": two nodes starting at once take turns (ADR 143). */
const MIGRATION_LOCK = 7_203_001;

/** The newest migration this build knows: its tag and the `when` drizzle records as `created_at`. */
export function expectedMigration(): { tag: string; when: number } {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  const last = journal.entries.at(-1);
  if (!last) throw new Error('no migrations in this build');
  return { tag: last.tag, when: last.when };
}

export class SchemaNewerThanBuildError extends Error {
  constructor(public readonly databaseWhen: number) {
    super(
      `The database's schema is newer than this version of Parley (its newest migration is from ${new Date(databaseWhen).toISOString()}, ` +
        `this build's from ${new Date(expectedMigration().when).toISOString()}). Start the newer version, or restore a backup made before the upgrade (docs/upgrading.md).`,
    );
  }
}

/** The `created_at` of the newest migration applied to the database, or null on a database never migrated. */
export async function appliedMigration(sql: postgres.Sql): Promise<number | null> {
  const [exists] = await sql<{ t: string | null }[]>`select to_regclass('drizzle.__drizzle_migrations')::text as t`;
  if (!exists?.t) return null;
  const [row] = await sql<{ at: string | null }[]>`select max(created_at)::text as at from drizzle.__drizzle_migrations`;
  return row?.at ? Number(row.at) : null;
}

/**
 * Applies every pending migration; safe to run on each start, and on several nodes starting at once: the migration
 * runs under a session advisory lock, so the second node waits, then finds nothing left to do. A build older than the
 * database's schema refuses to start (its queries would meet columns and tables it does not know) instead of running.
 */
export async function runMigrations(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const applied = await appliedMigration(sql);
    if (applied !== null && applied > expectedMigration().when) throw new SchemaNewerThanBuildError(applied);
    await migrate(drizzle(sql), { migrationsFolder });
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end();
  }
}
