import fs from 'node:fs';
import path from 'node:path';
import { createRequestHandler } from '@remix-run/express';
import compression from 'compression';
import type { ServerBuild } from '@remix-run/node';
import express from 'express';
import helmet from 'helmet';
import { getConfig } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { runWithRequestOrigin } from '../app/utils/request-origin.server';
import { runInRequestScope } from '../app/utils/request-scope.server';
import { emailWebhookRouter } from './email-webhook';
import { helpHostRouter } from './help-host';
import { checkHealth, checkReadiness } from './health';
import { answerWhileDatabaseAway, UNAVAILABLE_MESSAGE } from './database-outage';
import { noteDatabaseError } from '../db/availability';
import { nodeName } from '../app/models/cluster/node.server';
import { dataRequestsAsPages, refuseUnservedMethods, rejectNulInUrl, withInputBoundary } from './input-boundary';
import { securityHeaders } from './security-headers';
import { correlateAndMeasure, labelAs, metricsOnMainPort, withRouteLabels } from './metrics';

export async function createApp(opts: { build: ServerBuild; publicDir: string }) {
  const config = getConfig();
  const log = getLogger();
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For/-Proto are believed only from the proxies named in TRUST_PROXY; by default from nobody, so a
  // client cannot pick the address its rate limits count against (ADR 023).
  app.set('trust proxy', config.trustProxy);

  // First: the request's correlation id (X-Request-Id, on every log line it causes) and its metrics (ADR 150).
  app.use(correlateAndMeasure());

  app.use(
    helmet({
      // Pages are server-rendered with small inline scripts from Remix; the CSP is set per route later.
      contentSecurityPolicy: false,
      crossOriginEmbedderPolicy: false,
      hsts: false,
      // With no-referrer Chromium sends `Origin: null` on form posts, which the CSRF check must refuse.
      referrerPolicy: { policy: 'same-origin' },
    }),
  );

  // One line per request: method, path, status, time, account. Never query strings (tokens travel there) nor cookies.
  // PARLEY_SERVER_TIMING=1 (benchmarks): `Server-Timing: app;dur=<ms>` from the request's arrival here to its headers.
  const serverTiming = process.env.PARLEY_SERVER_TIMING === '1';
  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    if (serverTiming) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
        if (!this.headersSent) this.setHeader('Server-Timing', `app;dur=${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(2)}`);
        return writeHead.apply(this, args);
      } as typeof writeHead;
    }
    res.on('finish', () => {
      const host = (req.headers.host ?? '').toLowerCase();
      const account = host.endsWith(`.${config.appHost}`) ? host.slice(0, -(config.appHost.length + 1)) : null;
      // 'finish' may fire outside the request's async context: its id is written explicitly.
      log.info(
        { requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - start) / 1e6, account },
        'request',
      );
    });
    next();
  });

  // The client's address for rate limits; a header a client sends is overwritten, never trusted.
  app.use((req, _res, next) => {
    req.headers['x-parley-client-ip'] = req.ip ?? 'unknown';
    next();
  });

  // CSP nonce, no-store for signed-in responses, HSTS over HTTPS (ADR 023).
  app.use(securityHeaders());

  // The input boundary (ADR 023): a method no route serves is a 405 (ADR 144), a NUL byte in the address a 400, for
  // every endpoint, Remix or not.
  app.use(refuseUnservedMethods());
  app.use(rejectNulInUrl());
  app.use(dataRequestsAsPages());

  // Liveness: the process runs and its event loop turns. Readiness: it can serve (database, schema); the proxy asks
  // this one (ADR 143). /healthz also says whether an engine consumes events.
  app.get('/livez', (_req, res) => {
    res.json({ live: true, node: nodeName() });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await checkReadiness();
    res.status(readiness.ready ? 200 : 503).json({ ...readiness, node: nodeName() });
  });
  app.get('/healthz', async (_req, res) => {
    const health = await checkHealth();
    res.status(health.ok ? 200 : 503).json(health);
  });
  // /metrics on this port only with METRICS_TOKEN, and only for its bearer (ADR 150); served while the database is away.
  app.use(metricsOnMainPort());
  // While the database is away: 503 with Retry-After at once, never a 500 (ADR 143).
  app.use(answerWhileDatabaseAway());

  // CSRF: a state-changing request must come from this very origin (subdomains are same-site to each other,
  // so SameSite=Lax alone would let one account's pages post to another's).
  app.use((req, res, next) => {
    if (['GET', 'HEAD', 'OPTIONS'].includes(req.method) || isPublicEndpoint(req.path)) return next();
    if (isSameOrigin(req.headers)) return next();
    res.status(403).type('text/plain').send('Cross-origin request refused');
  });

  // Raw-MIME mail posted by mail services, authenticated by each inbox's secret.
  app.use(emailWebhookRouter());

  // Brotli (or gzip) for pages, CSS and JavaScript: the inbox's HTML and the client bundle shrink 5-10x (ADR 030).
  app.use(compression());
  app.use('/build', labelAs('static'), express.static(path.join(opts.publicDir, 'build'), { immutable: true, maxAge: '1y' }));
  // Only paths under the public folder's own entries look for a file: a page request costs no stat() (ADR 110).
  const publicEntries = new Set(fs.existsSync(opts.publicDir) ? fs.readdirSync(opts.publicDir) : []);
  const publicFiles = express.static(opts.publicDir, { maxAge: '1h' });
  const asStatic = labelAs('static');
  app.use((req, res, next) => (publicEntries.has(req.path.split('/')[1] ?? '') ? asStatic(req, res, () => publicFiles(req, res, next)) : next()));
  // {kbSlug}.HELP_HOST and custom domains serve only the help centre's routes, without the agent cookie (ADR 056).
  app.use(helpHostRouter());
  // A page's loaders share what they all read (tenant, session, user) once per GET (ADR 052).
  app.use((req, _res, next) => (req.method === 'GET' || req.method === 'HEAD' ? runInRequestScope(next) : next()));
  // Events written while serving a request carry its address (trust proxy honoured) and user agent (ADR 070).
  app.use((req, _res, next) => runWithRequestOrigin({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null }, next));

  app.use(
    createRequestHandler({
      build: withRouteLabels(withInputBoundary(opts.build)),
      mode: config.nodeEnv === 'development' ? 'development' : 'production',
      // peerAddress is the socket's own address, never a forwarded header (the local-trial mailbox relies on it).
      getLoadContext: (req, res) => ({ cspNonce: String(res.locals.cspNonce ?? ''), peerAddress: req.socket.remoteAddress ?? '' }),
    }),
  );
  // What an Express endpoint outside Remix let escape: a database that is away is a 503, anything else a 500.
  app.use((err: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (res.headersSent) return next(err);
    if (noteDatabaseError(err)) {
      res.status(503).json({ error: 'unavailable', message: UNAVAILABLE_MESSAGE });
      return;
    }
    log.error({ method: req.method, path: req.path, err: (err as Error)?.message }, 'server error');
    res.status(500).type('text/plain').send('Internal Server Error');
  });
  return app;
}

/** Endpoints called by other sites or services (widget, webhooks) carry their own authentication. */
function isPublicEndpoint(p: string) {
  // /c/u/: RFC 8058 one-click unsubscribe, posted by mail providers; the signed link is its authentication.
  // /api/: the Developer API authenticates each request by its bearer key and never by a cookie (ADR 076).
  return p.startsWith('/public/') || p.startsWith('/webhooks/') || p.startsWith('/c/u/') || p.startsWith('/api/v1/');
}

/**
 * Browsers say where a request comes from: Sec-Fetch-Site when they support it, Origin otherwise. Clients that
 * send neither (curl, other servers) carry no ambient browser cookies, so they are not a CSRF risk.
 */
export function isSameOrigin(headers: Record<string, string | string[] | undefined>) {
  const site = headers['sec-fetch-site'];
  if (site) return site === 'same-origin' || site === 'none';
  const origin = headers.origin;
  if (typeof origin !== 'string') return true;
  if (origin === 'null') return false;
  try {
    return new URL(origin).host === headers.host;
  } catch {
    return false;
  }
}
