import { getConfig } from '../../utils/env.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { parseJsonObject } from '../../utils/json';
import type { Span } from './slots';
import { authorizationUrl, exchangeCode, GOOGLE_OFFLINE, googleOAuth2, OAuth2Error, refreshTokens, revokeToken, type OAuth2Tokens } from '../../utils/oauth2.server';

/**
 * Google Calendar through its REST API v3 and Google's OAuth 2.0 web-server flow (ADR 072): the consent URL, the
 * code exchange and refresh at the token endpoint, free/busy reads and event inserts. Bases come from GOOGLE_*_BASE,
 * so tests and self-hosters point them at a stand-in speaking the same wire format.
 */

const TIMEOUT_MS = 15_000;
export const GOOGLE_SCOPES = ['https://www.googleapis.com/auth/calendar.freebusy', 'https://www.googleapis.com/auth/calendar.events', 'openid', 'email'];

export class GoogleCalendarError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function google() {
  const g = getConfig().google;
  if (!g) throw new GoogleCalendarError('Google Calendar is not set up on this server (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET)', 0);
  return g;
}

export function isGoogleConfigured() {
  return getConfig().google !== null;
}

/** Where the agent consents: offline access for a refresh token, consent prompt so that Google sends one again. */
export function googleConsentUrl(opts: { redirectUri: string; state: string }) {
  google();
  return authorizationUrl(googleOAuth2()!, { redirectUri: opts.redirectUri, scope: GOOGLE_SCOPES, state: opts.state, extra: GOOGLE_OFFLINE });
}

async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) {
  let res;
  try {
    res = await guardedRequest(url, { ...init, timeoutMs: TIMEOUT_MS, maxBytes: 2 * 1024 * 1024 });
  } catch (err) {
    throw new GoogleCalendarError(`Google could not be reached: ${(err as Error).message}`, 0);
  }
  const body = parseJsonObject(res.text) ?? {};
  if (!res.ok) {
    // API errors are { error: { code, message } }.
    const e = body.error as { message?: string } | string | undefined;
    const message = typeof e === 'string' ? e : (e?.message ?? `HTTP ${res.status}`);
    throw new GoogleCalendarError(`Google answered: ${message}`, res.status);
  }
  return body;
}

export type GoogleTokens = { accessToken: string; refreshToken: string | null; expiresAt: Date; email: string };

/** The token calls go through the one OAuth 2.0 client (app/utils/oauth2.server.ts, ADR 097); its errors become GoogleCalendarError. */
async function viaOAuth2(run: () => Promise<OAuth2Tokens>): Promise<GoogleTokens> {
  google();
  try {
    const t = await run();
    return { accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: t.expiresAt ?? new Date(Date.now() + 3600_000), email: typeof t.idClaims?.email === 'string' ? t.idClaims.email : '' };
  } catch (err) {
    if (err instanceof OAuth2Error) throw new GoogleCalendarError(err.message, err.status);
    throw err;
  }
}

export async function exchangeGoogleCode(opts: { code: string; redirectUri: string }) {
  return viaOAuth2(() => exchangeCode(googleOAuth2()!, opts));
}

export async function refreshGoogleToken(opts: { refreshToken: string }) {
  return viaOAuth2(() => refreshTokens(googleOAuth2()!, opts));
}

/** Revokes the grant at Google (disconnect); a token Google no longer knows is already revoked. */
export async function revokeGoogleToken(opts: { token: string }) {
  google();
  try {
    await revokeToken(googleOAuth2()!, opts);
  } catch (err) {
    if (err instanceof OAuth2Error) throw new GoogleCalendarError(err.message, err.status);
    throw err;
  }
}

/** POST calendar/v3/freeBusy: the busy spans of one calendar between two instants. */
export async function googleFreeBusy(opts: { accessToken: string; calendarId: string; timeMin: Date; timeMax: Date }): Promise<Span[]> {
  const g = google();
  const body = await call(`${g.apiBase}/calendar/v3/freeBusy`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ timeMin: opts.timeMin.toISOString(), timeMax: opts.timeMax.toISOString(), items: [{ id: opts.calendarId }] }),
  });
  const calendars = (body.calendars ?? {}) as Record<string, { busy?: { start: string; end: string }[]; errors?: { reason: string }[] }>;
  const cal = calendars[opts.calendarId];
  if (!cal) throw new GoogleCalendarError('Google returned no answer for the calendar', 0);
  if (cal.errors?.length) throw new GoogleCalendarError(`Google could not read the calendar: ${cal.errors.map((e) => e.reason).join(', ')}`, 0);
  return (cal.busy ?? []).map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) })).filter((b) => Number.isFinite(b.start) && Number.isFinite(b.end));
}

/** POST calendar/v3/calendars/{id}/events: the booking in the host's calendar; returns the event id. */
export async function insertGoogleEvent(opts: {
  accessToken: string;
  calendarId: string;
  summary: string;
  description: string;
  location: string;
  start: Date;
  end: Date;
  attendeeEmail: string;
  iCalUID: string;
}) {
  const g = google();
  const body = await call(`${g.apiBase}/calendar/v3/calendars/${encodeURIComponent(opts.calendarId)}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      summary: opts.summary,
      description: opts.description,
      location: opts.location || undefined,
      start: { dateTime: opts.start.toISOString() },
      end: { dateTime: opts.end.toISOString() },
      attendees: [{ email: opts.attendeeEmail }],
      iCalUID: opts.iCalUID,
    }),
  });
  return String(body.id ?? '');
}

/** PATCH calendar/v3/calendars/{id}/events/{eventId}: a rescheduled booking keeps its event and moves it. */
export async function patchGoogleEvent(opts: { accessToken: string; calendarId: string; eventId: string; start: Date; end: Date; sequence: number }) {
  const g = google();
  await call(`${g.apiBase}/calendar/v3/calendars/${encodeURIComponent(opts.calendarId)}/events/${encodeURIComponent(opts.eventId)}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${opts.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ start: { dateTime: opts.start.toISOString() }, end: { dateTime: opts.end.toISOString() }, sequence: opts.sequence }),
  });
}

export async function deleteGoogleEvent(opts: { accessToken: string; calendarId: string; eventId: string }) {
  const g = google();
  try {
    await call(`${g.apiBase}/calendar/v3/calendars/${encodeURIComponent(opts.calendarId)}/events/${encodeURIComponent(opts.eventId)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${opts.accessToken}` },
    });
  } catch (err) {
    // Already gone (deleted in Google Calendar by the host): nothing left to do.
    if (err instanceof GoogleCalendarError && (err.status === 404 || err.status === 410)) return;
    throw err;
  }
}
