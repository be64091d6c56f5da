import { getProbeSql, getSql, replaceProbeSql } from '../db/client';
import { getLogger } from '../app/utils/logger.server';
import { appliedMigration, schemaState } from '../db/migrate';
import { engineStatus } from '../engine/status';

const withTimeout = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);

/** 200 when the database answers and an engine consumes events; 503 otherwise. */
export async function checkHealth() {
  let database = false;
  let engine = { running: false, mode: 'inline' as 'inline' | 'external' };
  try {
    await withTimeout(getSql()`select 1`, 2000);
    database = true;
    engine = await withTimeout(engineStatus(), 2000);
  } catch {
    /* reported as down below */
  }
  return { ok: database && engine.running, database: database ? 'up' : 'down', engine: engine.running ? 'up' : 'down', engineMode: engine.mode };
}

export type Readiness = { ready: boolean; database: 'up' | 'down'; migration: 'current' | 'behind' | 'ahead' | 'unknown'; draining?: boolean };

/**
 * A node that was told to stop (SIGTERM) answers "not ready" at once and keeps serving for PARLEY_SHUTDOWN_DRAIN_MS, so
 * the proxy stops sending it new requests before it closes its port: a rolling restart fails no request (ADR 143).
 */
let draining = false;
export function markDraining() {
  draining = true;
}
export function shutdownDrainMs() {
  const ms = Number(process.env.PARLEY_SHUTDOWN_DRAIN_MS ?? 0);
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 20_000) : 0;
}

/** How long a "ready" answer stands: a proxy checking every second costs one statement per period. */
const READY_TTL_MS = 2_000;
/**
 * How long a "not ready" answer stands once it is known. Short: kept for 2 s from the start of its check, as it was, an
 * answer given just before the database came back (a timeout, a refused login) held a node out for up to 4 s more.
 */
const NOT_READY_TTL_MS = 250;
const READINESS_TIMEOUT_MS = 2_000;
let lastReadiness: { at: number; answer: Readiness } | undefined;
let pendingReadiness: Promise<Readiness> | undefined;
/**
 * The statement in flight on the probe connection: it may outlive its check's timeout (a connection still retrying),
 * and is never sent twice at once. One that has not come back in STUCK_MS goes with its connection.
 */
let inFlight: { since: number; statement: Promise<number | null> } | undefined;
const STUCK_MS = 10_000;
let lastChange = { ready: true, at: Date.now() };

function appliedMigrationOnce() {
  if (inFlight && Date.now() - inFlight.since > STUCK_MS) {
    inFlight = undefined;
    replaceProbeSql();
  }
  if (!inFlight) {
    const statement = appliedMigration(getProbeSql());
    const current = { since: Date.now(), statement };
    const clear = () => {
      if (inFlight === current) inFlight = undefined;
    };
    statement.then(clear, clear);
    inFlight = current;
  }
  return inFlight.statement;
}

function timedOut<T>(p: Promise<T>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Readiness (`/readyz`, what the proxy checks, ADR 143): this process can serve requests — the database answers and its
 * schema has at least the migrations this build expects (ADR 154). Liveness (`/livez`) asks only that the process runs. A node whose
 * database is away is alive but not ready: the proxy stops sending it requests and restarts nothing.
 *
 * Asked on a connection of its own (db/client.ts getProbeSql), one check at a time, one statement at a time: after an
 * outage the node's pool is flooded, and a check queued behind that flood said "down" for seconds while the database
 * answered.
 */
export function checkReadiness(): Promise<Readiness> {
  if (draining) return Promise.resolve({ ready: false, database: 'up', migration: 'current', draining: true });
  if (lastReadiness && Date.now() - lastReadiness.at < (lastReadiness.answer.ready ? READY_TTL_MS : NOT_READY_TTL_MS))
    return Promise.resolve(lastReadiness.answer);
  if (pendingReadiness) return pendingReadiness;
  const startedAt = Date.now();
  const answer = (async (): Promise<Readiness> => {
    try {
      const migration = schemaState(await timedOut(appliedMigrationOnce(), READINESS_TIMEOUT_MS));
      // 'ahead' while running: a newer node migrated during a rolling upgrade. Its migrations only expand the schema
      // (ADR 154, docs/upgrading.md), so this node keeps serving until it is replaced; a node STARTING on a newer
      // schema refuses to (db/migrate.ts). 'behind': the schema lacks what this build queries (a database restored
      // under a running node): not ready.
      return { ready: migration !== 'behind', database: 'up', migration };
    } catch {
      return { ready: false, database: 'down', migration: 'unknown' };
    }
  })().then((readiness) => {
    lastReadiness = { at: Date.now(), answer: readiness };
    pendingReadiness = undefined;
    if (readiness.ready !== lastChange.ready) {
      // When a node went out and came back, and how long its last check took: the figures of a drill or an incident.
      getLogger().warn(
        {
          ready: readiness.ready,
          database: readiness.database,
          migration: readiness.migration,
          afterS: Math.round((Date.now() - lastChange.at) / 100) / 10,
          checkMs: Date.now() - startedAt,
        },
        readiness.ready ? 'ready again' : 'not ready',
      );
      lastChange = { ready: readiness.ready, at: Date.now() };
    }
    return readiness;
  });
  pendingReadiness = answer;
  return answer;
}
