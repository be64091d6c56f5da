import { z } from 'zod';
import { BOOKING_WINDOWS, BUFFER_OPTIONS, DISABLED_SLOT_LENGTHS, REMINDER_OPTIONS, SLOT_LENGTHS, WEEKDAY_CHOICES } from './constants';

const time = (label: string) => z.string({ error: `Enter the ${label}` }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, `Enter the ${label} as HH:MM`);
const oneOf = <T extends readonly number[]>(values: T, message: string) =>
  z.coerce.number({ error: message }).refine((v) => (values as readonly number[]).includes(v), message);

/** A meeting type (Settings → Messenger → Meetings): one schema for the form, parsed on the server. */
export const MeetingTypeSchema = z
  .object({
    name: z.string({ error: 'Meeting name is required' }).trim().min(2, 'Length must be at least 2 characters').max(100, 'Length must be at most 100 characters'),
    description: z.string().trim().max(1000, 'Length must be at most 1000 characters').optional().default(''),
    slotMinutes: oneOf(SLOT_LENGTHS, 'Choose a slot length').refine((v) => !DISABLED_SLOT_LENGTHS.includes(v), 'Choose a slot length'),
    weekdays: z.enum(WEEKDAY_CHOICES, { error: 'Choose the days' }),
    dayStart: time('start time'),
    dayEnd: time('end time'),
    timezone: z.string({ error: 'Choose a time zone' }).refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'Choose a time zone'),
    bookingWindowWeeks: oneOf(BOOKING_WINDOWS, 'Choose a booking window'),
    bufferMinutes: oneOf(BUFFER_OPTIONS, 'Choose a buffer').optional().default(0),
    reminderMinutes: z
      .array(oneOf(REMINDER_OPTIONS, 'Choose reminders from the list'))
      .max(3, 'Choose at most three reminders')
      .optional()
      .default([]),
    hostIds: z.array(z.coerce.number().int().positive(), { error: 'Choose at least one host' }).min(1, 'Choose at least one host'),
    location: z.string().trim().max(300, 'Length must be at most 300 characters').optional().default(''),
    videoLink: z.url({ protocol: /^https$/, error: 'Enter a https:// link' }).max(500).optional().or(z.literal('')).default(''),
  })
  .refine((v) => v.dayEnd > v.dayStart, { path: ['dayEnd'], message: 'The end time must be after the start time' });
export type MeetingTypeInput = z.infer<typeof MeetingTypeSchema>;

/** The public booking form: name, email, note, and the slot picked. */
export const BookingSchema = z.object({
  start: z.coerce.number({ error: 'Choose a time' }).int('Choose a time').positive('Choose a time'),
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(200, 'Length must be at most 200 characters'),
  email: z.email({ error: 'Enter a valid email address' }).trim().max(254),
  note: z.string().trim().max(2000, 'Length must be at most 2000 characters').optional().default(''),
  tz: z.string().max(64).optional(),
});

/** Connecting a CalDAV calendar (ADR 088): the calendar collection's address, the user name and the password. */
export const CaldavConnectSchema = z.object({
  url: z
    .string({ error: 'Enter the calendar’s address' })
    .trim()
    .min(1, 'Enter the calendar’s address')
    .max(2000, 'Length must be at most 2000 characters')
    .refine((v) => {
      try {
        return ['http:', 'https:'].includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, 'Enter the address as https://…'),
  username: z.string({ error: 'Enter the user name' }).trim().min(1, 'Enter the user name').max(200, 'Length must be at most 200 characters'),
  password: z.string({ error: 'Enter the password' }).min(1, 'Enter the password').max(500, 'Length must be at most 500 characters'),
});
