import type { ServerBuild } from '@remix-run/node';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { getLogger } from '../app/utils/logger.server';
import { noteDatabaseError } from '../db/availability';
import { databaseUnavailableResponse } from './database-outage';

/**
 * The input boundary (ADR 023): every loader and action of the Remix build runs inside it, and the Express
 * endpoints sit behind its middleware. What a client sends can be refused with a 4xx here, never turned into a
 * 500 further in:
 *
 * - a NUL byte anywhere (path, query, form field, JSON string): 400 — PostgreSQL refuses NUL in text;
 * - a multipart body without a boundary or that cannot be parsed, a JSON or text body where a form is read: 400/415;
 * - whatever still escapes a route as a body-parsing error or a PostgreSQL data exception (a number out of range,
 *   a value too long for an index): 400.
 *
 * Each refusal is one log line (route, status, reason), without a stack trace.
 */

const MULTIPART_PRECHECK_LIMIT = 5 * 1024 * 1024;

export class BadInput extends Error {
  constructor(
    public readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** Express middleware for the endpoints outside Remix (and the first look at every request): NUL in the URL. */
export function rejectNulInUrl() {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (hasNulInUrl(req.originalUrl)) {
      getLogger().warn({ method: req.method, path: req.path.replace(/\0/g, ''), status: 400, reason: 'NUL byte in the URL' }, 'bad request');
      res.status(400).type('text/plain').send('Bad Request: the address contains a NUL byte');
      return;
    }
    next();
  };
}

/** The methods Parley's routes answer themselves (each with its own 405 and Allow where it serves fewer). */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What the 405 names as allowed: the methods served under that kind of address (ADR 144). */
export function allowedMethods(path: string) {
  if (path.startsWith('/api/v1/')) return 'GET, HEAD, POST, PATCH, DELETE';
  if (path.startsWith('/public/')) return 'GET, HEAD, POST, OPTIONS';
  return 'GET, HEAD, POST';
}

/**
 * Every other method Node's parser lets through (TRACE, PROPFIND, MKCOL, LOCK, QUERY, SEARCH...) is a 405 with an
 * Allow header on every address, before anything reads it: the Fetch API Remix builds its requests on cannot even
 * hold a TRACE (it throws, which was a 500), and no route of Parley serves WebDAV or the like. Methods Node does not
 * know at all (FOO) get its own 400 before reaching here, and CONNECT never reaches Express.
 */
export function refuseUnservedMethods() {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (ROUTED_METHODS.has(req.method)) return next();
    getLogger().warn({ method: req.method, path: req.path, status: 405, reason: 'method not served' }, 'bad request');
    res.status(405).set('Allow', allowedMethods(req.path)).type('text/plain').send(`Method Not Allowed: ${req.method} is not served here`);
  };
}

/**
 * Parley uses Remix's single fetch (`.data` requests); the legacy `?_data=<route>` requests are nothing its pages
 * send, and Remix half-answers them (a 500 for a loader that returns null). They are answered as the page itself
 * would be: the `_data` parameter is dropped, and the page's own guards answer (redirect to sign-in, 404, 400).
 */
export function dataRequestsAsPages() {
  return (req: ExpressRequest, _res: ExpressResponse, next: NextFunction) => {
    const q = req.originalUrl.indexOf('?');
    if (q >= 0 && /(?:^|&)_data(?:=|&|$)/.test(req.originalUrl.slice(q + 1))) {
      const params = new URLSearchParams(req.originalUrl.slice(q + 1));
      params.delete('_data');
      const search = params.toString().replace(/^index=(&|$)/, 'index$1').replace(/&index=(&|$)/, '&index$1');
      const rewritten = `${req.originalUrl.slice(0, q)}${search ? `?${search}` : ''}`;
      req.originalUrl = rewritten;
      req.url = rewritten;
    }
    next();
  };
}

function hasNulInUrl(url: string) {
  return /%00/.test(url) || url.includes('\0');
}

/**
 * How deep a JSON body may nest (ADR 144). Ruby's JSON parser refuses past 100 by default, so no webhook a
 * provider sends nests deeper, nor does anything Parley's own pages and widget send (a handful of levels); and
 * 100 levels keep every recursive walk further in (JSON.stringify into jsonb, zod, sanitisers, logs) a few hundred
 * frames deep, far from the stack's end, where 5,000 levels overflow it.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The deepest nesting of arrays and objects in a JSON text, counted without parsing (brackets inside strings are
 * text); it stops counting once past `limit`. A text that is not JSON is counted all the same.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a parsed JSON value holds a NUL in a key or a string, walked without recursion. */
function hasNul(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k.includes('\0')) return true;
        stack.push(v);
      }
    }
  }
  return false;
}

const TOO_DEEP = `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Looks at a request's body (on a clone: the route reads the original) before the action runs. */
export async function checkBody(request: Request): Promise<void> {
  if (request.method === 'GET' || request.method === 'HEAD' || !request.body) return;
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const text = await request.clone().text();
    // In this encoding a NUL can only be %00 (a typed "%00" arrives as %2500).
    if (text.includes('%00') || text.includes('\0')) throw new BadInput(400, 'A field contains a NUL byte');
    return;
  }
  if (type.startsWith('multipart/form-data')) {
    if (!/;\s*boundary=/.test(type)) throw new BadInput(400, 'The multipart body has no boundary');
    const length = Number(request.headers.get('content-length') ?? NaN);
    if (!Number.isFinite(length) || length > MULTIPART_PRECHECK_LIMIT) return;
    let form: FormData;
    try {
      form = await request.clone().formData();
    } catch {
      throw new BadInput(400, 'The multipart body could not be read');
    }
    for (const [name, value] of form) {
      if (name.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw new BadInput(400, 'A field contains a NUL byte');
    }
    return;
  }
  if (type.startsWith('application/json') || /\+json\b/.test(type)) {
    const text = await request.clone().text();
    if (jsonDepthExceeds(text)) throw new BadInput(400, TOO_DEEP);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The route answers a body it cannot parse itself (or the catch below does).
      return;
    }
    if (hasNul(parsed)) throw new BadInput(400, 'A value contains a NUL byte');
    return;
  }
  const text = await request.clone().text();
  if (text.includes('\0')) throw new BadInput(400, 'The body contains a NUL byte');
  // Webhook routes read their body as JSON whatever its declared type: a body that looks like JSON is held to the
  // same depth.
  if (/^\s*[[{]/.test(text) && jsonDepthExceeds(text)) throw new BadInput(400, TOO_DEEP);
}

/** An error a route let escape that was caused by what the client sent, as the status to answer with. */
export function inputErrorStatus(err: unknown, request: Request): 400 | 415 | null {
  if (err instanceof BadInput) return err.status === 413 ? 400 : err.status;
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string } } | null;
  if (!e || typeof e !== 'object') return null;
  const message = String(e.message ?? '');
  // request.formData() on a JSON or text body, or on a broken multipart one.
  if (e.name === 'TypeError' && /FormData|multipart|boundary|Content-Type/i.test(message)) {
    const type = (request.headers.get('content-type') ?? '').toLowerCase();
    return type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded') ? 400 : 415;
  }
  // request.json() on something that is not JSON.
  if (e.name === 'SyntaxError' && /JSON/i.test(message)) return 400;
  // PostgreSQL: class 22 is "data exception" (NUL in text, a number out of range, an invalid literal); 54000 is a
  // value too long for an index. Both come from the values sent, never from Parley's own state.
  const code = e.cause?.code ?? e.code;
  if (typeof code === 'string' && (/^22[0-9A-Z]{3}$/.test(code) || code === '54000')) return 400;
  return null;
}

function refusal(routeId: string, request: Request, status: number, reason: string) {
  const url = new URL(request.url);
  getLogger().warn({ method: request.method, path: url.pathname, route: routeId, status, reason }, 'bad request');
  // The Developer API answers every error in its one JSON shape (ADR 076).
  if (url.pathname.startsWith('/api/v1/'))
    return Response.json({ error: { code: status === 415 ? 'unsupported_media_type' : 'invalid_request', message: reason } }, { status, headers: { 'Cache-Control': 'no-store' } });
  return new Response(status === 415 ? 'Unsupported Media Type' : `Bad Request: ${reason}`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

type Handler = (args: { request: Request; params: Record<string, string | undefined>; context: unknown }) => unknown;

function guard(routeId: string, kind: 'loader' | 'action', fn: Handler): Handler {
  return async (args) => {
    const { request } = args;
    try {
      if (hasNulInUrl(request.url)) throw new BadInput(400, 'NUL byte in the URL');
      if (Object.values(args.params).some((p) => p?.includes('\0'))) throw new BadInput(400, 'NUL byte in the URL');
      if (kind === 'action') await checkBody(request);
    } catch (err) {
      if (err instanceof BadInput) throw refusal(routeId, request, err.status, err.message);
      throw err;
    }
    try {
      return await fn(args);
    } catch (err) {
      if (err instanceof Response) throw err;
      // The database is away (stopped, failing over): a 503 the proxy and the browser may retry, never a 500 (ADR 143).
      if (noteDatabaseError(err)) throw databaseUnavailableResponse();
      const status = inputErrorStatus(err, request);
      if (status) {
        const e = err as { message?: string; cause?: { code?: string }; code?: string };
        throw refusal(routeId, request, status, `${e.cause?.code ?? e.code ?? (err as Error).name}: ${String(e.message ?? '').slice(0, 120)}`);
      }
      throw err;
    }
  };
}

/** The build with every loader and action inside the boundary. */
export function withInputBoundary(build: ServerBuild): ServerBuild {
  const routes: ServerBuild['routes'] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const m = route.module;
    routes[id] = {
      ...route,
      module: {
        ...m,
        ...(m.loader ? { loader: guard(id, 'loader', m.loader as Handler) as typeof m.loader } : {}),
        ...(m.action ? { action: guard(id, 'action', m.action as Handler) as typeof m.action } : {}),
      },
    };
  }
  return { ...build, routes };
}
