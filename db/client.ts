import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index';
import { singleton, resetSingleton } from '../app/utils/singleton.server';

export type Database = PostgresJsDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the pool or an open transaction: model functions accept both. */
export type DbOrTx = Database | Tx;

function databaseUrl() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: the server sets it after starting the embedded PostgreSQL');
  return url;
}

export function getSql() {
  return singleton('sql', () =>
    postgres(databaseUrl(), {
      max: Number(process.env.PARLEY_DB_POOL ?? 20),
      onnotice: () => {},
      // pg-boss (written for `pg`) passes undefined for absent options; postgres.js would refuse them.
      transform: { undefined: null },
      connection: { application_name: 'parley' },
    }),
  );
}

export function getDb(): Database {
  return singleton('db', () => drizzle(getSql(), { schema }));
}

export async function closeDb() {
  const store = globalThis as unknown as { __parleySingletons?: Map<string, unknown> };
  const sql = store.__parleySingletons?.get('sql') as postgres.Sql | undefined;
  resetSingleton('db');
  resetSingleton('sql');
  if (sql) await sql.end({ timeout: 5 });
}

/**
 * The postgres.js client under a drizzle database or transaction (drizzle keeps it as `session.client`): for what
 * drizzle's `execute` cannot do, such as pg-boss's own SQL inside our transaction or a named prepared statement. The
 * one place that relies on that internal.
 */
export function rawClientOf(db: DbOrTx) {
  return (db as unknown as { session: { client: postgres.Sql } }).session.client;
}

export { schema };
