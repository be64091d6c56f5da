import type { NextFunction, Request, Response as ExpressResponse } from 'express';
import { isDatabaseAvailable } from '../db/availability';

/** What a client is told to wait before trying again while the database is away (seconds). */
export const RETRY_AFTER_SECONDS = 10;
export const UNAVAILABLE_MESSAGE = 'Parley cannot reach its database for a moment. Nothing you sent before is lost; try again in a few seconds.';

/** Thrown by a loader or action that met an unreachable database: Remix renders the shared 503 page with it. */
export function databaseUnavailableResponse() {
  return new Response(JSON.stringify({ message: UNAVAILABLE_MESSAGE }), {
    status: 503,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/** The page answered at once while the database is known to be away: no script, and it reloads itself. */
function unavailablePage() {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS}"><title>Parley is briefly unavailable</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f6f7f9;color:#1f2937}
main{max-width:32rem;padding:2rem;background:#fff;border:1px solid #e5e7eb;border-radius:12px}h1{font-size:1.25rem;margin:0 0 .5rem}</style></head>
<body><main id="main"><p>503</p><h1>Looks like our API is down</h1><p>${UNAVAILABLE_MESSAGE}</p><p>This page tries again by itself in ${RETRY_AFTER_SECONDS} seconds.</p></main></body></html>`;
}

/** Paths that never need the database: the probes and the static files. */
function servesWithoutDatabase(path: string) {
  return path === '/livez' || path === '/readyz' || path === '/healthz' || path.startsWith('/build/');
}

/**
 * While the database is known to be away, every request that would need it is answered 503 with Retry-After at once
 * (an HTML page, or JSON for API and widget calls), instead of waiting for a connection that will not come. Every 503
 * this server sends carries Retry-After, whoever produced it.
 */
export function answerWhileDatabaseAway() {
  return (req: Request, res: ExpressResponse, next: NextFunction) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ExpressResponse, ...args: Parameters<typeof writeHead>) {
      if (args[0] === 503 && !this.headersSent && !this.getHeader('Retry-After')) this.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      return writeHead.apply(this, args);
    } as typeof writeHead;
    if (isDatabaseAvailable() || servesWithoutDatabase(req.path)) return next();
    res.status(503).setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    res.setHeader('Cache-Control', 'no-store');
    const wantsJson = req.path.startsWith('/api/') || req.path.startsWith('/public/') || req.path.startsWith('/widget/') || /json/.test(req.get('accept') ?? '');
    if (wantsJson) res.json({ error: 'unavailable', message: UNAVAILABLE_MESSAGE });
    else res.type('html').send(unavailablePage());
  };
}
