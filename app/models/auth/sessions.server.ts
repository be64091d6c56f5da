import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { randomToken } from '../../utils/password.server';

/** "Remember me" keeps a session 5 days (the specification's 432000000); otherwise 12 hours and the cookie ends with the browser. */
export const REMEMBER_MS = 432_000_000;
export const SHORT_SESSION_MS = 12 * 3600_000;
export const PENDING_STEP_MS = 30 * 60_000;

export type PendingStep = NonNullable<typeof schema.sessions.$inferSelect.pendingStep>;

/**
 * A session after the password. With `pendingStep` it opens no page of the app until the second step is done
 * (completeSessionStep); the user's last sign-in is recorded only for a full session.
 */
export async function createSession(opts: { accountId: number; userId: number; remember: boolean; userAgent?: string | null; pendingStep?: PendingStep | null }) {
  const id = randomToken(32);
  // A session waiting for its second step lives half an hour; completing the step gives it its full length.
  const expiresAt = new Date(Date.now() + (opts.pendingStep ? PENDING_STEP_MS : opts.remember ? REMEMBER_MS : SHORT_SESSION_MS));
  await getDb().insert(schema.sessions).values({
    id,
    accountId: opts.accountId,
    userId: opts.userId,
    remember: opts.remember,
    expiresAt,
    userAgent: opts.userAgent?.slice(0, 300) ?? null,
    pendingStep: opts.pendingStep ?? null,
  });
  if (!opts.pendingStep) await getDb().update(schema.users).set({ lastSignInAt: new Date() }).where(eq(schema.users.id, opts.userId));
  return { id, expiresAt };
}

/** The second step is done: the session becomes full. Only a session still waiting for that step changes. */
export async function completeSessionStep(opts: { id: string; accountId: number; from: PendingStep }) {
  const rows = await getDb()
    .update(schema.sessions)
    .set({
      pendingStep: null,
      lastSeenAt: new Date(),
      expiresAt: sql`now() + make_interval(secs => case when ${schema.sessions.remember} then ${REMEMBER_MS / 1000}::int else ${SHORT_SESSION_MS / 1000}::int end)`,
    })
    .where(and(eq(schema.sessions.id, opts.id), eq(schema.sessions.accountId, opts.accountId), eq(schema.sessions.pendingStep, opts.from), isNull(schema.sessions.revokedAt)))
    .returning({ userId: schema.sessions.userId });
  if (rows[0]) await getDb().update(schema.users).set({ lastSignInAt: new Date() }).where(and(eq(schema.users.id, rows[0].userId), eq(schema.users.accountId, opts.accountId)));
  return rows.length > 0;
}

/** Idle sign-out is judged from the session's last activity; a request or the page's keep-alive ping moves it on. */
export async function touchSession(opts: { id: string; accountId: number }) {
  await getDb()
    .update(schema.sessions)
    .set({ lastSeenAt: new Date() })
    .where(and(eq(schema.sessions.id, opts.id), eq(schema.sessions.accountId, opts.accountId)));
}

/** Requests touch the session at most this often (a write per request would be waste); pings always do. */
export const TOUCH_EVERY_MS = 15_000;

/** Whether an account's idle sign-out has ended this session: no activity for longer than the account allows. */
export function isIdleExpired(session: { lastSeenAt: Date }, idleSignOutMinutes: number | undefined, now = Date.now()) {
  if (!idleSignOutMinutes || idleSignOutMinutes <= 0) return false;
  return now - session.lastSeenAt.getTime() > idleSignOutMinutes * 60_000;
}

export type SessionLookup =
  | { state: 'missing' }
  | { state: 'expired' }
  | { state: 'pending'; session: typeof schema.sessions.$inferSelect; step: PendingStep }
  | { state: 'active'; session: typeof schema.sessions.$inferSelect };

/** A session counts only on the account it was made for: the cookie of account A means nothing on B. */
export async function findSession(opts: { id: string; accountId: number }): Promise<SessionLookup> {
  const [session] = await getDb()
    .select()
    .from(schema.sessions)
    .where(and(eq(schema.sessions.id, opts.id), eq(schema.sessions.accountId, opts.accountId)));
  return judgeSession(session);
}

/** Whether a session row read elsewhere (the app context reads it joined with its user) is usable. */
export function judgeSession(session: typeof schema.sessions.$inferSelect | null | undefined): SessionLookup {
  if (!session) return { state: 'missing' };
  if (session.revokedAt) return { state: 'missing' };
  if (session.expiresAt.getTime() <= Date.now()) return { state: 'expired' };
  if (session.pendingStep) return { state: 'pending', session, step: session.pendingStep };
  return { state: 'active', session };
}

export async function revokeSession(opts: { id: string; accountId: number }) {
  await getDb()
    .update(schema.sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(schema.sessions.id, opts.id), eq(schema.sessions.accountId, opts.accountId)));
}

export async function revokeUserSessions(opts: { userId: number; accountId: number; exceptId?: string }) {
  const rows = await getDb()
    .update(schema.sessions)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(schema.sessions.userId, opts.userId),
        eq(schema.sessions.accountId, opts.accountId),
        isNull(schema.sessions.revokedAt),
        opts.exceptId ? ne(schema.sessions.id, opts.exceptId) : undefined,
      ),
    )
    .returning({ id: schema.sessions.id });
  return rows.length;
}
