import { TZDate } from '@date-fns/tz';
import rrulePkg from 'rrule';
import { guardedRequest } from '../../utils/outbound-guard.server';
import type { Span } from './slots';

/**
 * CalDAV (RFC 4791), the open alternative to Google Calendar (ADR 088), as plain WebDAV requests through the outbound
 * guard: PROPFIND to check the calendar collection, REPORT calendar-query with a time-range for busy times, PUT and
 * DELETE of the booking's event resource. Radicale, Nextcloud, Baïkal, Fastmail and iCloud speak it.
 */
const { rrulestr } = rrulePkg as unknown as typeof import('rrule');
const TIMEOUT_MS = 15_000;

export type CaldavCredentials = { url: string; username: string; password: string };

export class CaldavError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

/** The collection URL with one trailing slash (resources are named under it). */
export function collectionUrl(url: string) {
  return url.replace(/\/*$/, '/');
}

async function dav(creds: CaldavCredentials, url: string, init: { method: string; headers?: Record<string, string>; body?: string; maxBytes?: number }) {
  let res;
  try {
    res = await guardedRequest(url, {
      method: init.method,
      // A length, not chunked: WSGI servers such as Radicale's do not read chunked bodies.
      headers: {
        authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`,
        ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}),
        ...init.headers,
      },
      body: init.body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: init.maxBytes ?? 4 * 1024 * 1024,
    });
  } catch (err) {
    throw new CaldavError(`The CalDAV server could not be reached: ${(err as Error).message}`, 0);
  }
  if (res.status === 401 || res.status === 403) throw new CaldavError('The CalDAV server refused the user name or password', res.status);
  return res;
}

const tag = (name: string) => new RegExp(`<(?:[\\w-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w-]+:)?${name}>`, 'g');

function xmlText(s: string) {
  const cdata = /^\s*<!\[CDATA\[([\s\S]*)\]\]>\s*$/.exec(s);
  if (cdata) return cdata[1];
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&amp;/g, '&');
}

/** Checks that the URL is a calendar collection these credentials may read; returns its display name. */
export async function caldavCheck(creds: CaldavCredentials) {
  const res = await dav(creds, collectionUrl(creds.url), {
    method: 'PROPFIND',
    headers: { depth: '0', 'content-type': 'application/xml; charset=utf-8' },
    body: '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:displayname/></d:prop></d:propfind>',
  });
  if (res.status === 404) throw new CaldavError('There is no calendar at this address', 404);
  if (res.status !== 207) throw new CaldavError(`The server did not answer as a CalDAV server (HTTP ${res.status})`, res.status);
  const types = [...res.text.matchAll(tag('resourcetype'))].map((m) => m[1]).join('');
  if (!/<(?:[\w-]+:)?calendar[\s/>]/.test(types)) throw new CaldavError('This address is not a calendar: give the calendar collection’s URL', 0);
  const name = [...res.text.matchAll(tag('displayname'))][0]?.[1];
  return { displayName: name ? xmlText(name).trim() : '' };
}

const caldavTime = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** REPORT calendar-query: the events overlapping [from, to), as busy spans (transparent and cancelled ones skipped). */
export async function caldavBusy(creds: CaldavCredentials & { from: Date; to: Date }): Promise<Span[]> {
  const range = `<c:time-range start="${caldavTime(creds.from)}" end="${caldavTime(creds.to)}"/>`;
  const res = await dav(creds, collectionUrl(creds.url), {
    method: 'REPORT',
    headers: { depth: '1', 'content-type': 'application/xml; charset=utf-8' },
    body:
      '<?xml version="1.0" encoding="utf-8"?><c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">' +
      `<d:prop><c:calendar-data><c:expand start="${caldavTime(creds.from)}" end="${caldavTime(creds.to)}"/></c:calendar-data></d:prop>` +
      `<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`,
  });
  if (res.status !== 207) throw new CaldavError(`The CalDAV server could not list the calendar (HTTP ${res.status})`, res.status);
  const spans: Span[] = [];
  for (const m of res.text.matchAll(tag('calendar-data'))) spans.push(...busyOfIcs(xmlText(m[1]), creds.from.getTime(), creds.to.getTime()));
  return spans;
}

/** Unfolded content lines of an iCalendar text: name, parameters, value. */
function lines(ics: string) {
  return ics
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)
    .filter(Boolean)
    .map((l) => {
      const colon = l.search(/:(?=(?:[^"]*"[^"]*")*[^"]*$)/);
      const head = l.slice(0, colon);
      const [name, ...params] = head.split(';');
      return {
        name: name.toUpperCase(),
        params: Object.fromEntries(params.map((p) => [p.split('=')[0].toUpperCase(), (p.split('=')[1] ?? '').replace(/"/g, '')])),
        value: l.slice(colon + 1),
      };
    });
}

type Stamp = { ms: number; allDay: boolean };

/** A DATE or DATE-TIME value: UTC (Z), in its TZID, or floating (read as UTC: it has no zone to be read in). */
function parseStamp(value: string, params: Record<string, string>): Stamp | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1);
  if (!m[4]) return { ms: Date.UTC(+y, +mo - 1, +d), allDay: true };
  if (m[7] || !params.TZID) return { ms: Date.UTC(+y, +mo - 1, +d, +h, +mi, +s), allDay: false };
  try {
    return { ms: new TZDate(+y, +mo - 1, +d, +h, +mi, +s, params.TZID).getTime(), allDay: false };
  } catch {
    return { ms: Date.UTC(+y, +mo - 1, +d, +h, +mi, +s), allDay: false };
  }
}

function durationMs(value: string) {
  const m = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim());
  if (!m) return 0;
  const [, sign, w = '0', d = '0', h = '0', mi = '0', s = '0'] = m;
  const ms = ((+w * 7 + +d) * 86400 + +h * 3600 + +mi * 60 + +s) * 1000;
  return sign === '-' ? -ms : ms;
}

/**
 * The busy spans of one calendar object between two instants. A recurring event the server did not expand is
 * expanded here with `rrule` in the event's wall-clock time (so a weekly 10:00 stays 10:00 across clock changes),
 * minus its EXDATEs and the instances overridden by a RECURRENCE-ID component of the same object.
 */
export function busyOfIcs(ics: string, from: number, to: number): Span[] {
  const events: ReturnType<typeof lines>[] = [];
  let current: ReturnType<typeof lines> | null = null;
  let depth = 0;
  for (const l of lines(ics)) {
    if (l.name === 'BEGIN' && l.value.toUpperCase() === 'VEVENT') {
      current = [];
      depth = 0;
      continue;
    }
    if (!current) continue;
    if (l.name === 'BEGIN') depth++;
    else if (l.name === 'END' && l.value.toUpperCase() === 'VEVENT' && depth === 0) {
      events.push(current);
      current = null;
    } else if (l.name === 'END') depth--;
    else if (depth === 0) current.push(l);
  }
  const overridden = new Set<number>();
  for (const e of events) {
    const rid = e.find((l) => l.name === 'RECURRENCE-ID');
    const stamp = rid && parseStamp(rid.value, rid.params);
    if (stamp) overridden.add(stamp.ms);
  }
  const out: Span[] = [];
  for (const e of events) {
    const prop = (n: string) => e.find((l) => l.name === n);
    if (prop('TRANSP')?.value.toUpperCase() === 'TRANSPARENT' || prop('STATUS')?.value.toUpperCase() === 'CANCELLED') continue;
    const startProp = prop('DTSTART');
    const start = startProp && parseStamp(startProp.value, startProp.params);
    if (!start) continue;
    const endProp = prop('DTEND');
    const end = endProp && parseStamp(endProp.value, endProp.params);
    const length = end ? end.ms - start.ms : prop('DURATION') ? durationMs(prop('DURATION')!.value) : start.allDay ? 86_400_000 : 0;
    if (length <= 0) continue;
    const rule = prop('RRULE');
    if (!rule || prop('RECURRENCE-ID')) {
      if (start.ms < to && start.ms + length > from) out.push({ start: start.ms, end: start.ms + length });
      continue;
    }
    // Wall-clock expansion: rrule works on "UTC-looking" local times; each occurrence is then placed in the TZID.
    const tzid = startProp.params.TZID;
    const wall = (ms: number) => {
      if (!tzid || start.allDay || /Z$/.test(startProp.value)) return ms;
      const t = new TZDate(ms, tzid);
      return Date.UTC(t.getFullYear(), t.getMonth(), t.getDate(), t.getHours(), t.getMinutes(), t.getSeconds());
    };
    const real = (wallMs: number) => {
      if (!tzid || start.allDay || /Z$/.test(startProp.value)) return wallMs;
      const w = new Date(wallMs);
      return new TZDate(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate(), w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), tzid).getTime();
    };
    const exdates = new Set(
      e
        .filter((l) => l.name === 'EXDATE')
        .flatMap((l) => l.value.split(',').map((v) => parseStamp(v, l.params)?.ms))
        .filter((x): x is number => x !== undefined),
    );
    let occurrences: Date[];
    try {
      const r = rrulestr(`RRULE:${rule.value}`, { dtstart: new Date(wall(start.ms)) });
      // One day of margin on each side for the zone's offset.
      occurrences = r.between(new Date(wall(from - length) - 86_400_000), new Date(wall(to) + 86_400_000), true, (_, i) => i < 5000);
    } catch {
      occurrences = [new Date(wall(start.ms))];
    }
    for (const o of occurrences) {
      const s = real(o.getTime());
      if (exdates.has(s) || overridden.has(s)) continue;
      if (s < to && s + length > from) out.push({ start: s, end: s + length });
    }
  }
  return out;
}

/** PUT the booking's event as `{uid}.ics` in the collection (a new one, or the same one again when rescheduled). */
export async function caldavPutEvent(creds: CaldavCredentials & { uid: string; ics: string }) {
  const href = `${collectionUrl(creds.url)}${encodeURIComponent(creds.uid)}.ics`;
  const res = await dav(creds, href, { method: 'PUT', headers: { 'content-type': 'text/calendar; charset=utf-8' }, body: creds.ics, maxBytes: 64 * 1024 });
  if (!res.ok) throw new CaldavError(`The CalDAV server did not store the event (HTTP ${res.status})`, res.status);
  return href;
}

export async function caldavDeleteEvent(creds: CaldavCredentials & { href: string }) {
  const res = await dav(creds, creds.href, { method: 'DELETE', maxBytes: 64 * 1024 });
  // Already gone (removed by the agent in their calendar app): nothing left to do.
  if (!res.ok && res.status !== 404 && res.status !== 410) throw new CaldavError(`The CalDAV server did not delete the event (HTTP ${res.status})`, res.status);
}
