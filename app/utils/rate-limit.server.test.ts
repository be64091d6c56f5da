import { describe, expect, it } from 'vitest';
import { checkRateLimit, enforceRateLimit, hitRateLimit } from './rate-limit.server';

describe('rate limits in PostgreSQL', () => {
  it('counts attempts in a window shared through the database and answers 429 with Retry-After', async () => {
    const key = `test:${Math.random()}`;
    await enforceRateLimit(key, { limit: 2, windowMs: 60_000 });
    await enforceRateLimit(key, { limit: 2, windowMs: 60_000 });
    const err = await enforceRateLimit(key, { limit: 2, windowMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Response);
    expect((err as Response).status).toBe(429);
    expect(Number((err as Response).headers.get('retry-after'))).toBeGreaterThan(50);
  });

  it('checks without counting, and starts a new window once the old one has passed', async () => {
    const key = `test:${Math.random()}`;
    await checkRateLimit(key, { limit: 1, windowMs: 50 });
    await hitRateLimit(key, { limit: 1, windowMs: 50 });
    await expect(checkRateLimit(key, { limit: 1, windowMs: 50 })).rejects.toBeInstanceOf(Response);
    await new Promise((r) => setTimeout(r, 80));
    await checkRateLimit(key, { limit: 1, windowMs: 50 });
    expect((await hitRateLimit(key, { limit: 1, windowMs: 50 })).count).toBe(1);
  });
});
