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
  const d = new Date(date);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = reader(timezone || 'UTC').formatToParts(d);
  } catch {
    parts = reader('UTC').formatToParts(d);
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return { year: get('year').padStart(4, '0'), month: get('month'), day: get('day'), hour: Number(get('hour')) % 24, minute: get('minute') };
}

const two = (n: number) => String(n).padStart(2, '0');

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
