import { getSql } from '../db/client';
import { appliedMigration, schemaState } from '../db/migrate';
import { engineStatus } from '../engine/status';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);

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

/** How long one answer of the readiness check stands: a proxy checking every second costs one statement per period. */
const READINESS_TTL_MS = 2_000;
let lastReadiness: { at: number; answer: Promise<Readiness> } | undefined;

/**
 * Readiness (`/readyz`, what the proxy checks, ADR 143): this process can serve requests — the database answers and its
 * schema has at least the migrations this build expects (ADR 154). Liveness (`/livez`) asks only that the process runs. A node whose
 * database is away is alive but not ready: the proxy stops sending it requests and restarts nothing.
 */
export function checkReadiness(): Promise<Readiness> {
  if (draining) return Promise.resolve({ ready: false, database: 'up', migration: 'current', draining: true });
  if (lastReadiness && Date.now() - lastReadiness.at < READINESS_TTL_MS) return lastReadiness.answer;
  const answer = (async (): Promise<Readiness> => {
    try {
      const migration = schemaState(await withTimeout(appliedMigration(getSql()), 2000));
      // 'ahead' while running: a newer node migrated during a rolling upgrade. Its migrations only expand the schema
      // (ADR 154, docs/upgrading.md), so this node keeps serving until it is replaced; a node STARTING on a newer
      // schema refuses to (db/migrate.ts). 'behind': the schema lacks what this build queries (a database restored
      // under a running node): not ready.
      return { ready: migration !== 'behind', database: 'up', migration };
    } catch {
      return { ready: false, database: 'down', migration: 'unknown' };
    }
  })();
  lastReadiness = { at: Date.now(), answer };
  return answer;
}
