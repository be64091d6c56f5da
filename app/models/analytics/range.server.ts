import { TZDate } from '@date-fns/tz';
import { z } from 'zod';
import { FILTER_DIMS, RANGE_PRESETS, type AnalyticsPage, type FilterDim } from './pages';


const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const RangeQuerySchema = z.object({
  range: z.enum(['7d', '30d', '90d', '365d', 'custom']).default('30d'),
  from: z.string().regex(DAY, 'Enter a date as YYYY-MM-DD').optional(),
  to: z.string().regex(DAY, 'Enter a date as YYYY-MM-DD').optional(),
  filter: z
    .string()
    .regex(/^(inbox|channel|team|agent|tag):[A-Za-z0-9_-]{1,40}$/, 'Choose a filter from the list')
    .optional()
    .or(z.literal('')),
});

/** A span of local days in the account's time zone, with its UTC instants (ADR 090: days are cut at query time). */
export type Span = { fromDay: string; toDay: string; start: Date; end: Date; days: string[] };
export type Range = { preset: string; current: Span; previous: Span; tz: string; filter: { dim: FilterDim; key: string } | null };
export type RangeError = { field: 'from' | 'to' | 'filter' | 'range'; message: string };

function localDay(instant: Date, tz: string) {
  const d = new TZDate(instant.getTime(), tz);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function addDays(day: string, n: number) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The instant a local day starts in tz (a DST day is 23 or 25 hours long; its midnight is still its start). */
export function dayStart(day: string, tz: string) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(new TZDate(y, m - 1, d, tz).getTime());
}

export function span(fromDay: string, toDay: string, tz: string): Span {
  const days: string[] = [];
  for (let d = fromDay; d <= toDay && days.length < 800; d = addDays(d, 1)) days.push(d);
  return { fromDay, toDay, start: dayStart(fromDay, tz), end: dayStart(addDays(toDay, 1), tz), days };
}

/** Reads the page's query string; bad input is answered with the errors and the default range. */
export function parseRange(opts: { search: URLSearchParams; tz: string; page: AnalyticsPage; now?: Date }): { range: Range; errors: RangeError[]; values: Record<string, string> } {
  const values = Object.fromEntries(['range', 'from', 'to', 'filter'].map((k) => [k, opts.search.get(k) ?? '']));
  const parsed = RangeQuerySchema.safeParse(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')));
  const errors: RangeError[] = [];
  if (!parsed.success) for (const issue of parsed.error.issues) errors.push({ field: String(issue.path[0] ?? 'range') as RangeError['field'], message: issue.message });
  const q = parsed.success ? parsed.data : { range: '30d' as const, from: undefined, to: undefined, filter: undefined };
  const today = localDay(opts.now ?? new Date(), opts.tz);
  let fromDay: string;
  let toDay: string;
  if (q.range === 'custom') {
    if (!q.from || !q.to) {
      if (parsed.success) errors.push({ field: q.from ? 'to' : 'from', message: 'Enter both dates of a custom range' });
      fromDay = addDays(today, -29);
      toDay = today;
    } else if (q.from > q.to) {
      errors.push({ field: 'to', message: 'The end date must be on or after the start date' });
      fromDay = addDays(today, -29);
      toDay = today;
    } else if ((new Date(q.to).getTime() - new Date(q.from).getTime()) / 86_400_000 > 731) {
      errors.push({ field: 'from', message: 'Choose a range of at most two years' });
      fromDay = addDays(q.to, -730);
      toDay = q.to;
    } else {
      fromDay = q.from;
      toDay = q.to;
    }
  } else {
    const days = RANGE_PRESETS.find((p) => p.value === q.range)!.days;
    fromDay = addDays(today, -(days - 1));
    toDay = today;
  }
  const current = span(fromDay, toDay, opts.tz);
  const length = current.days.length;
  const previous = span(addDays(fromDay, -length), addDays(fromDay, -1), opts.tz);
  let filter: Range['filter'] = null;
  if (q.filter) {
    const [dim, key] = q.filter.split(':') as [FilterDim, string];
    if (!FILTER_DIMS.includes(dim) || !opts.page.filters.includes(dim)) errors.push({ field: 'filter', message: 'This page cannot be filtered that way' });
    else filter = { dim, key };
  }
  return { range: { preset: q.range, current, previous, tz: opts.tz, filter }, errors, values };
}
