import crypto from 'node:crypto';
import http from 'node:http';
import type { ServerBuild } from '@remix-run/node';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { acceptRequestId, noteRoute, runWithCorrelation, type Correlation } from '../app/utils/correlation.server';
import { getConfig } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { METRICS_CONTENT_TYPE, metrics, metricsText, statusClass } from '../app/utils/metrics.server';
import { engineLag, queueDepths } from '../app/models/operations/queues.server';

/**
 * Observability at the HTTP boundary (ADR 150): every request gets its correlation id (echoed in `X-Request-Id`) and,
 * once answered, one count and one latency sample labelled by its route pattern, method and status class; and
 * `/metrics` is served only where the operator asked for it (METRICS_PORT, METRICS_TOKEN), never publicly by default.
 */

/** The label of a request no route pattern names (a 404, a refused method). */
export const UNMATCHED_ROUTE = 'unmatched';

type Locals = { correlation?: Correlation; metricsRoute?: string };

/**
 * First middleware: opens the request's correlation (the client's sane `X-Request-Id` or a new one), echoes it, and
 * on finish records the request in the metrics.
 */
export function correlateAndMeasure() {
  const m = metrics();
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const start = process.hrtime.bigint();
    const correlation: Correlation = { requestId: acceptRequestId(req.headers['x-request-id']) };
    (res.locals as Locals).correlation = correlation;
    res.setHeader('X-Request-Id', correlation.requestId);
    res.on('finish', () => {
      const labels = { route: routeLabel(req, res, correlation), method: methodLabel(req.method), status: statusClass(res.statusCode) };
      m.httpRequests.inc(labels);
      m.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    runWithCorrelation(correlation, next);
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const methodLabel = (method: string) => (METHODS.has(method) ? method : 'OTHER');

function routeLabel(req: ExpressRequest, res: ExpressResponse, correlation: Correlation) {
  if (correlation.route) return correlation.route;
  const locals = res.locals as Locals;
  if (locals.metricsRoute) return locals.metricsRoute;
  // An Express endpoint (/healthz, /webhooks/email/:token...): its path pattern, never the address itself.
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return route.path;
  return UNMATCHED_ROUTE;
}

/** Names what an Express middleware answered (static files): `metricsRoute` unless a route already named it. */
export function labelAs(name: string) {
  return (_req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    (res.locals as Locals).metricsRoute = name;
    next();
  };
}

/**
 * The build with its routes named in the metrics: each loader and action notes its route (the deepest one that ran
 * names the request), and the document entry notes the matched leaf (a leaf without a loader included). A page Remix
 * found no route for (its 404, rendered by the root) is `unmatched`.
 */
export function withRouteLabels(build: ServerBuild): ServerBuild {
  const depth = new Map<string, number>();
  const depthOf = (id: string): number => {
    if (depth.has(id)) return depth.get(id)!;
    const parent = build.routes[id]?.parentId;
    const d = parent ? depthOf(parent) + 1 : 0;
    depth.set(id, d);
    return d;
  };
  const routes: ServerBuild['routes'] = {};
  // The root's splat route (routes/$) is the app's "no route matches" 404: unmatched, like a 404 Remix finds no route for.
  const labelOf = (id: string) => (build.routes[id]?.path === '*' && build.routes[id]?.parentId === 'root' ? UNMATCHED_ROUTE : id);
  for (const [id, route] of Object.entries(build.routes)) {
    const d = depthOf(id);
    const label = labelOf(id);
    const mod = route.module;
    const note = <F extends (...a: never[]) => unknown>(fn: F) =>
      ((...a: Parameters<F>) => {
        noteRoute(label, d);
        return fn(...a);
      }) as unknown as F;
    routes[id] = {
      ...route,
      module: {
        ...mod,
        ...(mod.loader ? { loader: note(mod.loader) } : {}),
        ...(mod.action ? { action: note(mod.action) } : {}),
      },
    };
  }
  const handleRequest = build.entry.module.default;
  type Args = Parameters<typeof handleRequest>;
  const entry = (...args: Args) => {
    const [, statusCode, , remixContext] = args;
    const matches = (remixContext as { staticHandlerContext?: { matches?: { route: { id: string } }[] } }).staticHandlerContext?.matches ?? [];
    const leaf = matches[matches.length - 1]?.route.id;
    if (leaf) {
      if (leaf === 'root' && statusCode === 404) noteRoute(UNMATCHED_ROUTE, Number.MAX_SAFE_INTEGER);
      else noteRoute(labelOf(leaf), depthOf(leaf));
    }
    return handleRequest(...args);
  };
  return { ...build, routes, entry: { ...build.entry, module: { ...build.entry.module, default: entry as typeof handleRequest } } };
}

/** Whether `header` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string) {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const a = crypto.createHash('sha256').update(m[1]).digest();
  const b = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

let sourcesWired = false;
/** The queue figures come from PostgreSQL, read at scrape time (cached in queues.server.ts). */
function wireSources() {
  if (sourcesWired) return;
  sourcesWired = true;
  metrics().setQueueSources(queueDepths, engineLag);
}

/** Marks what this process runs, for `parley_process_info`. */
export function markProcessRole(role: 'web' | 'engine' | 'web+engine') {
  metrics().info.reset();
  metrics().info.set({ role }, 1);
}

async function answerMetrics(res: { statusCode: number; setHeader(n: string, v: string): void; end(body: string): void }) {
  wireSources();
  try {
    const text = await metricsText();
    res.statusCode = 200;
    res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  } catch (err) {
    getLogger().warn({ err: (err as Error).message }, 'metrics could not be collected');
    res.statusCode = 503;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('Metrics could not be collected\n');
  }
}

function refuse(res: http.ServerResponse | ExpressResponse) {
  res.statusCode = 401;
  res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Unauthorized: /metrics needs Authorization: Bearer <METRICS_TOKEN>\n');
}

/**
 * `/metrics` on the main port, only when METRICS_TOKEN is set, and only with that bearer token. Without it the path
 * is not served here (the app's 404).
 */
export function metricsOnMainPort() {
  const { token } = getConfig().metrics;
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (!token || req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    (res.locals as Locals).metricsRoute = '/metrics';
    if (!bearerMatches(req.headers.authorization, token)) return refuse(res);
    void answerMetrics(res);
  };
}

/**
 * The metrics listener of METRICS_PORT on METRICS_HOST (127.0.0.1 by default): only GET /metrics, and with
 * METRICS_TOKEN set, only with its bearer token. A port that cannot be bound is logged, and the process goes on.
 */
export async function startMetricsListener(): Promise<{ port: number; close: () => Promise<void> } | undefined> {
  const { port, host, token } = getConfig().metrics;
  if (port === null) return undefined;
  const log = getLogger();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      return res.end('Not Found\n');
    }
    if (token && !bearerMatches(req.headers.authorization, token)) return refuse(res);
    void answerMetrics(res);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    log.error({ port, host, err: (err as Error).message }, 'metrics listener not started: is METRICS_PORT in use?');
    return undefined;
  }
  const bound = (server.address() as { port: number }).port;
  log.info({ port: bound, host }, 'metrics listening');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
