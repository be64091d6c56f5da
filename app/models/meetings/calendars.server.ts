import crypto from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { singleton } from '../../utils/singleton.server';
import { emitEvent } from '../events/events.server';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { caldavBusy, caldavCheck, caldavDeleteEvent, caldavPutEvent, collectionUrl, type CaldavCredentials } from './caldav.server';
import { deleteGoogleEvent, exchangeGoogleCode, googleFreeBusy, insertGoogleEvent, patchGoogleEvent, refreshGoogleToken, revokeGoogleToken } from './google-calendar.server';
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

export async function getCalendarConnection(opts: { accountId: number; userId: number; provider?: 'google' | 'caldav' }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.userId), eq(c.provider, opts.provider ?? 'google')));
  return row;
}

/** An agent's connected calendars (Google, CalDAV, or both), without their secrets. */
export async function listCalendarConnections(opts: { accountId: number; userId: number }) {
  return getDb()
    .select({ id: c.id, provider: c.provider, externalAccount: c.externalAccount, serverUrl: c.serverUrl, username: c.username })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.userId)))
    .orderBy(c.provider);
}

const CALDAV_PURPOSE = 'caldav-password';

function caldavCredentials(conn: CalendarConnection): CaldavCredentials {
  return { url: conn.serverUrl ?? '', username: conn.username ?? '', password: openSecret(conn.accessToken, { accountId: conn.accountId, purpose: CALDAV_PURPOSE }) };
}

/**
 * Connects a CalDAV calendar (ADR 088): the collection is checked with these credentials first (a wrong password or
 * an address that is not a calendar is refused, nothing saved), then kept with the password encrypted at rest.
 */
export async function connectCaldavCalendar(opts: { accountId: number; userId: number; url: string; username: string; password: string }) {
  const url = collectionUrl(opts.url.trim());
  const { displayName } = await caldavCheck({ url, username: opts.username, password: opts.password });
  const externalAccount = displayName ? `${displayName} (${opts.username})` : `${opts.username} at ${new URL(url).host}`;
  const values = { serverUrl: url, username: opts.username, accessToken: sealSecret(opts.password, { accountId: opts.accountId, purpose: CALDAV_PURPOSE }), refreshToken: null, tokenExpiresAt: null, externalAccount };
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(c)
      .values({ accountId: opts.accountId, userId: opts.userId, provider: 'caldav', ...values })
      .onConflictDoUpdate({ target: [c.accountId, c.userId, c.provider], set: values })
      .returning();
    await emitEvent(tx, { accountId: opts.accountId, type: 'calendar_connected', subjectType: 'calendar', subjectId: row.id, payload: { provider: 'caldav', account: externalAccount, url }, actor: { type: 'user', id: opts.userId } });
    return row;
  });
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

/**
 * Disconnect: the tokens (or the CalDAV password) are deleted here, and Google's are revoked there (a failed revoke
 * still deletes them here). Without a provider, every calendar of the agent is disconnected.
 */
export async function disconnectCalendar(opts: { accountId: number; userId: number; provider?: 'google' | 'caldav' }) {
  const rows = await getDb().transaction(async (tx) => {
    const deleted = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.userId), opts.provider ? eq(c.provider, opts.provider) : undefined))
      .returning();
    for (const d of deleted) await emitEvent(tx, { accountId: opts.accountId, type: 'calendar_disconnected', subjectType: 'calendar', subjectId: d.id, payload: { provider: d.provider }, actor: { type: 'user', id: opts.userId } });
    return deleted;
  });
  for (const row of rows) {
    if (row.provider !== 'google') continue;
    await revokeGoogleToken({ token: row.refreshToken ?? row.accessToken }).catch((err) =>
      getLogger().warn({ err: (err as Error).message, accountId: opts.accountId }, 'google token revoke failed'),
    );
  }
  return rows.length > 0;
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
        // The window asked for already runs a day past the booking window, so a 30-second-old answer still covers it.
        const spans =
          conn.provider === 'caldav'
            ? await caldavBusy({ ...caldavCredentials(conn), from: opts.from, to: opts.to })
            : await googleFreeBusy({ accessToken: await freshAccessToken(conn), calendarId: conn.calendarId, timeMin: opts.from, timeMax: opts.to });
        busyCache().set(key, { at: Date.now(), spans });
        if (busyCache().size > 10_000) busyCache().clear();
        out.set(conn.userId, [...(out.get(conn.userId) ?? []), ...spans]);
      } catch (err) {
        getLogger().warn({ err: (err as Error).message, accountId: opts.accountId, userId: conn.userId, provider: conn.provider }, 'calendar free/busy failed');
        out.set(conn.userId, [...(out.get(conn.userId) ?? []), { start: opts.from.getTime(), end: opts.to.getTime() }]);
      }
    }),
  );
  return out;
}

/**
 * Where a booking's event lives in its host's calendars: `calendar_event_id` holds `{"google": id, "caldav": href}`
 * (a bare id, from before CalDAV, is a Google event id).
 */
export type EventRefs = { google?: string; caldav?: string };

export function readEventRefs(stored: string | null): EventRefs {
  if (!stored) return {};
  if (!stored.startsWith('{')) return { google: stored };
  try {
    return JSON.parse(stored) as EventRefs;
  } catch {
    return {};
  }
}

export type CalendarEvent = { uid: string; summary: string; description: string; location: string; start: Date; end: Date; attendeeEmail: string; sequence: number; ics: string };

/**
 * Writes the booking into each calendar its host has connected: a new event, or (rescheduled, `previous` given) the
 * same event moved — Google's is patched, CalDAV's resource is PUT again under the same UID. A calendar that fails is
 * logged and skipped: the booking stands and its emails carry the invitation.
 */
export async function putBookingEvents(opts: { accountId: number; hostUserId: number; event: CalendarEvent; previous?: EventRefs }): Promise<EventRefs> {
  const conns = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.hostUserId)));
  const refs: EventRefs = {};
  const e = opts.event;
  for (const conn of conns) {
    try {
      if (conn.provider === 'caldav') {
        refs.caldav = await caldavPutEvent({ ...caldavCredentials(conn), uid: e.uid, ics: e.ics });
      } else if (opts.previous?.google) {
        await patchGoogleEvent({ accessToken: await freshAccessToken(conn), calendarId: conn.calendarId, eventId: opts.previous.google, start: e.start, end: e.end, sequence: e.sequence });
        refs.google = opts.previous.google;
      } else {
        refs.google = await insertGoogleEvent({ accessToken: await freshAccessToken(conn), calendarId: conn.calendarId, summary: e.summary, description: e.description, location: e.location, start: e.start, end: e.end, attendeeEmail: e.attendeeEmail, iCalUID: e.uid });
      }
    } catch (err) {
      getLogger().warn({ err: (err as Error).message, accountId: opts.accountId, provider: conn.provider }, 'calendar event write failed');
    }
  }
  return refs;
}

/** Removes the booking's events from its host's calendars (cancelled, or moved to another host). */
export async function deleteBookingEvents(opts: { accountId: number; hostUserId: number; refs: EventRefs }) {
  if (!opts.refs.google && !opts.refs.caldav) return;
  const conns = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.userId, opts.hostUserId)));
  for (const conn of conns) {
    try {
      if (conn.provider === 'caldav' && opts.refs.caldav) await caldavDeleteEvent({ ...caldavCredentials(conn), href: opts.refs.caldav });
      if (conn.provider === 'google' && opts.refs.google) await deleteGoogleEvent({ accessToken: await freshAccessToken(conn), calendarId: conn.calendarId, eventId: opts.refs.google });
    } catch (err) {
      getLogger().warn({ err: (err as Error).message, accountId: opts.accountId, provider: conn.provider }, 'calendar event delete failed');
    }
  }
}
