import { singleton } from '../app/utils/singleton.server';
import { getSql } from './client';

/**
 * Whether this process can reach its database (ADR 143). A query that fails because the database is away (refused,
 * reset, shut down, a standby that became read-only under us) marks it unavailable; from then on one probe a second
 * asks again, and the first answer marks it available. While it is unavailable the web answers 503 with Retry-After at
 * once instead of letting every request wait for a connection and fail with a 500.
 */
type State = { available: boolean; since: number; probing: boolean; listeners: Set<(available: boolean) => void> };
const state = singleton('database-availability', (): State => ({ available: true, since: Date.now(), probing: false, listeners: new Set() }));

/** Node's socket errors and postgres.js's own connection errors. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);
/**
 * SQLSTATEs of a database that is away or not the primary: class 08 (connection exception), 57P01-57P03 (shut down,
 * crashed, starting), 25006 (a read-only transaction: a node that still holds a connection to a demoted primary),
 * 53300 (too many connections, e.g. PgBouncer's pool while the server restarts).
 */
function isUnavailableState(code: string) {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '25006' || code === '53300';
}

export function isDatabaseUnavailableError(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || (/^[0-9A-Z]{5}$/.test(e.code) && isUnavailableState(e.code)))) return true;
    // PgBouncer's own refusals come as protocol errors with these words (08P01 is already class 08).
    if (typeof e.message === 'string' && /query_wait_timeout|server login has been failing|no more connections allowed|server conn crashed/.test(e.message)) return true;
  }
  return false;
}

export function isDatabaseAvailable() {
  return state.available;
}

/** Seconds since the database became unavailable (0 while it is available). */
export function unavailableForSeconds() {
  return state.available ? 0 : Math.round((Date.now() - state.since) / 1000);
}

/** Called with every error a request or job met: a connection failure starts the probe. Returns whether it was one. */
export function noteDatabaseError(err: unknown): boolean {
  if (!isDatabaseUnavailableError(err)) return false;
  markUnavailable();
  return true;
}

export function onAvailabilityChange(listener: (available: boolean) => void) {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

function set(available: boolean) {
  if (state.available === available) return;
  state.available = available;
  state.since = Date.now();
  for (const listener of state.listeners) listener(available);
}

const PROBE_MS = 1_000;

function markUnavailable() {
  set(false);
  if (state.probing) return;
  state.probing = true;
  const probe = async () => {
    try {
      await Promise.race([getSql()`select 1`, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 3_000).unref())]);
      state.probing = false;
      set(true);
    } catch {
      setTimeout(() => void probe(), PROBE_MS).unref();
    }
  };
  setTimeout(() => void probe(), PROBE_MS).unref();
}
