import { index, integer, jsonb, pgTable, boolean, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** One open period of a week day: day 0 (Sunday) to 6, times 'HH:mm' in the business hours' time zone. */
export type BusinessTiming = { day: number; startTime: string; endTime: string };
/** A closed local day, 'YYYY-MM-DD' in the business hours' time zone. */
export type BusinessHoliday = { name: string; dateVal: string };

export const businessHours = pgTable(
  'business_hours',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    timezone: text('timezone').notNull(),
    /** Open around the clock (24x7): timings are kept but not used. */
    allDay: boolean('all_day').notNull().default(false),
    haveHolidays: boolean('have_holidays').notNull().default(false),
    timings: jsonb('timings').$type<BusinessTiming[]>().notNull().default([]),
    holidays: jsonb('holidays').$type<BusinessHoliday[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('business_hours_account_idx').on(t.accountId)],
);
