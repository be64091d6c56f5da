import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Plan features by area, e.g. { workflowAutomation: { slaManagement: true, advanceWorkflowsLimit: 10 } }. */
export type PlanFeatures = Record<string, Record<string, boolean | number>>;

export const plans = pgTable('plans', {
  id: serial('id').primaryKey(),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
  features: jsonb('features').$type<PlanFeatures>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export type AccountSettings = {
  language?: string;
  defaultTimezone?: string;
  supportEmail?: string;
  /** Time tracking (ADR 071): resolving a conversation stops the timers running on it. */
  stopTimersOnResolve?: boolean;
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
    subscriptionStatus: text('subscription_status').$type<'trialing' | 'active' | 'cancelled'>().notNull().default('trialing'),
    trialEndsAt: timestamp('trial_ends_at', { withTimezone: true }),
    settings: jsonb('settings').$type<AccountSettings>().notNull().default({}),
    companySize: text('company_size'),
    industry: text('industry'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('accounts_domain_key').on(sql`lower(${t.domain})`), index('accounts_plan_idx').on(t.planId)],
);
