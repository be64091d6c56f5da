import { describe, expect, it } from 'vitest';
import { addBusinessTime, dueAfter, isOpenAt, nextOpening, parseClock, type BusinessHoursRules } from './business-time';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function weekdays(startTime = '09:00', endTime = '18:00', days = [1, 2, 3, 4, 5]) {
  return days.map((day) => ({ day, startTime, endTime }));
}

function rules(over: Partial<BusinessHoursRules> = {}): BusinessHoursRules {
  return { timezone: 'Europe/Paris', allDay: false, haveHolidays: false, timings: weekdays(), holidays: [], ...over };
}

const utc = (iso: string) => new Date(iso);

// November 2026 in Paris is UTC+1: Friday the 20th, the weekend 21–22, Monday the 23rd.
describe('addBusinessTime', () => {
  it('counts within one open period', () => {
    expect(addBusinessTime(rules(), utc('2026-11-23T08:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-23T10:00:00Z'));
  });

  it('ends at closing time when the duration fills the day exactly', () => {
    expect(addBusinessTime(rules(), utc('2026-11-23T08:00:00Z'), 9 * HOUR)).toEqual(utc('2026-11-23T17:00:00Z'));
  });

  it('skips the weekend', () => {
    // Friday 17:00 Paris + 2 h = 1 h on Friday, 1 h on Monday: Monday 10:00 Paris.
    expect(addBusinessTime(rules(), utc('2026-11-20T16:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-23T09:00:00Z'));
  });

  it('skips a holiday as a whole local day', () => {
    const hours = rules({ haveHolidays: true, holidays: [{ name: 'Bridge day', dateVal: '2026-11-23' }] });
    expect(addBusinessTime(hours, utc('2026-11-20T16:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-24T09:00:00Z'));
  });

  it('ignores holidays when holidays are switched off', () => {
    const hours = rules({ haveHolidays: false, holidays: [{ name: 'Bridge day', dateVal: '2026-11-23' }] });
    expect(addBusinessTime(hours, utc('2026-11-20T16:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-23T09:00:00Z'));
  });

  it('starts counting at the next opening when started outside hours', () => {
    // Saturday noon + 30 min = Monday 09:30 Paris.
    expect(addBusinessTime(rules(), utc('2026-11-21T11:00:00Z'), 30 * MINUTE)).toEqual(utc('2026-11-23T08:30:00Z'));
    // Monday 07:00 Paris, before opening.
    expect(addBusinessTime(rules(), utc('2026-11-23T06:00:00Z'), 30 * MINUTE)).toEqual(utc('2026-11-23T08:30:00Z'));
    // Monday 20:00 Paris, after closing.
    expect(addBusinessTime(rules(), utc('2026-11-23T19:00:00Z'), 30 * MINUTE)).toEqual(utc('2026-11-24T08:30:00Z'));
  });

  it('counts minutes across the evening', () => {
    // Monday 17:50 Paris + 15 min = Tuesday 09:05.
    expect(addBusinessTime(rules(), utc('2026-11-23T16:50:00Z'), 15 * MINUTE)).toEqual(utc('2026-11-24T08:05:00Z'));
  });

  it('counts a duration in days as open time (24 h = 9 + 9 + 6)', () => {
    expect(addBusinessTime(rules(), utc('2026-11-23T08:00:00Z'), DAY)).toEqual(utc('2026-11-25T14:00:00Z'));
  });

  it('counts several days across a weekend', () => {
    // 5 × 9 h from Wednesday 09:00: Wed, Thu, Fri, Mon, Tue → Tuesday 18:00.
    expect(addBusinessTime(rules(), utc('2026-11-18T08:00:00Z'), 45 * HOUR)).toEqual(utc('2026-11-24T17:00:00Z'));
  });

  it('handles several periods a day, in any order and overlapping', () => {
    const hours = rules({
      timings: [
        { day: 1, startTime: '14:00', endTime: '18:00' },
        { day: 1, startTime: '09:00', endTime: '12:00' },
        { day: 1, startTime: '10:00', endTime: '11:00' },
        { day: 2, startTime: '09:00', endTime: '12:00' },
      ],
    });
    // Monday 11:00 + 2 h = 1 h before lunch, 1 h after: 15:00 Paris.
    expect(addBusinessTime(hours, utc('2026-11-23T10:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-23T14:00:00Z'));
    // Monday at lunch + 5 h = 4 h in the afternoon, 1 h on Tuesday.
    expect(addBusinessTime(hours, utc('2026-11-23T11:30:00Z'), 5 * HOUR)).toEqual(utc('2026-11-24T09:00:00Z'));
    expect(isOpenAt(hours, utc('2026-11-23T11:30:00Z'))).toBe(false);
  });

  it('keeps local hours across the autumn DST change in Europe/Paris', () => {
    // Friday 23 Oct 2026 17:00 CEST (UTC+2) + 2 h → Monday 26 Oct 10:00 CET (UTC+1).
    expect(addBusinessTime(rules(), utc('2026-10-23T15:00:00Z'), 2 * HOUR)).toEqual(utc('2026-10-26T09:00:00Z'));
  });

  it('keeps local hours across the spring DST change in Europe/Paris', () => {
    // Friday 27 Mar 2026 17:00 CET + 2 h → Monday 30 Mar 10:00 CEST (UTC+2).
    expect(addBusinessTime(rules(), utc('2026-03-27T16:00:00Z'), 2 * HOUR)).toEqual(utc('2026-03-30T08:00:00Z'));
  });

  it('counts real elapsed time in a period spanning the DST night', () => {
    // Sunday 29 Mar 2026 00:00–06:00 local lasts 5 real hours (02:00 jumps to 03:00).
    const hours = rules({ timings: [{ day: 0, startTime: '00:00', endTime: '06:00' }] });
    const start = utc('2026-03-28T23:00:00Z'); // Sunday 00:00 CET
    expect(addBusinessTime(hours, start, 5 * HOUR)).toEqual(utc('2026-03-29T04:00:00Z')); // 06:00 CEST
    expect(addBusinessTime(hours, start, 5 * HOUR + MINUTE)).toEqual(utc('2026-04-04T22:01:00Z')); // next Sunday 00:01 CEST (UTC+2)
  });

  it('counts around the clock for 24x7', () => {
    const hours = rules({ allDay: true, timings: [] });
    const start = utc('2026-11-21T11:00:00Z');
    expect(addBusinessTime(hours, start, 3 * DAY)).toEqual(utc('2026-11-24T11:00:00Z'));
    expect(addBusinessTime(hours, start, 90 * MINUTE)).toEqual(utc('2026-11-21T12:30:00Z'));
    // A day with a DST change is 23 real hours long: 24 h later is an hour later on the wall clock.
    expect(addBusinessTime(hours, utc('2026-03-28T11:00:00Z'), DAY)).toEqual(utc('2026-03-29T11:00:00Z'));
  });

  it('closes a holiday even when open 24x7', () => {
    const hours = rules({ allDay: true, haveHolidays: true, holidays: [{ name: 'Armistice', dateVal: '2026-11-11' }] });
    // Tuesday 10 Nov 23:00 Paris + 2 h = 1 h, then the 11th is closed, then 1 h on the 12th.
    expect(addBusinessTime(hours, utc('2026-11-10T22:00:00Z'), 2 * HOUR)).toEqual(utc('2026-11-12T00:00:00Z'));
  });

  it('uses the time zone of the business hours', () => {
    const hours = rules({ timezone: 'America/New_York' });
    // Monday 23 Nov 2026 08:00 New York (UTC-5) + 1 h → 10:00 New York.
    expect(addBusinessTime(hours, utc('2026-11-23T13:00:00Z'), HOUR)).toEqual(utc('2026-11-23T15:00:00Z'));
  });

  it('returns the start for a zero duration and refuses a negative one', () => {
    expect(addBusinessTime(rules(), utc('2026-11-21T11:00:00Z'), 0)).toEqual(utc('2026-11-21T11:00:00Z'));
    expect(() => addBusinessTime(rules(), utc('2026-11-21T11:00:00Z'), -1)).toThrow(RangeError);
  });

  it('refuses business hours that are never open, and an unknown time zone', () => {
    expect(() => addBusinessTime(rules({ timings: [] }), utc('2026-11-21T11:00:00Z'), HOUR)).toThrow(RangeError);
    expect(() => addBusinessTime(rules({ timezone: 'Mars/Olympus' }), utc('2026-11-21T11:00:00Z'), HOUR)).toThrow(RangeError);
  });
});

describe('isOpenAt', () => {
  it('is open from the start time, closed from the end time', () => {
    expect(isOpenAt(rules(), utc('2026-11-23T07:59:59Z'))).toBe(false);
    expect(isOpenAt(rules(), utc('2026-11-23T08:00:00Z'))).toBe(true);
    expect(isOpenAt(rules(), utc('2026-11-23T16:59:59Z'))).toBe(true);
    expect(isOpenAt(rules(), utc('2026-11-23T17:00:00Z'))).toBe(false);
  });

  it('is closed on weekends and holidays, open all the time for 24x7', () => {
    expect(isOpenAt(rules(), utc('2026-11-21T11:00:00Z'))).toBe(false);
    const holiday = rules({ haveHolidays: true, holidays: [{ name: 'Off', dateVal: '2026-11-23' }] });
    expect(isOpenAt(holiday, utc('2026-11-23T10:00:00Z'))).toBe(false);
    expect(isOpenAt(rules({ allDay: true }), utc('2026-11-21T03:00:00Z'))).toBe(true);
    expect(isOpenAt(rules({ timings: [] }), utc('2026-11-23T10:00:00Z'))).toBe(false);
  });
});

describe('nextOpening', () => {
  it('is the instant itself when open, else the next start', () => {
    expect(nextOpening(rules(), utc('2026-11-23T10:00:00Z'))).toEqual(utc('2026-11-23T10:00:00Z'));
    expect(nextOpening(rules(), utc('2026-11-21T11:00:00Z'))).toEqual(utc('2026-11-23T08:00:00Z'));
    expect(nextOpening(rules(), utc('2026-11-23T17:00:00Z'))).toEqual(utc('2026-11-24T08:00:00Z'));
  });

  it('is null when never open', () => {
    expect(nextOpening(rules({ timings: [] }), utc('2026-11-23T10:00:00Z'))).toBeNull();
  });
});

describe('helpers', () => {
  it('parses clock times', () => {
    expect(parseClock('09:30')).toBe(570);
    expect(parseClock('24:00')).toBeNull();
    expect(parseClock('9:30')).toBeNull();
  });
});

describe('dueAfter', () => {
  it('counts business time with business hours, wall time without', () => {
    const friday = utc('2026-11-20T16:00:00Z');
    expect(dueAfter(rules(), friday, 2 * HOUR)).toEqual(utc('2026-11-23T09:00:00Z'));
    expect(dueAfter(null, friday, 2 * HOUR)).toEqual(utc('2026-11-20T18:00:00Z'));
    expect(() => dueAfter(null, friday, -1)).toThrow(RangeError);
  });
});
