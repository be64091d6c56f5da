import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export type ContactAddress = { country?: string; locality?: string; streetAddress?: string; postalCode?: string };

/**
 * People who write to the account. The inbox creates them from inbound senders; the CRM area owns their
 * screens and adds companies, segments and notes.
 */
export const contacts = pgTable(
  'contacts',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email'),
    phone: text('phone'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    title: text('title'),
    website: text('website'),
    address: jsonb('address').$type<ContactAddress>().notNull().default({}),
    isFavourite: boolean('is_favourite').notNull().default(false),
    /** Where the contact first came from: email, web, sms, support_form, internal_ticket... */
    source: text('source'),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contacts_account_email_key').on(t.accountId, sql`lower(${t.email})`).where(sql`${t.email} is not null`),
    index('contacts_account_phone_idx').on(t.accountId, t.phone),
    index('contacts_account_created_idx').on(t.accountId, t.createdAt),
  ],
);
