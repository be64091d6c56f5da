import { singleton } from './singleton.server';

type Bucket = { count: number; resetAt: number };

/**
 * Fixed-window counter kept in memory: enough for one Parley process, and what stands between a
 * sign-in form and a password-guessing script. Throws a 429 Response when the window is full.
 */
export function enforceRateLimit(key: string, opts: { limit: number; windowMs: number }) {
  const buckets = singleton('rate-limit-buckets', () => new Map<string, Bucket>());
  const now = Date.now();
  let bucket = buckets.get(key);
  if (!bucket || bucket.resetAt <= now) {
    bucket = { count: 0, resetAt: now + opts.windowMs };
    buckets.set(key, bucket);
  }
  bucket.count += 1;
  if (buckets.size > 50_000) {
    for (const [k, b] of buckets) if (b.resetAt <= now) buckets.delete(k);
  }
  if (bucket.count > opts.limit) {
    const retryAfter = Math.ceil((bucket.resetAt - now) / 1000);
    throw new Response(`Too many attempts. Try again in ${retryAfter} seconds.`, {
      status: 429,
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

export function clientIp(request: Request) {
  return request.headers.get('x-parley-client-ip') ?? 'unknown';
}
