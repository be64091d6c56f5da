import { getConfig } from '../../utils/env.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { parseJsonObject } from '../../utils/json';
import type { Span } from './slots';

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
  const g = google();
  const params = new URLSearchParams({
    client_id: g.clientId,
    redirect_uri: opts.redirectUri,
    response_type: 'code',
    scope: GOOGLE_SCOPES.join(' '),
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state: opts.state,
  });
  return `${g.accountsBase}/o/oauth2/v2/auth?${params}`;
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
    // OAuth errors are { error, error_description }; API errors are { error: { code, message } }.
    const e = body.error as { message?: string } | string | undefined;
    const message = typeof e === 'string' ? `${e}${body.error_description ? `: ${String(body.error_description)}` : ''}` : (e?.message ?? `HTTP ${res.status}`);
    throw new GoogleCalendarError(`Google answered: ${message}`, res.status);
  }
  return body;
}

export type GoogleTokens = { accessToken: string; refreshToken: string | null; expiresAt: Date; email: string };

function readTokens(body: Record<string, unknown>, previousRefresh: string | null = null): GoogleTokens {
  if (typeof body.access_token !== 'string') throw new GoogleCalendarError('Google sent no access token', 0);
  let email = '';
  if (typeof body.id_token === 'string') {
    // The id token came straight from Google's token endpoint over TLS: its claims are read, not verified (OpenID Connect Core 3.1.3.7).
    try {
      const claims = JSON.parse(Buffer.from(body.id_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { email?: string };
      email = claims.email ?? '';
    } catch {
      email = '';
    }
  }
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : previousRefresh,
    expiresAt: new Date(Date.now() + Number(body.expires_in ?? 3600) * 1000),
    email,
  };
}

export async function exchangeGoogleCode(opts: { code: string; redirectUri: string }) {
  const g = google();
  const body = await call(`${g.oauthBase}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ code: opts.code, client_id: g.clientId, client_secret: g.clientSecret, redirect_uri: opts.redirectUri, grant_type: 'authorization_code' }).toString(),
  });
  return readTokens(body);
}

export async function refreshGoogleToken(opts: { refreshToken: string }) {
  const g = google();
  const body = await call(`${g.oauthBase}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ refresh_token: opts.refreshToken, client_id: g.clientId, client_secret: g.clientSecret, grant_type: 'refresh_token' }).toString(),
  });
  return readTokens(body, opts.refreshToken);
}

/** Revokes the grant at Google (disconnect); a token Google no longer knows is already revoked. */
export async function revokeGoogleToken(opts: { token: string }) {
  const g = google();
  try {
    await call(`${g.oauthBase}/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: opts.token }).toString() });
  } catch (err) {
    if (err instanceof GoogleCalendarError && err.status === 400) return;
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
