import { TZDate } from '@date-fns/tz';
import { format as fnsFormat } from 'date-fns';

export type DatePrefs = { dateFormat?: string | null; timeFormat?: string | null; timezone?: string | null };

/** The date formats users can choose: three orders times four separators (section 9). */
export const DATE_FORMATS = ['DD MM YYYY', 'MM DD YYYY', 'YYYY MM DD'].flatMap((order) =>
  [' ', '.', '-', '/'].map((sep) => order.replaceAll(' ', sep)),
);

export const TIME_FORMATS = [
  { value: '12', label: '12 hours (hh:mm A)' },
  { value: '24', label: '24 hours (HH:mm)' },
] as const;

function toFns(dateFormat: string) {
  return dateFormat.replace('DD', 'dd').replace('YYYY', 'yyyy');
}

function zoned(date: Date | string | number, timezone?: string | null) {
  const d = new Date(date);
  try {
    return new TZDate(d, timezone || 'UTC');
  } catch {
    return new TZDate(d, 'UTC');
  }
}

/** The one date formatter: the user's date format (default DD-MM-YYYY) in the user's time zone. */
export function formatDate(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  if (Number.isNaN(new Date(date).getTime())) return 'Invalid date!';
  return fnsFormat(zoned(date, prefs.timezone), toFns(prefs.dateFormat || 'DD-MM-YYYY'));
}

/** Time: 24 gives HH:mm, anything else hh:mm A (section 3, "Local session data"). */
export function formatTime(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  if (Number.isNaN(new Date(date).getTime())) return 'Invalid date!';
  return fnsFormat(zoned(date, prefs.timezone), prefs.timeFormat === '24' ? 'HH:mm' : 'hh:mm a').replace(/(am|pm)$/, (m) => m.toUpperCase());
}

export function formatDateTime(date: Date | string | number | null | undefined, prefs: DatePrefs = {}) {
  if (date === null || date === undefined) return '';
  const d = formatDate(date, prefs);
  return d === 'Invalid date!' ? d : `${d} ${formatTime(date, prefs)}`;
}

/** Durations (section 9): seconds or minutes under an hour, hours up to a day, days above. */
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
