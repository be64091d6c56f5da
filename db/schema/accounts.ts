import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Plan features by area, e.g. { workflowAutomation: { slaManagement: true, advanceWorkflowsLimit: 10 } }. */
export type PlanFeatures = Record<string, Record<string, boolean | number>>;

export const plans = pgTable('plans', {
  id: serial('id').primaryKey(),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
  features: jsonb('features').$type<PlanFeatures>().notNull().default({}),
  // Prices in the currency's minor unit (cents), per seat (agent): an account pays seats x price (ADR 074).
  currency: text('currency').notNull().default('usd'),
  seatPriceMonthly: integer('seat_price_monthly').notNull().default(0),
  seatPriceYearly: integer('seat_price_yearly').notNull().default(0),
  trialDays: integer('trial_days').notNull().default(14),
  /** Offered on My Plan when billing is on (the trial and free plans are not sold). */
  sellable: boolean('sellable').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** cancelled: ends at the period's end and still has its features until then; expired: ended. */
export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'cancelled' | 'expired';

export type AccountSettings = {
  language?: string;
  defaultTimezone?: string;
  supportEmail?: string;
  /** Time tracking (ADR 071): resolving a conversation stops the timers running on it. */
  stopTimersOnResolve?: boolean;
  /** Account security (ADR 148): users without two-factor sign-in are sent to set it up when they sign in. */
  requireTwoFactor?: boolean;
  /** Account security (ADR 148): minutes without activity after which a session ends; absent or 0: never. */
  idleSignOutMinutes?: number;
  /** Contact erasure (ADR 153): the erased contact's conversations stay with the contact anonymised (default) or go. */
  erasureConversations?: 'anonymise' | 'delete';
};

export const accounts = pgTable(
  'accounts',
  {
    id: serial('id').primaryKey(),
    domain: text('domain').notNull(),
    name: text('name').notNull(),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    subscriptionStatus: text('subscription_status').$type<SubscriptionStatus>().notNull().default('trialing'),
    /** When a renewal payment first failed; after the grace period the account has the free plan's features (ADR 074). */
    pastDueSince: timestamp('past_due_since', { withTimezone: true }),
    trialEndsAt: timestamp('trial_ends_at', { withTimezone: true }),
    settings: jsonb('settings').$type<AccountSettings>().notNull().default({}),
    companySize: text('company_size'),
    industry: text('industry'),
    /** Set by an operator (ADR 152): its users see the suspended page and its channels refuse new work until resumed. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('accounts_domain_key').on(sql`lower(${t.domain})`), index('accounts_plan_idx').on(t.planId)],
);
