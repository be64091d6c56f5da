/*
 * Dates are read in the user's time zone with the platform's Intl (no date library: this module is in every screen's
 * bundle, ADR 027). Only numbers are taken from Intl, so the server and the browser print the same text.
 */

export type DatePrefs = { dateFormat?: string | null; timeFormat?: string | null; timezone?: string | null };

/** The date formats users can choose: three orders times four separators (section 9). */
export const DATE_FORMATS = ['DD MM YYYY', 'MM DD YYYY', 'YYYY MM DD'].flatMap((order) =>
  [' ', '.', '-', '/'].map((sep) => order.replaceAll(' ', sep)),
);

export const TIME_FORMATS = [
  { value: '12', label: '12 hours (hh:mm A)' },
  { value: '24', label: '24 hours (HH:mm)' },
] as const;

const two = (n: number) => String(n).padStart(2, '0');

type Parts = { year: string; month: string; day: string; hour: number; minute: string };

const readers = new Map<string, Intl.DateTimeFormat>();
function reader(timezone: string) {
  let r = readers.get(timezone);
  if (!r) {
    r = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    readers.set(timezone, r);
  }
  return r;
}

/** The date's calendar fields in the time zone (UTC when the zone is unknown). */
function zoned(date: Date | string | number, timezone?: string | null): Parts {
  const t = new Date(date).getTime();
  const zone = timezone || 'UTC';
  if (t < 0) return zonedByIntl(t, zone);
  let offset: number;
  try {
    offset = offsetMinutes(t, zone);
  } catch {
    offset = 0;
  }
  // The local wall clock as a UTC date: its UTC fields are the zone's calendar fields.
  const local = new Date(Math.floor(t / 60_000) * 60_000 + offset * 60_000);
  return {
    year: String(local.getUTCFullYear()).padStart(4, '0'),
    month: two(local.getUTCMonth() + 1),
    day: two(local.getUTCDate()),
    hour: local.getUTCHours(),
    minute: two(local.getUTCMinutes()),
  };
}

/** Straight from Intl: dates before 1970, whose zones' historic offsets may have seconds. */
function zonedByIntl(t: number, zone: string): Parts {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = reader(zone).formatToParts(new Date(t));
  } catch {
    parts = reader('UTC').formatToParts(new Date(t));
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return { year: get('year').padStart(4, '0'), month: get('month'), day: get('day'), hour: Number(get('hour')) % 24, minute: get('minute') };
}

/*
 * A zone's offset is constant within each quarter hour of UTC time: offsets are whole quarter hours and clocks change
 * at whole or half local hours. So Intl is asked once per (zone, quarter hour) and a page of fifty dates costs a few
 * map reads instead of a hundred formatToParts calls (ADR 052).
 */
const QUARTER_HOUR = 900_000;
const offsets = new Map<string, number>();
function offsetMinutes(t: number, zone: string): number {
  const key = `${zone} ${Math.floor(t / QUARTER_HOUR)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const parts = reader(zone).formatToParts(new Date(t));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'));
  const offset = Math.round((wall - Math.floor(t / 60_000) * 60_000) / 60_000);
  if (offsets.size > 10_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}


/** The one date formatter: the user's date format (default DD-MM-YYYY) in the user's time zone. */
export function formatDate(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  if (Number.isNaN(new Date(date).getTime())) return 'Invalid date!';
  const p = zoned(date, prefs.timezone);
  return (prefs.dateFormat || 'DD-MM-YYYY').replace('DD', p.day).replace('MM', p.month).replace('YYYY', p.year);
}

/** Time: 24 gives HH:mm, anything else hh:mm A (section 3, "Local session data"). */
export function formatTime(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  if (Number.isNaN(new Date(date).getTime())) return 'Invalid date!';
  const p = zoned(date, prefs.timezone);
  if (prefs.timeFormat === '24') return `${two(p.hour)}:${p.minute}`;
  return `${two(((p.hour + 11) % 12) + 1)}:${p.minute} ${p.hour < 12 ? 'AM' : 'PM'}`;
}

export function formatDateTime(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  const d = formatDate(date, prefs);
  return d === 'Invalid date!' ? d : `${d} ${formatTime(date, prefs)}`;
}

/** Durations (section 9): seconds or minutes under an hour, hours up to a day, days above. */
let zones: string[] | undefined;
/** The time zones people choose from: UTC, then every IANA zone this runtime knows (read once per process). */
export function timeZoneNames(): string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zones;
}

export function formatDuration(seconds: number) {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}

export function truncate(text: string, max: number) {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function pageTitle(...parts: (string | undefined | null)[]) {
  return [...parts.filter(Boolean), 'Parley'].join(' | ');
}

/** A count with its noun, singular for one: "1 user", "3 users" (pass the plural when it is not noun + s). */
export function countLabel(n: number, singular: string, plural = `${singular}s`) {
  return `${n.toLocaleString('en')} ${n === 1 ? singular : plural}`;
}
