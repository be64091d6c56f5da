import { z } from 'zod';
import type { BusinessHoliday, BusinessTiming } from '../../../db/schema/automation';
import { TimezoneSchema } from '../accounts/schemas';
import { parseClock } from './business-time';
import {
  BUSINESS_HOURS_NAME_MAX,
  HOLIDAY_NAME_MAX,
  END_BEFORE_START_MESSAGE,
  HOLIDAY_NAME_MESSAGE,
  HOLIDAY_DATE_MESSAGE,
  TIME_MESSAGE,
  NO_OPEN_DAY_MESSAGE,
  WEEK_DAYS,
  DEFAULT_OPEN_DAYS,
  DEFAULT_START_TIME,
  DEFAULT_END_TIME,
} from './business-hours-constants';
export * from './business-hours-constants';

/** The generic messages of section 5 ("Others" and the "is not allowed to be empty" wording). */
const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;
const emptyMessage = (label: string) => `${label} is not allowed to be empty`;

const PeriodSchema = z.object({ startTime: z.string().optional(), endTime: z.string().optional() });
const DaySchema = z.object({ open: z.boolean().default(false), periods: z.array(PeriodSchema).max(24).default([]) });
const HolidaySchema = z.object({ name: z.string().trim().optional(), dateVal: z.string().optional() });

const ISO_DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
function isIsoDay(value: string) {
  if (!ISO_DAY.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * The business-hours form. The day table is `days[0..6]` (Sunday first), each with an "open" box and
 * one or more periods; hidden parts (the day table under 24x7, holidays when switched off) are kept
 * but not judged, since the user cannot see their errors.
 */
export const BusinessHoursSchema = z
  .object({
    name: z
      .string({ error: emptyMessage('Name') })
      .trim()
      .min(1, emptyMessage('Name'))
      .max(BUSINESS_HOURS_NAME_MAX, maxLengthMessage(BUSINESS_HOURS_NAME_MAX)),
    timezone: TimezoneSchema,
    allDay: z.boolean().default(false),
    haveHolidays: z.boolean().default(false),
    days: z.array(DaySchema).max(WEEK_DAYS.length).default([]),
    holidays: z.array(HolidaySchema).max(100).default([]),
  })
  .superRefine((value, ctx) => {
    if (!value.allDay) {
      let anyOpen = false;
      value.days.forEach((day, d) => {
        if (!day.open) return;
        anyOpen = true;
        day.periods.forEach((p, i) => {
          const start = p.startTime ? parseClock(p.startTime) : null;
          const end = p.endTime ? parseClock(p.endTime) : null;
          if (start === null) ctx.addIssue({ code: 'custom', path: ['days', d, 'periods', i, 'startTime'], message: TIME_MESSAGE });
          if (end === null) ctx.addIssue({ code: 'custom', path: ['days', d, 'periods', i, 'endTime'], message: TIME_MESSAGE });
          if (start !== null && end !== null && end < start) {
            ctx.addIssue({ code: 'custom', path: ['days', d, 'periods', i, 'endTime'], message: END_BEFORE_START_MESSAGE });
          }
        });
      });
      if (!anyOpen) ctx.addIssue({ code: 'custom', path: ['days'], message: NO_OPEN_DAY_MESSAGE });
    }
    if (value.haveHolidays) {
      value.holidays.forEach((h, i) => {
        if (!h.name) ctx.addIssue({ code: 'custom', path: ['holidays', i, 'name'], message: HOLIDAY_NAME_MESSAGE });
        else if (h.name.length > HOLIDAY_NAME_MAX) ctx.addIssue({ code: 'custom', path: ['holidays', i, 'name'], message: maxLengthMessage(HOLIDAY_NAME_MAX) });
        if (!h.dateVal || !isIsoDay(h.dateVal)) ctx.addIssue({ code: 'custom', path: ['holidays', i, 'dateVal'], message: HOLIDAY_DATE_MESSAGE });
      });
    }
  });
export type BusinessHoursForm = z.infer<typeof BusinessHoursSchema>;

export type BusinessHoursInput = {
  name: string;
  timezone: string;
  allDay: boolean;
  haveHolidays: boolean;
  timings: BusinessTiming[];
  holidays: BusinessHoliday[];
};

/** From the form's day table to stored timings: only open days, periods with both times. */
export function businessHoursInput(form: BusinessHoursForm): BusinessHoursInput {
  const timings: BusinessTiming[] = [];
  form.days.forEach((day, d) => {
    if (!day.open) return;
    for (const p of day.periods) if (p.startTime && p.endTime) timings.push({ day: d, startTime: p.startTime, endTime: p.endTime });
  });
  const holidays = form.holidays
    .filter((h): h is { name: string; dateVal: string } => Boolean(h.name && h.dateVal))
    .map((h) => ({ name: h.name, dateVal: h.dateVal }));
  return { name: form.name, timezone: form.timezone, allDay: form.allDay, haveHolidays: form.haveHolidays, timings, holidays };
}

/** The form's starting values: stored hours, or the defaults of section 9 for a new one. */
export function businessHoursFormDefaults(hours: BusinessHoursInput | null, timezone: string) {
  const timings = hours?.timings ?? DEFAULT_OPEN_DAYS.map((day) => ({ day, startTime: DEFAULT_START_TIME, endTime: DEFAULT_END_TIME }));
  return {
    name: hours?.name ?? '',
    timezone: hours?.timezone ?? timezone,
    allDay: hours?.allDay ?? false,
    haveHolidays: hours?.haveHolidays ?? false,
    days: WEEK_DAYS.map((_, day) => {
      const periods = timings.filter((t) => t.day === day).map((t) => ({ startTime: t.startTime, endTime: t.endTime }));
      return { open: periods.length > 0, periods: periods.length ? periods : [{ startTime: DEFAULT_START_TIME, endTime: DEFAULT_END_TIME }] };
    }),
    holidays: hours?.holidays ?? [],
  };
}

/** An inbox's business hours (its settings page): one of the account's, or none (around the clock). */
export const InboxBusinessHoursSchema = z.object({ businessHoursId: z.coerce.number().int().positive().optional() });
