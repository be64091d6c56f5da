import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';

/**
 * A suspended account (ADR 152) takes no new work: its channels refuse with a temporary error (SMTP 451, HTTP 503
 * with Retry-After) so that senders keep what they sent and try again, and nothing is stored meanwhile.
 */
export const SUSPENDED_MESSAGE = 'This account is suspended by the operator of this Parley installation. Try again later.';

/** Seconds a refused sender is told to wait before it tries again. */
export const SUSPENDED_RETRY_AFTER_SECONDS = 900;

export class AccountSuspendedError extends Error {
  constructor(public readonly accountId: number) {
    super(SUSPENDED_MESSAGE);
  }
}

/** Whether the account is suspended now (a primary-key read; a deleted account reads as not suspended). */
export async function isAccountSuspended(accountId: number) {
  const [row] = await getDb().select({ suspendedAt: schema.accounts.suspendedAt }).from(schema.accounts).where(eq(schema.accounts.id, accountId));
  return Boolean(row?.suspendedAt);
}

/** The guard of every ingestion point: throws AccountSuspendedError, which each channel answers in its own words. */
export async function assertAccountTakingWork(accountId: number) {
  if (await isAccountSuspended(accountId)) throw new AccountSuspendedError(accountId);
}

/** The HTTP answer of a channel endpoint for a suspended account: 503 and when to come back. */
export function suspendedResponse(body: string = SUSPENDED_MESSAGE, headers: Record<string, string> = {}) {
  return new Response(body, {
    status: 503,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(SUSPENDED_RETRY_AFTER_SECONDS), ...headers },
  });
}
