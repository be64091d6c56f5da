/** The specification's meeting constants (section 9). */
export const SLOT_LENGTHS = [15, 30, 60, 120] as const;
/** 15 minutes is listed but disabled, as in the specification. */
export const DISABLED_SLOT_LENGTHS: readonly number[] = [15];
export const WEEKDAY_CHOICES = ['everyday', 'mon-fri', 'sat-sun', '0', '1', '2', '3', '4', '5', '6'] as const;
export const WEEKDAY_LABELS: Record<(typeof WEEKDAY_CHOICES)[number], string> = {
  everyday: 'Every day',
  'mon-fri': 'Monday to Friday',
  'sat-sun': 'Saturday and Sunday',
  '0': 'Sunday',
  '1': 'Monday',
  '2': 'Tuesday',
  '3': 'Wednesday',
  '4': 'Thursday',
  '5': 'Friday',
  '6': 'Saturday',
};
export const BOOKING_WINDOWS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const;
export function bookingWindowLabel(weeks: number) {
  return weeks === 1 ? 'This week' : weeks === 2 ? 'Next week' : `${weeks} weeks`;
}
export const REMINDER_OPTIONS = [15, 30, 60, 120, 180, 240, 300, 360, 1440, 4320, 10080] as const;
export const BUFFER_OPTIONS = [0, ...REMINDER_OPTIONS] as const;
export function minutesLabel(m: number) {
  if (m === 0) return 'None';
  if (m % 1440 === 0) return m === 1440 ? '1 day' : `${m / 1440} days`;
  if (m % 60 === 0) return m === 60 ? '1 hour' : `${m / 60} hours`;
  return `${m} minutes`;
}
/** Meeting names are cut to this many characters in the CRM side menu. */
export const MENU_NAME_LENGTH = 17;

export function weekdaysOf(choice: string): number[] {
  if (choice === 'everyday') return [0, 1, 2, 3, 4, 5, 6];
  if (choice === 'mon-fri') return [1, 2, 3, 4, 5];
  if (choice === 'sat-sun') return [0, 6];
  const d = Number(choice);
  return Number.isInteger(d) && d >= 0 && d <= 6 ? [d] : [];
}
