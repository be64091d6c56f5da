import { describe, expect, it } from 'vitest';
import { DATE_FORMATS, formatDate, formatDateTime, formatDuration, formatTime, pageTitle, truncate } from './format';

const d = new Date('2026-03-07T15:04:00Z');

describe('formatDate', () => {
  it('defaults to DD-MM-YYYY in UTC', () => expect(formatDate(d)).toBe('07-03-2026'));
  it('honours every date format option', () => {
    expect(DATE_FORMATS).toHaveLength(12);
    expect(formatDate(d, { dateFormat: 'YYYY/MM/DD' })).toBe('2026/03/07');
    expect(formatDate(d, { dateFormat: 'MM.DD.YYYY' })).toBe('03.07.2026');
    expect(formatDate(d, { dateFormat: 'DD MM YYYY' })).toBe('07 03 2026');
  });
  it('shifts into the time zone', () => expect(formatDate('2026-03-07T23:30:00Z', { timezone: 'Asia/Tokyo' })).toBe('08-03-2026'));
  it('says so for an invalid date', () => expect(formatDate('nope')).toBe('Invalid date!'));
  it('reads an unknown time zone as UTC', () => expect(formatDateTime(d, { timezone: 'Nowhere/Atlantis', timeFormat: '24' })).toBe('07-03-2026 15:04'));
});

describe('formatTime', () => {
  it('24 gives HH:mm', () => expect(formatTime(d, { timeFormat: '24' })).toBe('15:04'));
  it('otherwise hh:mm A', () => expect(formatTime(d, { timeFormat: '12' })).toBe('03:04 PM'));
  it('combines with the date', () => expect(formatDateTime(d, { timeFormat: '24', timezone: 'Europe/Paris' })).toBe('07-03-2026 16:04'));
});

describe('helpers', () => {
  it('formats durations', () => {
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(600)).toBe('10m');
    expect(formatDuration(7200)).toBe('2h');
    expect(formatDuration(3 * 86400)).toBe('3d');
  });
  it('truncates with an ellipsis', () => expect(truncate('abcdefghijklmnopqrstuvwxyz', 20)).toBe('abcdefghijklmnopqrst…'));
  it('joins titles with the product name', () => expect(pageTitle('Teams', 'Settings')).toBe('Teams | Settings | Parley'));
});

describe('dates in a zone from cached offsets', () => {
  // The reference: every field straight from Intl, as the formatter did before offsets were cached.
  const byIntl = (t: number, timeZone: string) => {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(t));
    const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    return `${get('day')}-${get('month')}-${get('year').padStart(4, '0')} ${String(Number(get('hour')) % 24).padStart(2, '0')}:${get('minute')}`;
  };
  it('matches Intl around clock changes and at random times, in zones with odd offsets', () => {
    const zones = ['UTC', 'Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'Asia/Kolkata', 'America/Santiago', 'Africa/Casablanca', 'Pacific/Apia'];
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let checked = 0;
    for (const timezone of zones) {
      // Every 7 minutes across two spring and autumn changes of 2026, then random instants 1970–2090.
      const times: number[] = [];
      for (let t = Date.UTC(2026, 2, 1); t < Date.UTC(2026, 4, 1); t += 7 * 60_000 * 13) times.push(t);
      for (let t = Date.UTC(2026, 8, 20); t < Date.UTC(2026, 10, 10); t += 7 * 60_000 * 13) times.push(t);
      for (let i = 0; i < 400; i++) times.push(Math.floor(random() * Date.UTC(2090, 0, 1)));
      for (const t of times) {
        expect(formatDateTime(t, { timezone, timeFormat: '24' }), `${timezone} ${new Date(t).toISOString()}`).toBe(byIntl(t, timezone));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });
});
