import { getSql } from '../../db/client';

/**
 * The one rate limiter: fixed windows kept in PostgreSQL (`rate_limits`), so every Parley process sees the same
 * counts and a restart forgets nothing. One atomic upsert per counted attempt. Throws a 429 Response when the
 * window is full. See ADR 023.
 *
 * Client addresses come from Express's `req.ip` (server/app.ts), which trusts X-Forwarded-For only from the
 * proxies named in TRUST_PROXY: a client cannot reset its limit by sending a new header value.
 */

type Limit = { limit: number; windowMs: number };

/** The 429 a full window answers (for a caller that counted the attempt in its own statement). */
export const rateLimitedResponse = (resetAt: Date | string) => tooMany(resetAt);

function tooMany(resetAt: Date | string) {
  // The pool of the web server parses timestamps as strings in some set-ups (pg-boss registers its own types).
  const retryAfter = Math.max(1, Math.ceil((new Date(resetAt).getTime() - Date.now()) / 1000));
  return new Response(`Too many attempts. Try again in ${retryAfter} seconds.`, {
    status: 429,
    headers: { 'Retry-After': String(retryAfter), 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

/** Counts one attempt against `key`; returns the count in the current window. */
export async function hitRateLimit(key: string, opts: Limit) {
  const sql = getSql();
  const [row] = await sql<{ count: number; reset_at: Date }[]>`
    insert into rate_limits (key, count, reset_at)
    values (${key}, 1, now() + ${opts.windowMs} * interval '1 millisecond')
    on conflict (key) do update set
      count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning count, reset_at`;
  // Now and then, expired windows are swept away (the index on reset_at keeps it cheap).
  if (Math.random() < 0.01) void sql`delete from rate_limits where reset_at < now() - interval '1 hour'`.catch(() => {});
  return { count: Number(row.count), resetAt: new Date(row.reset_at) };
}

/** Counts this attempt and refuses it when the window already held `limit` attempts. */
export async function enforceRateLimit(key: string, opts: Limit) {
  const { count, resetAt } = await hitRateLimit(key, opts);
  if (count > opts.limit) throw tooMany(resetAt);
}

/**
 * Refuses when the window is full without counting this attempt: for limits that count failures only (sign-in),
 * checked first, with `hitRateLimit` called once the attempt has failed.
 */
export async function checkRateLimit(key: string, opts: Limit) {
  const sql = getSql();
  const [row] = await sql<{ count: number; reset_at: Date }[]>`select count, reset_at from rate_limits where key = ${key} and reset_at > now()`;
  if (row && Number(row.count) >= opts.limit) throw tooMany(row.reset_at);
}

export function clientIp(request: Request) {
  return request.headers.get('x-parley-client-ip') ?? 'unknown';
}

/**
 * For a form that should show "Too many attempts…" beside its fields (with the 429 status) rather than the error
 * page: the message of a thrown 429, or the error thrown again.
 */
export async function tooManyMessage(err: unknown): Promise<string> {
  if (err instanceof Response && err.status === 429) return err.text();
  throw err;
}
