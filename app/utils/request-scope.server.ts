import { AsyncLocalStorage } from 'node:async_hooks';
import { singleton } from './singleton.server';

/**
 * What one page request reads once and shares between its loaders (ADR 052). Remix hands each loader its own copy
 * of the Request, so a cache keyed by the Request misses; the scope is instead the request's async context, opened
 * by the Express server for GET and HEAD requests only. A POST runs an action that may change what is read (the
 * session, the user, the counts), so it has no scope and every read is fresh. Outside a scope (tests, jobs, the
 * engine) `requestMemo` simply loads.
 */
// One storage for the process: the server bundle opens the scope, the Remix build's loaders read it.
const scope = singleton('request-scope', () => new AsyncLocalStorage<Map<string, unknown>>());

export function runInRequestScope<T>(fn: () => T): T {
  return scope.run(new Map(), fn);
}

/** The value under `key` for this request: loaded by the first caller, shared (as the same promise) with the rest. */
export function requestMemo<T>(key: string, load: () => T): T {
  const store = scope.getStore();
  if (!store) return load();
  if (store.has(key)) return store.get(key) as T;
  const value = load();
  store.set(key, value);
  // A failed load is not kept: a later caller in the same request tries again.
  if (value instanceof Promise) value.catch(() => store.delete(key));
  return value;
}

/** Stores what another read of this request already found under `key` (a later `requestMemo` gets it). */
export function requestMemoPrime<T>(key: string, value: T) {
  scope.getStore()?.set(key, value);
}
