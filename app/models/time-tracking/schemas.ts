import { z } from 'zod';
import { isRowId } from '../../utils/route-id';

/** Longest single entry: a day. Longer work is several entries (a timer left running overnight is a mistake). */
export const MAX_ENTRY_MINUTES = 24 * 60;
export const TIME_TRACKING_PAGE = 50;

const minutes = z
  .string({ error: 'Enter the time spent' })
  .trim()
  .regex(/^(\d{1,2}:\d{2}|\d{1,4})$/, 'Enter minutes (45) or hours and minutes (1:30)')
  .transform((v) => (v.includes(':') ? Number(v.split(':')[0]) * 60 + Number(v.split(':')[1]) : Number(v)))
  .refine((m) => m >= 1, 'Enter at least one minute')
  .refine((m) => m <= MAX_ENTRY_MINUTES, 'An entry can be at most 24 hours');

/** A manual entry (works without JavaScript): duration, note, billable, and the day the work was done. */
export const TimeEntrySchema = z.object({
  duration: minutes,
  note: z.string().trim().max(500, 'Length must be at most 500 characters').optional().default(''),
  billable: z.literal('on').optional().transform((v) => v === 'on'),
  workedOn: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date')
    .optional(),
});

export const TimeEntryEditSchema = TimeEntrySchema.extend({ id: z.coerce.number().int().positive() });
export const TimeTrackingSettingsSchema = z.object({ stopTimersOnResolve: z.literal('on').optional().transform((v) => v === 'on') });

/** The report's filters of a URL; malformed values are dropped. */
export type TimeReportFilters = { from?: string; to?: string; userId?: number };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function readTimeFilters(url: URL): TimeReportFilters {
  const f: TimeReportFilters = {};
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const agent = Number(url.searchParams.get('agent'));
  if (DAY.test(from) && !Number.isNaN(Date.parse(from))) f.from = from;
  if (DAY.test(to) && !Number.isNaN(Date.parse(to))) f.to = to;
  if (isRowId(agent)) f.userId = agent;
  return f;
}

