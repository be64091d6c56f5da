import { isAccountSuspended, SUSPENDED_MESSAGE, SUSPENDED_RETRY_AFTER_SECONDS } from '../accounts/suspension.server';
import { accountHasFeature } from '../accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE } from '../plans/catalogue';
import crypto from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { getDb, schema } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { MAX_ROW_ID, parseRouteId } from '../../utils/route-id';
import { hitRateLimit } from '../../utils/rate-limit.server';
import { InvalidReferenceError } from '../inbox/conversations.server';
import { FieldInputError } from '../productivity/shared.server';
import { authenticateApiKey, type ApiKeyRow } from './keys.server';
import { scopeAllows, type ApiScope } from './scopes';

/**
 * The Developer API's request pipeline (ADR 076): bearer key → scope → rate limit → zod parse → idempotency → the
 * domain function. Every answer is JSON; every error has the one body shape `{ error: { code, message, details? } }`.
 */

export const API_RATE_LIMIT = { limit: 600, windowMs: 60_000 };
export const IDEMPOTENCY_HOURS = 24;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`);

export type ApiContext = { accountId: number; key: ApiKeyRow; actorId: number | null };

export type Endpoint<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> = {
  id: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path under /api/v1, e.g. /conversations/{id}. */
  path: string;
  summary: string;
  tag: string;
  scope: ApiScope;
  params?: P;
  query?: Q;
  body?: B;
  status: number;
  response: z.ZodType;
  /** Creates accept an Idempotency-Key. */
  idempotent?: boolean;
  run: (ctx: ApiContext, input: { params: z.infer<P>; query: z.infer<Q>; body: z.infer<B> }) => Promise<unknown>;
};

export function defineEndpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(e: Endpoint<P, Q, B>) {
  return e as unknown as Endpoint;
}

function errorBody(code: string, message: string, details?: unknown) {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } };
}

function json(body: unknown, status: number, headers: Record<string, string> = {}) {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { ...(status === 204 ? {} : { 'Content-Type': 'application/json; charset=utf-8' }), 'Cache-Control': 'no-store', ...headers },
  });
}

function zodDetails(err: z.ZodError) {
  return err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

function parse<T extends z.ZodType>(schemaOf: T | undefined, value: unknown, where: 'path' | 'query' | 'body'): z.infer<T> {
  if (!schemaOf) return undefined as z.infer<T>;
  const result = schemaOf.safeParse(value);
  // A path id that cannot name a row (0, 2147483648, abc) names nothing: the same 404 as an id of another account.
  if (!result.success && where === 'path') throw notFound();
  if (!result.success) throw new ApiError(400, 'invalid_request', `The request's ${where} is not valid`, zodDetails(result.error));
  return result.data;
}

/** Runs the endpoint of `endpoints` that matches the request's method (405 otherwise). */
export async function handleApi(request: Request, routeParams: Record<string, string | undefined>, endpoints: Endpoint[]): Promise<Response> {
  const method = request.method.toLowerCase();
  const endpoint = endpoints.find((e) => e.method === method);
  if (!endpoint)
    return json(errorBody('method_not_allowed', `${request.method} is not allowed here`), 405, { Allow: endpoints.map((e) => e.method.toUpperCase()).join(', ') });
  let rateHeaders: Record<string, string> = {};
  try {
    const auth = request.headers.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw new ApiError(401, 'unauthorized', 'Send an API key as "Authorization: Bearer <key>"');
    const key = await authenticateApiKey(m[1]);
    if (!key) throw new ApiError(401, 'unauthorized', 'The API key is not valid or was revoked');
    if (await isAccountSuspended(key.accountId)) {
      rateHeaders = { 'Retry-After': String(SUSPENDED_RETRY_AFTER_SECONDS) };
      throw new ApiError(503, 'account_suspended', SUSPENDED_MESSAGE);
    }
    const { count, resetAt } = await hitRateLimit(`api:key:${key.id}`, API_RATE_LIMIT);
    const reset = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
    rateHeaders = {
      'RateLimit-Limit': String(API_RATE_LIMIT.limit),
      'RateLimit-Remaining': String(Math.max(0, API_RATE_LIMIT.limit - count)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${API_RATE_LIMIT.limit};w=${API_RATE_LIMIT.windowMs / 1000}`,
    };
    if (count > API_RATE_LIMIT.limit) {
      rateHeaders['Retry-After'] = String(reset);
      throw new ApiError(429, 'rate_limited', `Too many requests: at most ${API_RATE_LIMIT.limit} a minute per key`);
    }
    // The API belongs to the Integrations area of the plan (Settings → Developer API; ADR 157).
    if (!(await accountHasFeature({ accountId: key.accountId, key: 'integrations/enabled' }))) throw new ApiError(403, 'plan_feature', FEATURE_DENIED_MESSAGE);
    if (!scopeAllows(key.scopes, endpoint.scope)) throw new ApiError(403, 'forbidden', `This key lacks the ${endpoint.scope} scope`);
    const ctx: ApiContext = { accountId: key.accountId, key, actorId: key.createdById };
    const url = new URL(request.url);
    const params = parse(endpoint.params, routeParams, 'path');
    const query = parse(endpoint.query, Object.fromEntries(url.searchParams), 'query');
    let raw: unknown;
    let rawText = '';
    if (endpoint.body) {
      if (!(request.headers.get('content-type') ?? '').includes('application/json'))
        throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json');
      rawText = await request.text();
      if (rawText.length > 1_000_000) throw new ApiError(413, 'too_large', 'The body is larger than 1 MB');
      try {
        raw = JSON.parse(rawText);
      } catch {
        throw new ApiError(400, 'invalid_json', 'The body is not valid JSON');
      }
    }
    const body = parse(endpoint.body, raw, 'body');
    const idemKey = endpoint.idempotent ? request.headers.get('idempotency-key') : null;
    if (idemKey !== null && (idemKey.length === 0 || idemKey.length > 255)) throw new ApiError(400, 'invalid_request', 'Idempotency-Key must be 1 to 255 characters');
    const requestHash = crypto.createHash('sha256').update(`${method} ${url.pathname}\n${rawText}`).digest('hex');
    if (idemKey) {
      const [seen] = await getDb()
        .select()
        .from(schema.apiIdempotencyKeys)
        .where(
          and(
            eq(schema.apiIdempotencyKeys.accountId, key.accountId),
            eq(schema.apiIdempotencyKeys.apiKeyId, key.id),
            eq(schema.apiIdempotencyKeys.key, idemKey),
            sql`${schema.apiIdempotencyKeys.createdAt} > now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`,
          ),
        );
      if (seen) {
        if (seen.requestHash !== requestHash) throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with another request');
        return json(seen.body, seen.status, { ...rateHeaders, 'Idempotent-Replayed': 'true' });
      }
    }
    const result = await endpoint.run(ctx, { params, query, body });
    if (idemKey) await rememberIdempotent({ accountId: key.accountId, apiKeyId: key.id, key: idemKey, requestHash, status: endpoint.status, body: result });
    return json(result, endpoint.status, rateHeaders);
  } catch (err) {
    if (err instanceof ApiError) return json(errorBody(err.code, err.message, err.details), err.status, rateHeaders);
    if (err instanceof FieldInputError) return json(errorBody('validation_failed', err.message, [{ path: err.field, message: err.message }]), 422, rateHeaders);
    if (err instanceof InvalidReferenceError) return json(errorBody('validation_failed', err.message), 422, rateHeaders);
    if (err instanceof Response) return json(errorBody('error', err.statusText || 'Request refused'), err.status, rateHeaders);
    // A PostgreSQL data exception (class 22: a number out of range, an invalid literal) comes from a value sent
    // that a schema let through: the client's 400, never a 500 (ADR 144).
    if (isDataException(err)) return json(errorBody('invalid_request', 'A value of the request is out of range or not valid'), 400, rateHeaders);
    getLogger().error({ err: (err as Error).message, endpoint: endpoint.id }, 'api request failed');
    return json(errorBody('internal_error', 'Something went wrong on our side'), 500, rateHeaders);
  }
}

function isDataException(err: unknown) {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e && typeof e === 'object' ? (e.cause?.code ?? e.code) : undefined;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

async function rememberIdempotent(row: typeof schema.apiIdempotencyKeys.$inferInsert) {
  const db = getDb();
  await db
    .insert(schema.apiIdempotencyKeys)
    .values(row)
    .onConflictDoUpdate({
      target: [schema.apiIdempotencyKeys.apiKeyId, schema.apiIdempotencyKeys.key],
      set: { requestHash: row.requestHash, status: row.status, body: row.body, createdAt: new Date() },
    });
  // Old answers are swept now and then (the created_at index keeps it cheap).
  if (Math.random() < 0.01)
    void db
      .delete(schema.apiIdempotencyKeys)
      .where(lt(schema.apiIdempotencyKeys.createdAt, sql`now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`))
      .catch(() => {});
}

/**
 * An id in a path or a body: every table's id is a PostgreSQL integer, so 1..2147483647; past it the answer is a
 * 400 (a 404 in the path), never the database's error. Every endpoint's ids go through this one schema.
 */
export const RowIdSchema = z.number().int().positive().max(MAX_ROW_ID);
export const PathIdSchema = z.coerce.number().int().positive().max(MAX_ROW_ID);

/** Cursor pagination: the cursor is the last id of the page, opaque to clients. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(40).optional(),
});

export function decodeCursor(cursor: string | undefined) {
  if (!cursor) return undefined;
  // The cursor is an id (see page()): plain digits within PostgreSQL's integer, or a 400.
  const n = parseRouteId(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (n === null) throw new ApiError(400, 'invalid_request', 'The cursor is not valid', [{ path: 'cursor', message: 'Use the nextCursor of a previous page' }]);
  return n;
}

export function page<T extends { id: number }>(rows: T[], limit: number) {
  const more = rows.length > limit;
  const data = rows.slice(0, limit);
  return { data, nextCursor: more ? Buffer.from(String(data[data.length - 1].id)).toString('base64url') : null };
}

export const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
