import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import postgres from 'postgres';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const here = path.dirname(migrationsFolder);

/** One lock key for "migrating Parley's schema": two nodes starting at once take turns (ADRs 143, 154). */
export const MIGRATION_LOCK = 7_203_001;

type Journal = { entries: { idx: number; tag: string; when: number }[] };
type Queryable = postgres.Sql | postgres.TransactionSql;

function readJournal(): Journal {
  return JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/**
 * The newest migration this build knows: its tag and the `when` drizzle records as `created_at`. The newest by `when`
 * (what is compared with the database), which is the journal's last entry while the journal is in order
 * (db/migrations.test.ts checks that it is).
 */
export function expectedMigration(): { tag: string; when: number } {
  const newest = readJournal().entries.reduce<Journal['entries'][number] | undefined>((a, e) => (!a || e.when > a.when ? e : a), undefined);
  if (!newest) throw new Error('no migrations in this build');
  return { tag: newest.tag, when: newest.when };
}

let version: string | undefined;
/**
 * This build's version, package.json's `version`: beside the bundle (scripts/build-server.mjs copies it into
 * build/server/package.json) or in the checkout's root when run from source.
 */
export function parleyVersion(): string {
  if (version) return version;
  for (const file of [path.join(here, 'package.json'), path.join(here, '..', 'package.json')]) {
    try {
      const found = (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof found === 'string' && found) return (version = found);
    } catch {
      /* not there: the next candidate */
    }
  }
  return (version = 'unknown');
}

/** What the database says about the run that last migrated it (table schema_upgrades, from migration 0035 on). */
export type LastUpgrade = { parleyVersion: string; migration: string; migratedAt: string; host: string | null };

/** The newest row of schema_upgrades, or null when the table is missing (a database migrated before 0035) or empty. */
export async function lastUpgrade(sql: Queryable): Promise<LastUpgrade | null> {
  const [exists] = await sql<{ t: string | null }[]>`select to_regclass('public.schema_upgrades')::text as t`;
  if (!exists?.t) return null;
  // Only the columns every release keeps (db/schema/upgrades.ts): an older build reads a newer one's rows.
  const [row] = await sql<{ parley_version: string; migration: string; migrated_at: Date; host: string | null }[]>`
    select parley_version, migration, migrated_at, host from schema_upgrades order by id desc limit 1`;
  return row ? { parleyVersion: row.parley_version, migration: row.migration, migratedAt: new Date(row.migrated_at).toISOString(), host: row.host } : null;
}

export class SchemaNewerThanBuildError extends Error {
  constructor(public readonly databaseWhen: number, public readonly last: LastUpgrade | null = null) {
    const build = expectedMigration();
    const databaseSide = last
      ? `Parley ${last.parleyVersion} migrated it to ${last.migration} on ${last.migratedAt}${last.host ? ` (on ${last.host})` : ''}`
      : `a newer Parley migrated it (its newest migration is from ${new Date(databaseWhen).toISOString()})`;
    super(
      [
        `This database's schema is newer than this version of Parley, which will not start on it.`,
        `  this version:  Parley ${parleyVersion()}, newest migration ${build.tag} (${new Date(build.when).toISOString()})`,
        `  the database:  ${databaseSide}`,
        `Nothing was changed. Start ${
          last ? `Parley ${last.parleyVersion} or newer` : 'the newer version of Parley'
        } instead; to go back to this version, restore the backup taken before the upgrade (docs/upgrading.md, "Rolling back").`,
      ].join('\n'),
    );
    this.name = 'SchemaNewerThanBuildError';
  }
}

/** The `created_at` of the newest migration applied to the database, or null on a database never migrated. */
export async function appliedMigration(sql: Queryable): Promise<number | null> {
  const [exists] = await sql<{ t: string | null }[]>`select to_regclass('drizzle.__drizzle_migrations')::text as t`;
  if (!exists?.t) return null;
  const [row] = await sql<{ at: string | null }[]>`select max(created_at)::text as at from drizzle.__drizzle_migrations`;
  return row?.at ? Number(row.at) : null;
}

/** Where the database stands against this build: what /readyz reports and what start-up refuses. */
export function schemaState(applied: number | null): 'current' | 'behind' | 'ahead' {
  const expected = expectedMigration().when;
  return applied === expected ? 'current' : applied === null || applied < expected ? 'behind' : 'ahead';
}

/**
 * Throws SchemaNewerThanBuildError when the database holds migrations newer than this build's newest: for processes
 * that do not migrate (the engine on its own) and must not run on a schema they do not know.
 */
export async function refuseNewerSchema(sql: Queryable) {
  const applied = await appliedMigration(sql);
  if (schemaState(applied) === 'ahead') throw new SchemaNewerThanBuildError(applied!, await lastUpgrade(sql));
  return schemaState(applied);
}

export type MigrationRun = { applied: string[]; waitedForLock: boolean };

/**
 * Applies every pending migration; safe to run on each start, and on several nodes starting at once.
 *
 * The whole run is ONE transaction on one dedicated connection, and its first statement takes a transaction-scoped
 * advisory lock: a second node waits on it, then sees the first node's committed migrations and finds nothing left to
 * do. A transaction never leaves its server connection, so this holds behind PgBouncer in session mode (the shipped
 * set-up) and in transaction mode alike, where a session lock could be taken on one server connection and the
 * migration run on another (ADR 154). The statements are drizzle's migrator's (same files, same bookkeeping table,
 * same rule: apply what is newer than the newest applied), run here so that the lock, the check and the migrations
 * share the transaction. A build older than the database's schema refuses (SchemaNewerThanBuildError) and changes
 * nothing. A run that applied migrations records this build's version in schema_upgrades.
 *
 * Callers: server start-up and command-line tools (server/boot.ts), the test template, restore (npm run parley -- restore).
 */
export async function runMigrations(databaseUrl: string, opts: { log?: (msg: string) => void } = {}): Promise<MigrationRun> {
  const log = opts.log ?? (() => {});
  const journal = readJournal();
  const migrations = readMigrationFiles({ migrationsFolder });
  // Unnamed statements: nothing of this connection outlives its transaction, even behind a transaction-mode pooler.
  const sql = postgres(databaseUrl, { max: 1, prepare: false, onnotice: () => {}, connection: { application_name: 'parley-migrate' } });
  try {
    return await sql.begin(async (tx) => {
      let waitedForLock = false;
      const [{ got }] = await tx<{ got: boolean }[]>`select pg_try_advisory_xact_lock(${MIGRATION_LOCK}) as got`;
      if (!got) {
        waitedForLock = true;
        log('another Parley process is migrating this database: waiting for it to finish');
        await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      }
      // A role's or URL's statement_timeout must not cut a long migration in half (it would roll back whole, but fail).
      await tx`set local statement_timeout = 0`;
      await tx`create schema if not exists drizzle`;
      await tx`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`;
      const applied = await appliedMigration(tx);
      if (schemaState(applied) === 'ahead') throw new SchemaNewerThanBuildError(applied!, await lastUpgrade(tx));
      const done: string[] = [];
      for (const [i, migration] of migrations.entries()) {
        if (applied !== null && migration.folderMillis <= applied) continue;
        for (const statement of migration.sql) await tx.unsafe(statement);
        await tx`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`;
        done.push(journal.entries[i]!.tag);
      }
      if (done.length) {
        const newest = expectedMigration();
        await tx`insert into schema_upgrades (parley_version, migration, migration_created_at, migrations_applied, host)
                 values (${parleyVersion()}, ${newest.tag}, ${newest.when}, ${done.length}, ${os.hostname()})`;
        log(`applied ${done.length} migration${done.length === 1 ? '' : 's'} (now at ${newest.tag}, Parley ${parleyVersion()})`);
      }
      return { applied: done, waitedForLock };
    });
  } finally {
    await sql.end();
  }
}
