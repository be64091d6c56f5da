import { TZDate } from '@date-fns/tz';
import type { BusinessHoliday, BusinessTiming } from '../../../db/schema/automation';
import { isTimeZone } from '../accounts/schemas';

/**
 * Business-time arithmetic, pure (no database): SLA due times count only the time a team is open.
 * Everything is computed on the wall clock of the business hours' own time zone, so a period keeps its
 * local hours across DST changes, and the time counted is real elapsed time (a period spanning a
 * spring-forward night is an hour shorter).
 */

export type { BusinessHoliday, BusinessTiming };
export type BusinessHoursRules = {
  timezone: string;
  allDay: boolean;
  haveHolidays: boolean;
  timings: BusinessTiming[];
  holidays: BusinessHoliday[];
};

type CalendarDay = { y: number; m: number; d: number };
type Interval = { start: number; end: number };

/** No business hours ever open after this many days: the rules have no open time at all. */
const SEARCH_LIMIT_DAYS = 366 * 5;

/** Minutes after midnight for 'HH:mm', or null when it is not a time of day. */
export function parseClock(value: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

function localDay(instant: number, timezone: string): CalendarDay {
  const local = new TZDate(instant, timezone);
  return { y: local.getFullYear(), m: local.getMonth(), d: local.getDate() };
}

/** Calendar arithmetic on plain dates, independent of any time zone. */
function addDays(day: CalendarDay, n: number): CalendarDay {
  const date = new Date(Date.UTC(day.y, day.m, day.d + n));
  return { y: date.getUTCFullYear(), m: date.getUTCMonth(), d: date.getUTCDate() };
}

function isoDay(day: CalendarDay) {
  return `${String(day.y).padStart(4, '0')}-${String(day.m + 1).padStart(2, '0')}-${String(day.d).padStart(2, '0')}`;
}

function weekDay(day: CalendarDay) {
  return new Date(Date.UTC(day.y, day.m, day.d)).getUTCDay();
}

function at(day: CalendarDay, minutes: number, timezone: string) {
  return new TZDate(day.y, day.m, day.d, Math.floor(minutes / 60), minutes % 60, timezone).getTime();
}

function assertTimeZone(hours: BusinessHoursRules) {
  if (!isTimeZone(hours.timezone)) throw new RangeError(`Unknown time zone: ${hours.timezone}`);
}

/** The open intervals of one local day, sorted and merged, as instants. */
function openIntervals(hours: BusinessHoursRules, day: CalendarDay): Interval[] {
  if (hours.haveHolidays && hours.holidays.some((h) => h.dateVal === isoDay(day))) return [];
  const tz = hours.timezone;
  if (hours.allDay) return [{ start: at(day, 0, tz), end: at(addDays(day, 1), 0, tz) }];
  const dow = weekDay(day);
  const raw: Interval[] = [];
  for (const t of hours.timings) {
    if (t.day !== dow) continue;
    const from = parseClock(t.startTime);
    const to = parseClock(t.endTime);
    if (from === null || to === null || to <= from) continue;
    raw.push({ start: at(day, from, tz), end: at(day, to, tz) });
  }
  raw.sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const i of raw) {
    const last = merged[merged.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else if (i.end > i.start) merged.push({ ...i });
  }
  return merged;
}

/** Whether any week day has open time: without it no instant is ever open. */
function hasWeeklyOpenTime(hours: BusinessHoursRules) {
  if (hours.allDay) return true;
  return hours.timings.some((t) => {
    const from = parseClock(t.startTime);
    const to = parseClock(t.endTime);
    return t.day >= 0 && t.day <= 6 && from !== null && to !== null && to > from;
  });
}

/** Open intervals from the local day holding `from` onwards, clipped to start at `from`. */
function* intervalsFrom(hours: BusinessHoursRules, from: number): Generator<Interval> {
  assertTimeZone(hours);
  if (!hasWeeklyOpenTime(hours)) return;
  // The day before too: a DST fall-back can make the previous local day's last period end after `from`.
  let day = addDays(localDay(from, hours.timezone), -1);
  for (let n = 0; n < SEARCH_LIMIT_DAYS; n++, day = addDays(day, 1)) {
    for (const i of openIntervals(hours, day)) {
      if (i.end <= from) continue;
      yield { start: Math.max(i.start, from), end: i.end };
    }
  }
}

export function isOpenAt(hours: BusinessHoursRules, instant: Date): boolean {
  const t = instant.getTime();
  for (const i of intervalsFrom(hours, t)) return i.start <= t;
  return false;
}

/** The instant itself when open, else the next moment the business opens; null when it never does. */
export function nextOpening(hours: BusinessHoursRules, instant: Date): Date | null {
  for (const i of intervalsFrom(hours, instant.getTime())) return new Date(i.start);
  return null;
}

/**
 * The instant at which `durationMs` of open time has passed since `start`. A duration that ends exactly
 * at closing time ends at closing time, not at the next opening.
 */
export function addBusinessTime(hours: BusinessHoursRules, start: Date, durationMs: number): Date {
  if (!Number.isFinite(durationMs) || durationMs < 0) throw new RangeError('Duration must be a non-negative number of milliseconds');
  let remaining = durationMs;
  if (remaining === 0) return new Date(start.getTime());
  for (const i of intervalsFrom(hours, start.getTime())) {
    const open = i.end - i.start;
    if (remaining <= open) return new Date(i.start + remaining);
    remaining -= open;
  }
  throw new RangeError('These business hours are never open');
}

/** A due time counted in business hours when there are some, around the clock when there are none (an inbox without business hours). */
export function dueAfter(hours: BusinessHoursRules | null, start: Date, durationMs: number): Date {
  if (hours) return addBusinessTime(hours, start, durationMs);
  if (!Number.isFinite(durationMs) || durationMs < 0) throw new RangeError('Duration must be a non-negative number of milliseconds');
  return new Date(start.getTime() + durationMs);
}

export type SlaUnit = 'minute' | 'hour' | 'day' | 'month';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The open time a business day has, on average over its open week days (a Monday–Friday 09:00–18:00 week: 9 h);
 * 24 h around the clock.
 */
export function businessDayMs(hours: BusinessHoursRules): number {
  if (hours.allDay) return DAY;
  const perDay = new Map<number, number>();
  for (const t of hours.timings) {
    const start = parseClock(t.startTime);
    const end = parseClock(t.endTime);
    if (start === null || end === null || end <= start) continue;
    perDay.set(t.day, (perDay.get(t.day) ?? 0) + (end - start) * MINUTE);
  }
  if (perDay.size === 0) return DAY;
  return [...perDay.values()].reduce((a, b) => a + b, 0) / perDay.size;
}

/**
 * How much time an SLA target gives. Minutes and hours are time; with business hours a day is a business day
 * (so "2 days" from Friday 17:00 in a 09:00–18:00 week ends on Tuesday 17:00, not after 48 open hours), and a
 * month is 30 days (around the clock) or the business days of 30 calendar days.
 */
export function slaDurationMs(target: { value: number; unit: SlaUnit }, hours: BusinessHoursRules | null): number {
  const value = Math.max(0, target.value);
  switch (target.unit) {
    case 'minute':
      return value * MINUTE;
    case 'hour':
      return value * HOUR;
    case 'day':
      return value * (hours ? businessDayMs(hours) : DAY);
    case 'month': {
      if (!hours || hours.allDay) return value * 30 * DAY;
      const openDays = new Set(hours.timings.map((t) => t.day)).size || 7;
      return value * Math.round((30 * openDays) / 7) * businessDayMs(hours);
    }
  }
}

/**
 * Open time between two instants, in milliseconds (analytics' business-hours durations, ADR 120): the overlap of
 * [start, end) with the open intervals; around the clock when there are no business hours (null).
 */
export function businessMsBetween(hours: BusinessHoursRules | null, start: Date, end: Date): number {
  const from = start.getTime();
  const to = end.getTime();
  if (!(to > from)) return 0;
  if (!hours) return to - from;
  let total = 0;
  for (const i of intervalsFrom(hours, from)) {
    if (i.start >= to) break;
    total += Math.min(i.end, to) - i.start;
  }
  return total;
}
