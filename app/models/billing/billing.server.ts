import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { SubscriptionStatus } from '../../../db/schema/accounts';
import type { BillingInterval, InvoiceLine } from '../../../db/schema/billing';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { emitEvent } from '../events/events.server';
import type { DomainEventType } from '../events/types';
import { sendEmail } from '../mail/mail.server';
import { formatMoney, invoiceNumber } from './money';
import { ensurePlans } from '../accounts/accounts.server';
import { BillingProviderError, getBillingProvider, type BillingProvider, type ProviderInvoice, type ProviderSubscription, type SeatPrice, type WebhookEvent } from './provider.server';

/**
 * Billing (ADR 074): the account's subscription to a plan, paid per seat per month or year through the
 * installation's payment provider (ADR 073). The provider is the source of truth for money; Parley keeps a copy
 * of what it needs to show and to enforce: the plan and its status on the account (which the features follow),
 * the subscription, the cards' brand and last four digits, the address and the invoices.
 */

export class BillingError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export const BILLING_MESSAGES = {
  noProvider: 'Online payment is not configured on this installation. Ask its administrator to set STRIPE_SECRET_KEY.',
  noCard: 'Add a card before starting a subscription.',
  alreadySubscribed: 'This account already has a subscription: change it instead.',
  noSubscription: 'This account has no subscription.',
  lastCard: 'This is the only card of an active subscription: add another card before deleting it.',
  seatsBelowUsers: (users: number) => `This account has ${users} agents: choose at least ${users} seats, or remove agents first.`,
  sameChange: 'Choose another plan, billing period or number of seats.',
  notCancelled: 'The subscription is not cancelled.',
  alreadyCancelled: 'The subscription is already cancelled.',
  seatLimit: (seats: number) => `Your subscription has ${seats} ${seats === 1 ? 'seat' : 'seats'}, all taken. Add seats on My Plan before inviting another agent.`,
};

function provider(): BillingProvider {
  const p = getBillingProvider();
  if (!p) throw new BillingError(BILLING_MESSAGES.noProvider, 503);
  return p;
}

/** Provider errors (a declined card, an unreachable API) become a form message with the provider's words. */
async function viaProvider<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof BillingProviderError) throw new BillingError(err.status === 402 ? `The payment was declined: ${err.message}` : `The payment provider refused: ${err.message}`, err.status === 0 ? 502 : err.status === 402 ? 402 : 400);
    throw err;
  }
}

function audit(tx: Tx, opts: { accountId: number; userId: number | null; type: DomainEventType; subjectType: string; subjectId: string | number; payload?: Record<string, unknown> }) {
  return emitEvent(tx, {
    accountId: opts.accountId,
    type: opts.type,
    subjectType: opts.subjectType,
    subjectId: opts.subjectId,
    payload: opts.payload ?? {},
    actor: opts.userId ? { type: 'user', id: opts.userId } : { type: 'system' },
  });
}

export async function listSellablePlans() {
  await ensurePlans();
  return getDb().select().from(schema.plans).where(eq(schema.plans.sellable, true)).orderBy(asc(schema.plans.seatPriceMonthly));
}

async function sellablePlan(planKey: string) {
  const [plan] = await getDb()
    .select()
    .from(schema.plans)
    .where(and(eq(schema.plans.key, planKey), eq(schema.plans.sellable, true)));
  if (!plan) throw new BillingError('Choose one of the plans shown.');
  return plan;
}

export function seatPrice(plan: typeof schema.plans.$inferSelect, interval: BillingInterval, seats: number): SeatPrice {
  return { planKey: plan.key, planName: plan.name, currency: plan.currency, unitAmount: interval === 'year' ? plan.seatPriceYearly : plan.seatPriceMonthly, interval, seats };
}

/** Agents who hold or are invited to a seat: every user of the account with access. */
export async function countSeatHolders(opts: { accountId: number }, db = getDb()) {
  const [row] = await db
    .select({ n: count() })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.hasAccess, true)));
  return row.n;
}

export async function getSubscription(opts: { accountId: number }) {
  const [row] = await getDb()
    .select({ subscription: schema.billingSubscriptions, plan: schema.plans })
    .from(schema.billingSubscriptions)
    .innerJoin(schema.plans, eq(schema.plans.id, schema.billingSubscriptions.planId))
    .where(eq(schema.billingSubscriptions.accountId, opts.accountId));
  return row ?? null;
}

export async function listPaymentMethods(opts: { accountId: number }) {
  return getDb()
    .select()
    .from(schema.billingPaymentMethods)
    .where(eq(schema.billingPaymentMethods.accountId, opts.accountId))
    .orderBy(desc(schema.billingPaymentMethods.isDefault), asc(schema.billingPaymentMethods.id));
}

export async function getBillingAddress(opts: { accountId: number }) {
  const [row] = await getDb().select().from(schema.billingCustomers).where(eq(schema.billingCustomers.accountId, opts.accountId));
  return row ?? null;
}

/** The provider's customer of the account, created on first need (adding a card, saving the address). */
async function ensureCustomer(opts: { accountId: number }) {
  const existing = await getBillingAddress(opts);
  if (existing) return existing;
  const p = provider();
  const [account] = await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
  const [owner] = await getDb()
    .select({ email: schema.users.email })
    .from(schema.users)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.users.roleId))
    .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.roles.kind, 'owner')))
    .limit(1);
  const customer = await viaProvider(() => p.createCustomer({ accountId: opts.accountId, email: owner?.email ?? '', name: account.name }));
  const [row] = await getDb()
    .insert(schema.billingCustomers)
    .values({ accountId: opts.accountId, provider: p.name, providerCustomerId: customer.id, name: account.name })
    .onConflictDoNothing()
    .returning();
  return row ?? (await getBillingAddress(opts))!;
}

// ---------------------------------------------------------------- payment methods

export async function startCardSetup(opts: { accountId: number; baseUrl: string }) {
  const customer = await ensureCustomer(opts);
  return viaProvider(() =>
    provider().startCardSetup({
      customerId: customer.providerCustomerId,
      successUrl: `${opts.baseUrl}/settings/my-plan/card?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${opts.baseUrl}/settings/my-plan`,
    }),
  );
}

/** The hosted card page came back: the card it saved becomes one of the account's (the first is the default). */
export async function completeCardSetup(opts: { accountId: number; userId: number; setupId: string }) {
  const customer = await getBillingAddress(opts);
  if (!customer) throw new BillingError('No card setup was started for this account.', 404);
  const p = provider();
  const card = await viaProvider(() => p.finishCardSetup({ customerId: customer.providerCustomerId, setupId: opts.setupId }));
  const existing = await listPaymentMethods(opts);
  const already = existing.find((m) => m.providerPaymentMethodId === card.id);
  if (already) return already;
  const isDefault = existing.length === 0;
  if (isDefault) await viaProvider(() => p.setDefaultPaymentMethod({ customerId: customer.providerCustomerId, paymentMethodId: card.id }));
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(schema.billingPaymentMethods)
      .values({ accountId: opts.accountId, providerPaymentMethodId: card.id, brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, isDefault })
      .onConflictDoNothing()
      .returning();
    if (row) await audit(tx, { ...opts, type: 'billing_card_added', subjectType: 'payment_method', subjectId: row.id, payload: { brand: card.brand, last4: card.last4 } });
    return row;
  });
}

async function findCard(opts: { accountId: number; paymentMethodId: number }) {
  const [card] = await getDb()
    .select()
    .from(schema.billingPaymentMethods)
    .where(and(eq(schema.billingPaymentMethods.id, opts.paymentMethodId), eq(schema.billingPaymentMethods.accountId, opts.accountId)));
  if (!card) throw new BillingError('Card not found.', 404);
  return card;
}

export async function setDefaultCard(opts: { accountId: number; userId: number; paymentMethodId: number }) {
  const card = await findCard(opts);
  const customer = (await getBillingAddress(opts))!;
  await viaProvider(() => provider().setDefaultPaymentMethod({ customerId: customer.providerCustomerId, paymentMethodId: card.providerPaymentMethodId }));
  await getDb().transaction(async (tx) => {
    await tx
      .update(schema.billingPaymentMethods)
      .set({ isDefault: sql`${schema.billingPaymentMethods.id} = ${card.id}` })
      .where(eq(schema.billingPaymentMethods.accountId, opts.accountId));
    await audit(tx, { ...opts, type: 'billing_default_card_changed', subjectType: 'payment_method', subjectId: card.id, payload: { last4: card.last4 } });
  });
}

export async function deleteCard(opts: { accountId: number; userId: number; paymentMethodId: number }) {
  const card = await findCard(opts);
  const cards = await listPaymentMethods(opts);
  const sub = await getSubscription(opts);
  if (cards.length === 1 && sub && sub.subscription.status !== 'expired') throw new BillingError(BILLING_MESSAGES.lastCard, 409);
  const p = provider();
  const next = card.isDefault ? cards.find((c) => c.id !== card.id) : undefined;
  const customer = (await getBillingAddress(opts))!;
  if (next) await viaProvider(() => p.setDefaultPaymentMethod({ customerId: customer.providerCustomerId, paymentMethodId: next.providerPaymentMethodId }));
  await viaProvider(() => p.detachPaymentMethod({ paymentMethodId: card.providerPaymentMethodId }));
  await getDb().transaction(async (tx) => {
    await tx.delete(schema.billingPaymentMethods).where(and(eq(schema.billingPaymentMethods.id, card.id), eq(schema.billingPaymentMethods.accountId, opts.accountId)));
    if (next) await tx.update(schema.billingPaymentMethods).set({ isDefault: true }).where(and(eq(schema.billingPaymentMethods.id, next.id), eq(schema.billingPaymentMethods.accountId, opts.accountId)));
    await audit(tx, { ...opts, type: 'billing_card_deleted', subjectType: 'payment_method', subjectId: card.id, payload: { last4: card.last4 } });
  });
}

// ---------------------------------------------------------------- address

export type BillingAddress = { name: string; line1: string; line2: string; city: string; postalCode: string; state: string; country: string; taxId: string };

export async function updateBillingAddress(opts: { accountId: number; userId: number; address: BillingAddress }) {
  const customer = await ensureCustomer(opts);
  const { taxId, ...address } = opts.address;
  await viaProvider(() => provider().updateCustomer({ customerId: customer.providerCustomerId, address, taxId }));
  await getDb().transaction(async (tx) => {
    await tx
      .update(schema.billingCustomers)
      .set({ ...opts.address, updatedAt: new Date() })
      .where(eq(schema.billingCustomers.accountId, opts.accountId));
    await audit(tx, { ...opts, type: 'billing_address_updated', subjectType: 'account', subjectId: opts.accountId, payload: { country: address.country } });
  });
}

// ---------------------------------------------------------------- subscription

/** What the account's status is, from the provider's subscription. */
export function accountStatusOf(sub: Pick<ProviderSubscription, 'status' | 'cancelAtPeriodEnd'>): SubscriptionStatus {
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') return 'expired';
  if (sub.status === 'past_due' || sub.status === 'unpaid' || sub.status === 'incomplete') return 'past_due';
  if (sub.status === 'trialing') return 'trialing';
  return sub.cancelAtPeriodEnd ? 'cancelled' : 'active';
}

async function applySubscription(tx: Tx, opts: { accountId: number; planId?: number; sub: ProviderSubscription; interval?: BillingInterval; seats?: number }) {
  const status = accountStatusOf(opts.sub);
  await tx
    .update(schema.billingSubscriptions)
    .set({
      ...(opts.planId ? { planId: opts.planId } : {}),
      ...(opts.interval ? { interval: opts.interval } : {}),
      ...(opts.seats ? { seats: opts.seats } : {}),
      status,
      cancelAtPeriodEnd: opts.sub.cancelAtPeriodEnd,
      currentPeriodStart: opts.sub.currentPeriodStart,
      currentPeriodEnd: opts.sub.currentPeriodEnd,
      updatedAt: new Date(),
    })
    .where(and(eq(schema.billingSubscriptions.accountId, opts.accountId), eq(schema.billingSubscriptions.providerSubscriptionId, opts.sub.id)));
  const [account] = await tx.select().from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
  await tx
    .update(schema.accounts)
    .set({
      ...(opts.planId ? { planId: opts.planId } : {}),
      subscriptionStatus: status,
      // The grace period runs from the first failed payment; a payment that goes through ends it.
      pastDueSince: status === 'past_due' ? (account.pastDueSince ?? new Date()) : null,
    })
    .where(eq(schema.accounts.id, opts.accountId));
  return { status, previous: account.subscriptionStatus };
}

export type Quote = { planKey: string; planName: string; interval: BillingInterval; seats: number; currency: string; perPeriod: number; proration: number | null; dueNow: number };

/** `calculateamount`: the price per period, and for a change the proration the provider would charge now. */
export async function quoteSubscription(opts: { accountId: number; planKey: string; interval: BillingInterval; seats: number; now?: Date }): Promise<Quote> {
  const plan = await sellablePlan(opts.planKey);
  const users = await countSeatHolders(opts);
  if (opts.seats < users) throw new BillingError(BILLING_MESSAGES.seatsBelowUsers(users));
  const price = seatPrice(plan, opts.interval, opts.seats);
  const perPeriod = price.unitAmount * opts.seats;
  const current = await getSubscription(opts);
  const base = { planKey: plan.key, planName: plan.name, interval: opts.interval, seats: opts.seats, currency: plan.currency, perPeriod };
  if (!current || current.subscription.status === 'expired') return { ...base, proration: null, dueNow: perPeriod };
  const s = current.subscription;
  if (s.planId === plan.id && s.interval === opts.interval && s.seats === opts.seats) throw new BillingError(BILLING_MESSAGES.sameChange);
  const customer = (await getBillingAddress(opts))!;
  const preview = await viaProvider(() =>
    provider().previewChange({ customerId: customer.providerCustomerId, subscriptionId: s.providerSubscriptionId, itemId: s.providerItemId, price, prorationDate: opts.now ?? new Date() }),
  );
  return { ...base, proration: preview.proration, dueNow: preview.amountDue };
}

export async function startSubscription(opts: { accountId: number; userId: number; planKey: string; interval: BillingInterval; seats: number }) {
  const current = await getSubscription(opts);
  if (current && current.subscription.status !== 'expired') throw new BillingError(BILLING_MESSAGES.alreadySubscribed, 409);
  const plan = await sellablePlan(opts.planKey);
  const users = await countSeatHolders(opts);
  if (opts.seats < users) throw new BillingError(BILLING_MESSAGES.seatsBelowUsers(users));
  const card = (await listPaymentMethods(opts)).find((c) => c.isDefault);
  if (!card) throw new BillingError(BILLING_MESSAGES.noCard, 409);
  const customer = (await getBillingAddress(opts))!;
  const p = provider();
  const sub = await viaProvider(() => p.createSubscription({ customerId: customer.providerCustomerId, price: seatPrice(plan, opts.interval, opts.seats) }));
  await getDb().transaction(async (tx) => {
    if (current) await tx.delete(schema.billingSubscriptions).where(eq(schema.billingSubscriptions.accountId, opts.accountId));
    await tx.insert(schema.billingSubscriptions).values({
      accountId: opts.accountId,
      planId: plan.id,
      interval: opts.interval,
      seats: opts.seats,
      provider: p.name,
      providerSubscriptionId: sub.id,
      providerItemId: sub.itemId,
      status: accountStatusOf(sub),
      cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
      currentPeriodStart: sub.currentPeriodStart,
      currentPeriodEnd: sub.currentPeriodEnd,
    });
    await applySubscription(tx, { accountId: opts.accountId, planId: plan.id, sub });
    await audit(tx, { ...opts, type: 'billing_subscription_started', subjectType: 'subscription', subjectId: sub.id, payload: { plan: plan.key, interval: opts.interval, seats: opts.seats } });
  });
  await syncInvoices(opts);
}

export async function changeSubscription(opts: { accountId: number; userId: number; planKey: string; interval: BillingInterval; seats: number; now?: Date }) {
  const current = await getSubscription(opts);
  if (!current || current.subscription.status === 'expired') throw new BillingError(BILLING_MESSAGES.noSubscription, 409);
  const plan = await sellablePlan(opts.planKey);
  const users = await countSeatHolders(opts);
  if (opts.seats < users) throw new BillingError(BILLING_MESSAGES.seatsBelowUsers(users));
  const s = current.subscription;
  if (s.planId === plan.id && s.interval === opts.interval && s.seats === opts.seats) throw new BillingError(BILLING_MESSAGES.sameChange);
  const sub = await viaProvider(() =>
    provider().changeSubscription({ subscriptionId: s.providerSubscriptionId, itemId: s.providerItemId, price: seatPrice(plan, opts.interval, opts.seats), prorationDate: opts.now ?? new Date() }),
  );
  await getDb().transaction(async (tx) => {
    await applySubscription(tx, { accountId: opts.accountId, planId: plan.id, sub, interval: opts.interval, seats: opts.seats });
    await audit(tx, {
      ...opts,
      type: 'billing_subscription_changed',
      subjectType: 'subscription',
      subjectId: sub.id,
      payload: { from: { plan: current.plan.key, interval: s.interval, seats: s.seats }, to: { plan: plan.key, interval: opts.interval, seats: opts.seats } },
    });
  });
  await syncInvoices(opts);
}

export async function setSubscriptionCancelled(opts: { accountId: number; userId: number; cancel: boolean }) {
  const current = await getSubscription(opts);
  if (!current || current.subscription.status === 'expired') throw new BillingError(BILLING_MESSAGES.noSubscription, 409);
  if (opts.cancel && current.subscription.cancelAtPeriodEnd) throw new BillingError(BILLING_MESSAGES.alreadyCancelled, 409);
  if (!opts.cancel && !current.subscription.cancelAtPeriodEnd) throw new BillingError(BILLING_MESSAGES.notCancelled, 409);
  const sub = await viaProvider(() => provider().setCancelAtPeriodEnd({ subscriptionId: current.subscription.providerSubscriptionId, cancel: opts.cancel }));
  await getDb().transaction(async (tx) => {
    await applySubscription(tx, { accountId: opts.accountId, sub });
    await audit(tx, {
      ...opts,
      type: opts.cancel ? 'billing_subscription_cancelled' : 'billing_subscription_resumed',
      subjectType: 'subscription',
      subjectId: sub.id,
      payload: { endsAt: sub.currentPeriodEnd.toISOString() },
    });
  });
}

/**
 * Past due: charges the open invoice now to the default card (the owner has just added or chosen another). A
 * payment that goes through makes the subscription active again, here and by the provider's webhooks.
 */
export async function payOpenInvoice(opts: { accountId: number; userId: number }) {
  const current = await getSubscription(opts);
  if (!current || current.subscription.status !== 'past_due') throw new BillingError('There is no failed payment to retry.', 409);
  const [open] = await getDb()
    .select()
    .from(schema.billingInvoices)
    .where(and(eq(schema.billingInvoices.accountId, opts.accountId), eq(schema.billingInvoices.status, 'open')))
    .orderBy(desc(schema.billingInvoices.number))
    .limit(1);
  if (!open) throw new BillingError('There is no failed payment to retry.', 409);
  const paid = await viaProvider(() => provider().payInvoice({ invoiceId: open.providerInvoiceId }));
  await getDb().transaction(async (tx) => {
    await upsertInvoice(tx, opts.accountId, paid);
    if (paid.status === 'paid') {
      await tx.update(schema.accounts).set({ subscriptionStatus: current.subscription.cancelAtPeriodEnd ? 'cancelled' : 'active', pastDueSince: null }).where(eq(schema.accounts.id, opts.accountId));
      await tx.update(schema.billingSubscriptions).set({ status: current.subscription.cancelAtPeriodEnd ? 'cancelled' : 'active', updatedAt: new Date() }).where(eq(schema.billingSubscriptions.accountId, opts.accountId));
      await audit(tx, { ...opts, type: 'billing_invoice_paid', subjectType: 'invoice', subjectId: open.id, payload: { number: invoiceNumber(open.number), total: paid.total } });
    }
  });
  if (paid.status !== 'paid') throw new BillingError('The payment was declined again: add or choose another card.', 402);
}

// ---------------------------------------------------------------- seats

/** Inviting an agent past the paid seats is refused (billing on, with a subscription; a trial has no limit). */
export async function checkSeatAvailable(opts: { accountId: number }) {
  if (!getConfig().billing) return;
  const current = await getSubscription(opts);
  if (!current || current.subscription.status === 'expired') return;
  const holders = await countSeatHolders(opts);
  if (holders >= current.subscription.seats) throw new BillingError(BILLING_MESSAGES.seatLimit(current.subscription.seats), 409);
}

/** The refusal's words when no seat is free, else null (for the users screen's invite and give-access forms). */
export async function seatRefusal(accountId: number) {
  try {
    await checkSeatAvailable({ accountId });
    return null;
  } catch (err) {
    if (err instanceof BillingError) return err.message;
    throw err;
  }
}

// ---------------------------------------------------------------- invoices

/** Mirrors one provider invoice; numbered from the installation's sequence the first time it is seen. */
async function upsertInvoice(tx: Tx, accountId: number, inv: ProviderInvoice) {
  // One writer at a time: a number is taken only by an insert that will commit, so the numbers have no gaps.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('billing_invoices'))`);
  const [existing] = await tx.select().from(schema.billingInvoices).where(eq(schema.billingInvoices.providerInvoiceId, inv.id));
  const values = { status: inv.status, subtotal: inv.subtotal, total: inv.total, amountPaid: inv.amountPaid, lines: inv.lines, paidAt: inv.paidAt };
  if (existing) {
    if (existing.accountId !== accountId) return existing;
    await tx.update(schema.billingInvoices).set(values).where(and(eq(schema.billingInvoices.id, existing.id), eq(schema.billingInvoices.accountId, accountId)));
    return { ...existing, ...values, created: false };
  }
  const [customer] = await tx.select().from(schema.billingCustomers).where(eq(schema.billingCustomers.accountId, accountId));
  const billedTo: Record<string, string> = customer
    ? { name: customer.name, line1: customer.line1, line2: customer.line2, city: customer.city, postalCode: customer.postalCode, state: customer.state, country: customer.country, taxId: customer.taxId }
    : {};
  const [row] = await tx
    .insert(schema.billingInvoices)
    .values({ accountId, providerInvoiceId: inv.id, currency: inv.currency, issuedAt: inv.createdAt, billedTo, ...values })
    .returning();
  return { ...row, created: true };
}

export async function syncInvoices(opts: { accountId: number }) {
  const customer = await getBillingAddress(opts);
  if (!customer) return;
  const invoices = await viaProvider(() => provider().listInvoices({ customerId: customer.providerCustomerId }));
  // Oldest first, so that numbers follow the order the provider issued them in.
  for (const inv of invoices.reverse()) await getDb().transaction((tx) => upsertInvoice(tx, opts.accountId, inv));
}

export async function listInvoices(opts: { accountId: number; page: number; pageSize: number }) {
  const db = getDb();
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(schema.billingInvoices)
      .where(eq(schema.billingInvoices.accountId, opts.accountId))
      .orderBy(desc(schema.billingInvoices.number))
      .limit(opts.pageSize)
      .offset((opts.page - 1) * opts.pageSize),
    db.select({ n: count() }).from(schema.billingInvoices).where(eq(schema.billingInvoices.accountId, opts.accountId)),
  ]);
  return { rows, total: total.n };
}

export async function getInvoice(opts: { accountId: number; invoiceId: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.billingInvoices)
    .where(and(eq(schema.billingInvoices.id, opts.invoiceId), eq(schema.billingInvoices.accountId, opts.accountId)));
  return row ?? null;
}


// ---------------------------------------------------------------- webhooks

/**
 * One verified provider event. Applied at most once: the event's id is recorded in the same transaction as its
 * effect, so a second delivery finds it and changes nothing. Answers what was done, for the log.
 */
export async function applyWebhookEvent(event: WebhookEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  const db = getDb();
  const [customer] = event.customerId
    ? await db
        .select()
        .from(schema.billingCustomers)
        .where(eq(schema.billingCustomers.providerCustomerId, event.customerId))
    : [];
  let failedPayment: { accountId: number; amount: number; currency: string } | null = null;
  const outcome = await db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(schema.billingWebhookEvents)
      .values({ id: event.id, provider: customer?.provider ?? 'stripe', type: event.type, accountId: customer?.accountId ?? null })
      .onConflictDoNothing()
      .returning();
    if (!fresh) return 'duplicate' as const;
    if (!customer) return 'ignored' as const;
    const accountId = customer.accountId;
    if (event.invoice && (event.type === 'invoice.paid' || event.type === 'invoice.payment_failed' || event.type === 'invoice.finalized' || event.type === 'invoice.updated')) {
      const inv = await upsertInvoice(tx, accountId, event.invoice);
      if (event.type === 'invoice.paid') {
        await emitEvent(tx, { accountId, type: 'billing_invoice_paid', subjectType: 'invoice', subjectId: inv.id, payload: { number: invoiceNumber(inv.number), total: event.invoice.total }, actor: { type: 'system' } });
      }
      if (event.type === 'invoice.payment_failed') {
        const [account] = await tx.select().from(schema.accounts).where(eq(schema.accounts.id, accountId));
        if (account.subscriptionStatus !== 'expired') {
          await tx
            .update(schema.accounts)
            .set({ subscriptionStatus: 'past_due', pastDueSince: account.pastDueSince ?? new Date() })
            .where(eq(schema.accounts.id, accountId));
          await tx.update(schema.billingSubscriptions).set({ status: 'past_due', updatedAt: new Date() }).where(eq(schema.billingSubscriptions.accountId, accountId));
        }
        await emitEvent(tx, { accountId, type: 'billing_payment_failed', subjectType: 'invoice', subjectId: inv.id, payload: { number: invoiceNumber(inv.number), amount: event.invoice.amountDue }, actor: { type: 'system' } });
        failedPayment = { accountId, amount: event.invoice.amountDue, currency: event.invoice.currency };
      }
      return 'applied' as const;
    }
    if (event.subscription && (event.type === 'customer.subscription.updated' || event.type === 'customer.subscription.deleted')) {
      const [local] = await tx
        .select()
        .from(schema.billingSubscriptions)
        .where(and(eq(schema.billingSubscriptions.accountId, accountId), eq(schema.billingSubscriptions.providerSubscriptionId, event.subscription.id)));
      if (!local) return 'ignored' as const;
      const { status, previous } = await applySubscription(tx, { accountId, sub: event.subscription });
      if (status === 'expired' && previous !== 'expired') {
        await emitEvent(tx, { accountId, type: 'billing_subscription_expired', subjectType: 'subscription', subjectId: event.subscription.id, payload: {}, actor: { type: 'system' } });
      }
      return 'applied' as const;
    }
    return 'ignored' as const;
  });
  if (failedPayment) await emailOwnersPaymentFailed(failedPayment);
  return outcome;
}

async function emailOwnersPaymentFailed(opts: { accountId: number; amount: number; currency: string }) {
  const owners = await getDb()
    .select({ email: schema.users.email, firstName: schema.users.firstName, domain: schema.accounts.domain })
    .from(schema.users)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.users.roleId))
    .innerJoin(schema.accounts, eq(schema.accounts.id, schema.users.accountId))
    .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.roles.kind, 'owner'), eq(schema.users.status, 'active')));
  const { appHost, billingGraceDays } = getConfig();
  for (const o of owners) {
    try {
      await sendEmail({
        accountId: opts.accountId,
        to: o.email,
        subject: 'Your Parley payment failed',
        text:
          `Hello ${o.firstName},\n\nThe payment of ${formatMoney(opts.amount, opts.currency)} for your Parley subscription was declined. ` +
          `Your account keeps its plan for ${billingGraceDays} days; after that it has the free plan's features until a payment goes through. Nothing is deleted.\n\n` +
          `Update your card: http://${o.domain}.${appHost}/settings/my-plan\n`,
      });
    } catch (err) {
      getLogger().error({ err: (err as Error).message, accountId: opts.accountId }, 'payment-failed email not sent');
    }
  }
}


export type { InvoiceLine };
