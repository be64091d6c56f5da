import { availableSlots, type Booking } from './bookings.server';
import type { MeetingType } from './meetings.server';

export function validZone(tz: string | null | undefined) {
  if (!tz) return null;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return null;
  }
}

const dayKey = (ms: number, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);

/** The booking and rescheduling pages' choices: the free slots grouped by day in the visitor's zone, one day's times. */
export async function slotChoices(opts: { accountId: number; meeting: MeetingType; tz: string; day: string | null; reschedule?: Booking }) {
  const slots = await availableSlots({ accountId: opts.accountId, meeting: opts.meeting, reschedule: opts.reschedule });
  const days = new Map<string, number[]>();
  for (const s of slots) {
    const k = dayKey(s.start, opts.tz);
    const list = days.get(k) ?? [];
    list.push(s.start);
    days.set(k, list);
  }
  const chosen = opts.day && days.has(opts.day) ? opts.day : [...days.keys()][0] ?? null;
  const dayLabel = (k: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(`${k}T12:00:00Z`));
  const timeLabel = (ms: number) => new Intl.DateTimeFormat('en-GB', { timeZone: opts.tz, hour: '2-digit', minute: '2-digit' }).format(ms);
  return {
    tz: opts.tz,
    days: [...days.keys()].map((k) => ({ key: k, label: dayLabel(k), count: days.get(k)!.length })),
    day: chosen,
    dayLabel: chosen ? dayLabel(chosen) : null,
    times: chosen ? days.get(chosen)!.map((ms) => ({ value: String(ms), label: timeLabel(ms) })) : [],
  };
}
