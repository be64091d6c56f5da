import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts } from './contacts';
import { conversations } from './inbox';
import { users } from './users';

/** A kind of meeting customers book on its public page (ADR 072). */
export const meetingTypes = pgTable(
  'meeting_types',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The public booking page's address: /meet/{slug} on the account's host. Random, not guessable from the name. */
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    slotMinutes: integer('slot_minutes').notNull().default(30),
    /** everyday, mon-fri, sat-sun, or one day "0" (Sunday) to "6" (Saturday). */
    weekdays: text('weekdays').notNull().default('mon-fri'),
    /** Hours per day, "HH:MM" in the meeting's time zone. */
    dayStart: text('day_start').notNull().default('09:00'),
    dayEnd: text('day_end').notNull().default('17:00'),
    timezone: text('timezone').notNull().default('UTC'),
    /** 1: this week, 2: next week, 3 to 12: that many weeks. */
    bookingWindowWeeks: integer('booking_window_weeks').notNull().default(2),
    bufferMinutes: integer('buffer_minutes').notNull().default(0),
    /** Minutes before the start at which the visitor and the host are reminded. */
    reminderMinutes: jsonb('reminder_minutes').$type<number[]>().notNull().default([]),
    location: text('location').notNull().default(''),
    videoLink: text('video_link').notNull().default(''),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('meeting_types_slug_key').on(t.slug),
    index('meeting_types_account_idx').on(t.accountId),
    uniqueIndex('meeting_types_default_key').on(t.accountId).where(sql`${t.isDefault}`),
  ],
);

export const meetingHosts = pgTable(
  'meeting_hosts',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    meetingTypeId: integer('meeting_type_id')
      .notNull()
      .references(() => meetingTypes.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.meetingTypeId, t.userId] })],
);

export const meetingBookings = pgTable(
  'meeting_bookings',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    meetingTypeId: integer('meeting_type_id')
      .notNull()
      .references(() => meetingTypes.id, { onDelete: 'cascade' }),
    hostUserId: integer('host_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    note: text('note').notNull().default(''),
    /** The visitor's time zone, for their emails. */
    timezone: text('timezone').notNull().default('UTC'),
    status: text('status').$type<'confirmed' | 'cancelled'>().notNull().default('confirmed'),
    /** The event created in the host's connected calendar, to remove it on cancel. */
    calendarEventId: text('calendar_event_id'),
    /** The invitation's SEQUENCE (RFC 5545): 0 when booked, one more at each reschedule; a cancel sends one more still. */
    sequence: integer('sequence').notNull().default(0),
    rescheduledAt: timestamp('rescheduled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
  },
  (t) => [
    index('meeting_bookings_type_idx').on(t.accountId, t.meetingTypeId, t.startsAt),
    index('meeting_bookings_host_idx').on(t.accountId, t.hostUserId, t.startsAt),
    // The last line against a double booking; overlaps of different lengths are caught under the host's lock (ADR 072).
    uniqueIndex('meeting_bookings_host_slot_key').on(t.hostUserId, t.startsAt).where(sql`${t.status} = 'confirmed'`),
  ],
);

/** An agent's connected calendar (ADR 072): busy times are read from it, bookings are written to it. */
export const calendarConnections = pgTable(
  'calendar_connections',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').$type<'google' | 'caldav'>().notNull(),
    /** CalDAV (ADR 088): the calendar collection's URL and the user name; the password is in `accessToken`, encrypted (secret-box). */
    serverUrl: text('server_url'),
    username: text('username'),
    /** The calendar's owner as the provider names them (the Google account's email). */
    externalAccount: text('external_account').notNull().default(''),
    calendarId: text('calendar_id').notNull().default('primary'),
    accessToken: text('access_token').notNull(),
    refreshToken: text('refresh_token'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('calendar_connections_user_key').on(t.accountId, t.userId, t.provider)],
);
