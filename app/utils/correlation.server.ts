import crypto from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import { singleton } from './singleton.server';

/**
 * The correlation id of the work under way (ADR 150): one per web request (the client's `X-Request-Id` when it is a
 * sane token, else a new one) and one per engine job (the id of the request that queued it, carried in the job's
 * data, else a new one). The logger's mixin writes it on every line, so that one id finds, across the web and the
 * engine, every line a click caused. Jobs queued while it is open carry it on (jobs.server.ts).
 *
 * `route` is filled in by the Remix build's loaders and actions (the deepest route that ran) and the document entry
 * (the matched leaf): the HTTP metrics label a request by its route pattern, never by its address.
 */
export type Correlation = {
  requestId: string;
  jobId?: string;
  /** The Remix route id (or Express path pattern) that served the request, for its metrics. */
  route?: string;
  routeDepth?: number;
};

const storage = singleton('correlation', () => new AsyncLocalStorage<Correlation>());

/** What a client may send as its request id: a short token (letters, digits, `-_.:`), up to 64 characters. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's id when it is sane, else a new one: never a client's arbitrary text in the logs. */
export function acceptRequestId(incoming: string | string[] | undefined | null): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value && SANE_ID.test(value) ? value : newRequestId();
}

/** A random UUID: from Node's buffered entropy, ~10x cheaper per request than randomBytes (measured, ADR 150). */
export function newRequestId() {
  return crypto.randomUUID();
}

/** Whether a value read back from a job's data is a request id this module could have written. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_ID.test(value);
}

export function runWithCorrelation<T>(correlation: Correlation, fn: () => T): T {
  return storage.run(correlation, fn);
}

export function currentCorrelation(): Correlation | undefined {
  return storage.getStore();
}

/** The request id under way, for a job queued now (undefined outside a request or job). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * Records that a route of `depth` (its number of ancestors) served part of the request: the deepest one names the
 * request in the metrics. The document entry calls it with the matched leaf, which wins over a parent's loader.
 */
export function noteRoute(route: string, depth: number) {
  const store = storage.getStore();
  if (store && (store.routeDepth === undefined || depth >= store.routeDepth)) {
    store.route = route;
    store.routeDepth = depth;
  }
}
