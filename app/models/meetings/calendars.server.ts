import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { singleton } from '../../utils/singleton.server';
import { emitEvent } from '../events/events.server';
import { exchangeGoogleCode, googleFreeBusy, refreshGoogleToken, revokeGoogleToken } from './google-calendar.server';
import type { Span } from './slots';

const c = schema.calendarConnections;
export type CalendarConnection = typeof c.$inferSelect;

/** The OAuth `state`: the account and user it was started for, signed, so a callback cannot be replayed into another. */
export function signOAuthState(opts: { accountId: number; userId: number }) {
  const payload = `${opts.accountId}.${opts.userId}.${Date.now()}`;
  const mac = crypto.createHmac('sha256', getConfig().sessionSecret).update(`google-oauth:${payload}`).digest('base64url').slice(0, 32);
  return `${payload}.${mac}`;
}

export function verifyOAuthState(state: string, opts: { accountId: number; userId: number }) {
  const parts = state.split('.');
  if (parts.length !== 4) return false;
  const [a, u, t, mac] = parts;
  const expected = crypto.createHmac('sha256', getConfig().sessionSecret).update(`google-oauth:${a}.${u}.${t}`).digest('base64url').slice(0, 32);
  if (mac.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return false;
  // Ten minutes to consent.
  return Number(a) === opts.accountId && Number(u) === opts.userId && Date.now() - Number(t) < 10 * 60_000;
}

export async function getCalendarConnection(opts: { accountId: number; userId: number }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.userId), eq(c.provider, 'google')));
  return row;
}

/** Finishes the consent: trades the code for tokens and keeps them for the agent (one Google calendar per agent). */
export async function connectGoogleCalendar(opts: { accountId: number; userId: number; code: string; redirectUri: string }) {
  const tokens = await exchangeGoogleCode({ code: opts.code, redirectUri: opts.redirectUri });
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(c)
      .values({
        accountId: opts.accountId,
        userId: opts.userId,
        provider: 'google',
        externalAccount: tokens.email,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        tokenExpiresAt: tokens.expiresAt,
      })
      .onConflictDoUpdate({
        target: [c.accountId, c.userId, c.provider],
        set: { externalAccount: tokens.email, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenExpiresAt: tokens.expiresAt },
      })
      .returning();
    await emitEvent(tx, { accountId: opts.accountId, type: 'calendar_connected', subjectType: 'calendar', subjectId: row.id, payload: { provider: 'google', account: tokens.email }, actor: { type: 'user', id: opts.userId } });
    return row;
  });
}

/** Disconnect: the tokens are deleted here and revoked at Google (a failed revoke still deletes them here). */
export async function disconnectCalendar(opts: { accountId: number; userId: number }) {
  const row = await getDb().transaction(async (tx) => {
    const [deleted] = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.userId)))
      .returning();
    if (deleted) await emitEvent(tx, { accountId: opts.accountId, type: 'calendar_disconnected', subjectType: 'calendar', subjectId: deleted.id, payload: { provider: deleted.provider }, actor: { type: 'user', id: opts.userId } });
    return deleted;
  });
  if (row) {
    await revokeGoogleToken({ token: row.refreshToken ?? row.accessToken }).catch((err) =>
      getLogger().warn({ err: (err as Error).message, accountId: opts.accountId }, 'google token revoke failed'),
    );
  }
  return Boolean(row);
}

/** An access token that is valid for the next minute, refreshed (and saved) when needed. */
export async function freshAccessToken(conn: CalendarConnection) {
  if (conn.tokenExpiresAt && conn.tokenExpiresAt.getTime() > Date.now() + 60_000) return conn.accessToken;
  if (!conn.refreshToken) return conn.accessToken;
  const tokens = await refreshGoogleToken({ refreshToken: conn.refreshToken });
  await getDb()
    .update(c)
    .set({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenExpiresAt: tokens.expiresAt })
    .where(and(eq(c.accountId, conn.accountId), eq(c.id, conn.id)));
  return tokens.accessToken;
}

/**
 * The busy spans of the hosts' connected calendars. A calendar that cannot be read makes its host unavailable for
 * the whole window (ADR 072): offering a time Parley could not check would risk a double booking.
 */
const BUSY_CACHE_MS = 30_000;
const busyCache = () => singleton('calendar-busy-cache', () => new Map<string, { at: number; spans: Span[] }>());

export async function calendarBusy(opts: { accountId: number; userIds: number[]; from: Date; to: Date; fresh?: boolean }): Promise<Map<number, Span[]>> {
  const out = new Map<number, Span[]>();
  if (opts.userIds.length === 0) return out;
  const conns = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), inArray(c.userId, opts.userIds)));
  await Promise.all(
    conns.map(async (conn) => {
      // Page views share a host's busy times for 30 seconds (Google's quota, the page's speed); a booking reads them fresh.
      const key = `${conn.id}:${conn.accessToken.slice(-8)}`;
      const cached = busyCache().get(key);
      if (!opts.fresh && cached && Date.now() - cached.at < BUSY_CACHE_MS && cached.spans !== undefined) {
        out.set(conn.userId, cached.spans);
        return;
      }
      try {
        const token = await freshAccessToken(conn);
        // The window asked for already runs a day past the booking window, so a 30-second-old answer still covers it.
        const spans = await googleFreeBusy({ accessToken: token, calendarId: conn.calendarId, timeMin: opts.from, timeMax: opts.to });
        busyCache().set(key, { at: Date.now(), spans });
        if (busyCache().size > 10_000) busyCache().clear();
        out.set(conn.userId, spans);
      } catch (err) {
        getLogger().warn({ err: (err as Error).message, accountId: opts.accountId, userId: conn.userId }, 'calendar free/busy failed');
        out.set(conn.userId, [{ start: opts.from.getTime(), end: opts.to.getTime() }]);
      }
    }),
  );
  return out;
}
