import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index';
import { singleton, resetSingleton } from '../app/utils/singleton.server';
import { metrics } from '../app/utils/metrics.server';
import { createListener } from './listen';

export type Database = PostgresJsDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Either the pool or an open transaction: model functions accept both. */
export type DbOrTx = Database | Tx;

/**
 * Seconds before a connection that failed is tried again: postgres.js grows this to 20 s after a few failures, so a
 * database back after a minute away (a restart, a failover) was reached up to 20 s late. At most a second (ADR 143):
 * the attempts are one connection each, cheap for a server that is down.
 */
export const reconnectBackoff = (retries: number) => Math.min(0.1 * 2 ** retries, 1);

function databaseUrl() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: the server sets it after starting the embedded PostgreSQL');
  return url;
}

export function getSql() {
  return singleton('sql', () => {
    const max = Number(process.env.PARLEY_DB_POOL ?? 20);
    watchPool('app', max);
    const client = postgres(databaseUrl(), {
      max,
      backoff: reconnectBackoff,
      onnotice: () => {},
      // pg-boss (written for `pg`) passes undefined for absent options; postgres.js would refuse them.
      transform: { undefined: null },
      connection: { application_name: 'parley' },
    });
    // LISTEN on a connection of its own that comes back after the database did (db/listen.ts, ADR 143).
    const listener = createListener(databaseUrl(), { onnotice: () => {}, connection: { application_name: 'parley-listen' } });
    listeners.add(listener);
    client.listen = listener.listen as unknown as typeof client.listen;
    return client;
  });
}
const listeners = new Set<ReturnType<typeof createListener>>();

/**
 * pg-boss's own connections (PARLEY_JOBS_POOL, 4 by default), through postgres.js rather than the `pg` driver pg-boss
 * brings: postgres.js reads a DATABASE_URL of several hosts with `target_session_attrs=read-write` and finds the
 * primary again after a failover (ADR 143), which `pg` cannot. Apart from the app's pool, so that a flood of page
 * requests never starves the engine of connections, nor the reverse.
 */
export function getJobsSql() {
  return singleton('jobs-sql', () => {
    const max = Number(process.env.PARLEY_JOBS_POOL ?? 4);
    watchPool('jobs', max);
    const client = postgres(databaseUrl(), {
      max,
      backoff: reconnectBackoff,
      onnotice: () => {},
      transform: { undefined: null },
      connection: { application_name: 'parley-jobs' },
    });
    // pg-boss hands json parameters over already serialised (as `pg` expects): sent as they are, as drizzle's client does.
    const asIs = (value: unknown) => value;
    client.options.serializers[114] = asIs;
    client.options.serializers[3802] = asIs;
    return client;
  });
}

/**
 * The readiness check's connection (server/health.ts, ADR 143): one of its own, so that "does the database answer" is
 * never queued behind the node's requests. After an outage every node's pool is flooded at once (the requests that
 * were refused meanwhile, commits waiting for the synchronous standby to reconnect): a readiness statement queued
 * behind them timed out for seconds while the database answered, and a node became ready 8-12 s after its database.
 */
export function getProbeSql() {
  return singleton('probe-sql', () =>
    postgres(databaseUrl(), {
      max: 1,
      backoff: reconnectBackoff,
      onnotice: () => {},
      fetch_types: false,
      idle_timeout: undefined,
      connection: { application_name: 'parley-probe' },
    }),
  );
}

/** A probe connection whose statement never came back (a half-open socket): dropped, the next check opens a new one. */
export function replaceProbeSql() {
  const store = globalThis as unknown as { __parleySingletons?: Map<string, unknown> };
  const probe = store.__parleySingletons?.get('probe-sql') as postgres.Sql | undefined;
  resetSingleton('probe-sql');
  void probe?.end({ timeout: 0 }).catch(() => {});
}

export function getDb(): Database {
  return singleton('db', () => drizzle(preparingRepeats(getSql()), { schema }));
}

export async function closeDb() {
  const store = globalThis as unknown as { __parleySingletons?: Map<string, unknown> };
  const sql = store.__parleySingletons?.get('sql') as postgres.Sql | undefined;
  const jobs = store.__parleySingletons?.get('jobs-sql') as postgres.Sql | undefined;
  const probe = store.__parleySingletons?.get('probe-sql') as postgres.Sql | undefined;
  resetSingleton('db');
  resetSingleton('sql');
  resetSingleton('jobs-sql');
  resetSingleton('probe-sql');
  const ending = [...listeners].map((l) => l.end());
  listeners.clear();
  await Promise.all([sql?.end({ timeout: 5 }), jobs?.end({ timeout: 5 }), probe?.end({ timeout: 5 }), ...ending]);
}

/**
 * A query that every page request runs, built once per pool with drizzle's `.prepare(name)` and its
 * `sql.placeholder`s (ADR 136): building a wide select (whole tables, sub-selects) cost more of the server's CPU than
 * PostgreSQL spent running it. Kept per pool, so a pool closed and opened again (tests) builds it again.
 */
const builtQueries = new WeakMap<Database, Map<string, unknown>>();
export function builtOnce<T>(name: string, build: (db: Database) => T): T {
  const db = getDb();
  let queries = builtQueries.get(db);
  if (!queries) builtQueries.set(db, (queries = new Map()));
  if (!queries.has(name)) queries.set(name, build(db));
  return queries.get(name) as T;
}

/**
 * Which statement texts run as named prepared statements of their connection (ADR 136). drizzle sends every
 * statement unnamed, and postgres.js then sends an unnamed statement with parameters in two round trips (it asks
 * for the parameter types first) and PostgreSQL parses and plans it again each time: on a 2-core machine that was
 * most of PostgreSQL's CPU per page (a page's statements planned in 0.4-1.9 ms, ran in 0.06-0.46 ms). A named
 * statement is parsed once per connection, takes one round trip, and after five runs PostgreSQL keeps its generic
 * plan when that is no worse than planning each time.
 *
 * A statement that searches a pattern (LIKE, trigram, full text) stays unnamed, so it is planned for its pattern.
 * A text is prepared from its second sighting in this process, and at most MAX_PREPARED texts ever are: a text
 * with inlined values (an id list written into the SQL) never repeats, so it stays unnamed and costs the
 * connections no memory; the cap bounds each connection's prepared statements whatever the code does. Counting
 * forgets everything after SEEN_CHARS characters of texts seen once.
 */
const MAX_PREPARED = 600;
const SEEN_CHARS = 4_000_000;
const preparedTexts = new Set<string>();
const plannedEachTime = new Set<string>();
/** LIKE, ILIKE, SIMILAR TO, regular expressions, pg_trgm's operators and functions, full-text search. */
const SEARCHES_A_PATTERN = /\b(i?like|similar\s+to)\b|<<?%|%>>?|~|\b(word_|strict_word_)?similarity\s*\(|@@/i;
const seenOnce = new Set<string>();
let seenChars = 0;

export function preparesText(text: string) {
  if (preparedTexts.has(text)) return true;
  if (preparedTexts.size >= MAX_PREPARED || plannedEachTime.has(text)) return false;
  if (seenOnce.delete(text)) {
    seenChars -= text.length;
    // A search's best plan depends on its pattern: with generic plans, on a million contacts, the contact list's
    // text filter went from 18 to 77 ms at p95 and a company search from 14 to 290 ms. Planned for each pattern.
    if (SEARCHES_A_PATTERN.test(text)) {
      if (plannedEachTime.size < MAX_PREPARED) plannedEachTime.add(text);
      return false;
    }
    preparedTexts.add(text);
    return true;
  }
  if (seenChars + text.length > SEEN_CHARS) {
    seenOnce.clear();
    seenChars = 0;
  }
  seenOnce.add(text);
  seenChars += text.length;
  return false;
}

type UnsafeOptions = { prepare?: boolean } & Record<string, unknown>;

/**
 * What a pool has under way, for the metrics (ADR 150): postgres.js does not expose its connections, so the pool's
 * use is counted where Parley hands it work: `held` transactions and reservations (one connection each, from the
 * moment they are asked for), `running` statements outside them. Demand beyond the maximum waits for a connection.
 */
type PoolUse = { pool: 'app' | 'jobs'; max: number; held: number; running: number };
const poolUses = singleton('pool-uses', () => new Map<string, PoolUse>());

function watchPool(pool: 'app' | 'jobs', max: number) {
  const use: PoolUse = { pool, max, held: 0, running: 0 };
  poolUses.set(pool, use);
  metrics().poolSources.set(pool, () => {
    const demand = use.held + use.running;
    return { max: use.max, busy: Math.min(use.max, demand), waiting: Math.max(0, demand - use.max) };
  });
  return use;
}

/** The pool's use, by name (the metrics read it; jobs.server.ts counts pg-boss's statements into 'jobs'). */
export function poolUse(pool: 'app' | 'jobs'): PoolUse {
  return poolUses.get(pool) ?? watchPool(pool, 0);
}

/**
 * Times a statement from the moment it is awaited (postgres.js sends a query only then) to its result, and counts it
 * as running on the pool when it is not inside a transaction. The query object itself is returned (drizzle calls
 * `.values()` on it): only its `then` is wrapped, and once.
 */
export function timedStatement<Q extends PromiseLike<unknown>>(query: Q, use: PoolUse, outsideTx: boolean): Q {
  const then = query.then;
  let started = 0;
  let finished = false;
  const finish = (ok: boolean) => {
    if (finished) return;
    finished = true;
    if (outsideTx) use.running--;
    const m = metrics();
    m.dbStatement.observe({ pool: use.pool }, (performance.now() - started) / 1000);
    if (!ok) m.dbErrors.inc({ pool: use.pool });
  };
  (query as { then: unknown }).then = function (this: Q, onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) {
    if (!started) {
      started = performance.now();
      if (outsideTx) use.running++;
    }
    return then.call(
      this,
      (v) => {
        finish(true);
        return onFulfilled ? onFulfilled(v) : v;
      },
      (e) => {
        finish(false);
        if (onRejected) return onRejected(e);
        throw e;
      },
    );
  };
  return query;
}

/** Counts a transaction or reservation as holding one of the pool's connections until it settles. */
export function heldConnection<T>(use: PoolUse, run: () => Promise<T>): Promise<T> {
  use.held++;
  let p: Promise<T>;
  try {
    p = run();
  } catch (err) {
    use.held--;
    throw err;
  }
  return p.finally(() => {
    use.held--;
  });
}

/**
 * The client drizzle is given: `unsafe` (all drizzle sends) prepares repeated texts; transactions and savepoints get
 * the same. Every statement is timed, and transactions are counted as holding a connection (the metrics, ADR 150).
 */
function preparingRepeats(client: postgres.Sql, inTx = false): postgres.Sql {
  const use = poolUse('app');
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'unsafe')
        return (text: string, args?: never[], options?: UnsafeOptions) =>
          timedStatement(
            target.unsafe(text, args, { ...options, prepare: options?.prepare === true || (args !== undefined && args.length > 0 && preparesText(text)) }),
            use,
            !inTx,
          );
      if (prop === 'begin' || prop === 'savepoint') {
        const open = Reflect.get(target, prop, receiver) as (...a: unknown[]) => Promise<unknown>;
        return (...a: unknown[]) => {
          const body = a.pop() as (tx: postgres.Sql) => unknown;
          const run = () => open.call(target, ...a, (tx: postgres.Sql) => body(preparingRepeats(tx, true)));
          return prop === 'begin' && !inTx ? heldConnection(use, run) : run();
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
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
