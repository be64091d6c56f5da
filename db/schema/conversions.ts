import { bigint, bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts } from './contacts';

/**
 * Settings → Conversions (ADR 104): conversion goals and sales trackers, and what the messenger's `track()` records
 * against them. The analytics pages count the domain events (`goal_reached`, `sale_recorded`), not these rows.
 */
export const conversionGoals = pgTable(
  'conversion_goals',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The event the goal counts: the name the site passes to `Parley.track(name)` ('sale' counts sales). */
    eventName: text('event_name').notNull(),
    /** 'event': reached by `Parley.track(eventName)`; 'url': reached by viewing a page whose URL matches (ADR 120). */
    kind: text('kind').$type<'event' | 'url'>().notNull().default('event'),
    /** URL goals: how the page's URL is compared ('contains', 'equals', 'starts_with') with `urlValue`. */
    urlOp: text('url_op').$type<'contains' | 'equals' | 'starts_with'>(),
    urlValue: text('url_value'),
    description: text('description').notNull().default(''),
    /** A conversion is attributed to the contact's conversation when one had a reply within this many days before. */
    attributionDays: integer('attribution_days').notNull().default(30),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('conversion_goals_account_name_key').on(t.accountId, t.name), index('conversion_goals_event_idx').on(t.accountId, t.eventName)],
);

export const saleTrackers = pgTable(
  'sale_trackers',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The currency a sale without one is recorded in (ISO 4217). */
    currency: text('currency').notNull().default('USD'),
    attributionDays: integer('attribution_days').notNull().default(30),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('sale_trackers_account_name_key').on(t.accountId, t.name)],
);

/** One sale, once per (account, source, external id): a redelivered order or a second track() call adds nothing. */
export const sales = pgTable(
  'sales',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    source: text('source').$type<'tracker' | 'shopify' | 'bigcommerce' | 'api'>().notNull(),
    externalId: text('external_id').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    saleTrackerId: integer('sale_tracker_id').references(() => saleTrackers.id, { onDelete: 'set null' }),
    /** The conversation it is attributed to (ADR 104), decided when recorded. */
    conversationId: integer('conversation_id'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('sales_account_source_external_key').on(t.accountId, t.source, t.externalId)],
);

/** A goal reached by a contact: once per goal and contact. */
export const goalConversions = pgTable(
  'goal_conversions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    goalId: integer('goal_id')
      .notNull()
      .references(() => conversionGoals.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('goal_conversions_goal_contact_key').on(t.goalId, t.contactId)],
);
