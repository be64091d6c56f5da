import { TZDate } from '@date-fns/tz';

/** A span of time in epoch milliseconds, end excluded. */
export type Span = { start: number; end: number };
export type Slot = Span & { hostIds: number[] };

export type SlotRules = {
  timezone: string;
  weekdays: number[];
  dayStart: string;
  dayEnd: string;
  slotMinutes: number;
  bufferMinutes: number;
  bookingWindowWeeks: number;
};

const MINUTE = 60_000;

function hm(v: string) {
  const [h, m] = v.split(':').map(Number);
  return h * 60 + m;
}

/** Sorted, merged spans: what the sweep below expects. */
export function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/**
 * The end of the booking window: this week (1) ends on the coming Monday 00:00 in the meeting's time zone, next week
 * (2) a week later, and so on up to 12.
 */
export function windowEnd(now: Date, rules: Pick<SlotRules, 'timezone' | 'bookingWindowWeeks'>) {
  const local = new TZDate(now.getTime(), rules.timezone);
  const daysFromMonday = (local.getDay() + 6) % 7;
  const monday = new TZDate(local.getFullYear(), local.getMonth(), local.getDate() - daysFromMonday, 0, 0, 0, rules.timezone);
  return new TZDate(monday.getFullYear(), monday.getMonth(), monday.getDate() + 7 * rules.bookingWindowWeeks, 0, 0, 0, rules.timezone).getTime();
}

/**
 * The bookable slots between now and the end of the window (ADR 072): each day allowed by the weekdays, from the
 * day's start to its end in the meeting's time zone, one slot every `slotMinutes`; a slot is offered when at least one
 * host has nothing busy (bookings, calendar busy times) within the buffer around it. Pure and linear: each host's
 * busy spans are merged once and swept with one pointer, since slots come in order.
 */
export function computeSlots(opts: { now: Date; rules: SlotRules; hosts: { id: number; busy: Span[] }[] }): Slot[] {
  const { rules } = opts;
  const now = opts.now.getTime();
  const end = windowEnd(opts.now, rules);
  const startMin = hm(rules.dayStart);
  const endMin = hm(rules.dayEnd);
  const buffer = rules.bufferMinutes * MINUTE;
  const length = rules.slotMinutes * MINUTE;
  const days = new Set(rules.weekdays);
  const hosts = opts.hosts.map((h) => ({ id: h.id, busy: mergeSpans(h.busy.map((b) => ({ start: b.start - buffer, end: b.end + buffer }))), i: 0 }));
  const slots: Slot[] = [];
  const today = new TZDate(now, rules.timezone);
  const [y, mo, da] = [today.getFullYear(), today.getMonth(), today.getDate()];
  const at = (d: number, minutes: number) => new TZDate(y, mo, da + d, Math.floor(minutes / 60), minutes % 60, 0, rules.timezone).getTime();
  for (let d = 0; d <= 7 * 13; d++) {
    // Noon of the day tells its weekday whatever the clock changes; the day's first and last instants bound the slots.
    const noon = new TZDate(y, mo, da + d, 12, 0, 0, rules.timezone);
    if (noon.getTime() - 12 * 3_600_000 >= end + 3_600_000) break;
    if (!days.has(noon.getDay())) continue;
    const first = at(d, startMin);
    const last = at(d, endMin);
    // Without a clock change inside the hours, slots are evenly spaced instants (one time-zone lookup per day, not per slot).
    const linear = last - first === (endMin - startMin) * MINUTE;
    for (let m = startMin; m + rules.slotMinutes <= endMin; m += rules.slotMinutes) {
      const start = linear ? first + (m - startMin) * MINUTE : at(d, m);
      const slotEnd = start + length;
      if (start <= now) continue;
      if (start >= end) break;
      const free: number[] = [];
      for (const h of hosts) {
        while (h.i < h.busy.length && h.busy[h.i].end <= start) h.i++;
        const next = h.busy[h.i];
        if (!next || next.start >= slotEnd) free.push(h.id);
      }
      if (free.length) slots.push({ start, end: slotEnd, hostIds: free });
    }
  }
  return slots;
}
