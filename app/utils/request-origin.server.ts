import { AsyncLocalStorage } from 'node:async_hooks';
import { singleton } from './singleton.server';

export type RequestOrigin = { ip: string | null; userAgent: string | null };

/**
 * Where the web request being served came from, for the audit log (ADR 070). The Express server opens it for every
 * request (POSTs included, unlike the read cache of request-scope.server.ts); `emitEvent` stamps it on the events
 * the request writes. Outside a request (engine, jobs, tests) there is none and the columns stay null.
 */
const storage = singleton('request-origin', () => new AsyncLocalStorage<RequestOrigin>());

export function runWithRequestOrigin<T>(origin: RequestOrigin, fn: () => T): T {
  return storage.run({ ip: origin.ip?.slice(0, 64) ?? null, userAgent: origin.userAgent?.slice(0, 512) ?? null }, fn);
}

export function currentRequestOrigin(): RequestOrigin | undefined {
  return storage.getStore();
}
