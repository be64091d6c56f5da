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
