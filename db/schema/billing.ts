import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgSequence, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts, plans } from './accounts';

/**
 * Billing (ADR 073, 074): one customer per account at the payment provider, its subscription, its cards (only the
 * provider's token and what a person needs to recognise the card), the billing address, and the invoices mirrored
 * from the provider. Every row belongs to one account.
 */
export const billingCustomers = pgTable(
  'billing_customers',
  {
    accountId: integer('account_id')
      .primaryKey()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    providerCustomerId: text('provider_customer_id').notNull(),
    name: text('name').notNull().default(''),
    line1: text('line1').notNull().default(''),
    line2: text('line2').notNull().default(''),
    city: text('city').notNull().default(''),
    postalCode: text('postal_code').notNull().default(''),
    state: text('state').notNull().default(''),
    country: text('country').notNull().default(''),
    taxId: text('tax_id').notNull().default(''),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('billing_customers_provider_key').on(t.provider, t.providerCustomerId)],
);

export type BillingInterval = 'month' | 'year';

export const billingSubscriptions = pgTable(
  'billing_subscriptions',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    interval: text('interval').$type<BillingInterval>().notNull(),
    seats: integer('seats').notNull(),
    provider: text('provider').notNull(),
    providerSubscriptionId: text('provider_subscription_id').notNull(),
    providerItemId: text('provider_item_id').notNull(),
    status: text('status').notNull(),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('billing_subscriptions_account_key').on(t.accountId), uniqueIndex('billing_subscriptions_provider_key').on(t.provider, t.providerSubscriptionId)],
);

export const billingPaymentMethods = pgTable(
  'billing_payment_methods',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    providerPaymentMethodId: text('provider_payment_method_id').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('billing_payment_methods_provider_key').on(t.accountId, t.providerPaymentMethodId), index('billing_payment_methods_account_idx').on(t.accountId)],
);

/** Invoice numbers run through one sequence for the whole installation (PAR-000001, PAR-000002...). */
export const billingInvoiceNumbers = pgSequence('billing_invoice_number_seq', { startWith: 1, increment: 1 });

export type InvoiceLine = { description: string; amount: number; quantity: number; proration: boolean; periodStart: string | null; periodEnd: string | null };

export const billingInvoices = pgTable(
  'billing_invoices',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    number: bigint('number', { mode: 'number' })
      .notNull()
      .default(sql`nextval('billing_invoice_number_seq')`),
    providerInvoiceId: text('provider_invoice_id').notNull(),
    status: text('status').notNull(),
    currency: text('currency').notNull(),
    subtotal: integer('subtotal').notNull(),
    total: integer('total').notNull(),
    amountPaid: integer('amount_paid').notNull(),
    lines: jsonb('lines').$type<InvoiceLine[]>().notNull().default([]),
    /** The billing address as it was when the invoice was issued. */
    billedTo: jsonb('billed_to').$type<Record<string, string>>().notNull().default({}),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('billing_invoices_number_key').on(t.number), uniqueIndex('billing_invoices_provider_key').on(t.providerInvoiceId), index('billing_invoices_account_idx').on(t.accountId, t.issuedAt)],
);

/** Webhook deliveries already applied: the same event delivered twice changes nothing. */
export const billingWebhookEvents = pgTable('billing_webhook_events', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  accountId: integer('account_id'),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});
