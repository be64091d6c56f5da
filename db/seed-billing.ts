import { eq } from 'drizzle-orm';
import { getDb, schema } from './client';
import { ensurePlans, findPlanByKey } from '../app/models/accounts/accounts.server';

/**
 * The demo's billing (ADR 074), as a provider's webhooks would have left it: an Enterprise subscription of 5 seats
 * billed monthly since four months, two cards, an address, and the four monthly invoices plus one seat upgrade with
 * its proration lines. Ids look like Stripe's; with PARLEY_BILLING off (the default) none of it is shown.
 */
export async function seedDemoBilling(opts: { accountId: number; now: Date }) {
  const db = getDb();
  await ensurePlans(db);
  const plan = await findPlanByKey('enterprise', db);
  const day = 86_400_000;
  const start = new Date(opts.now.getTime() - 4 * 30 * day);
  const periodStart = new Date(start.getTime() + 4 * 30 * day - 10 * day);
  const address = { name: 'Parley Demo Ltd', line1: '12 Harbour Street', line2: 'Floor 3', city: 'Bristol', postalCode: 'BS1 4QA', state: '', country: 'GB', taxId: 'GB123456789' };
  await db.transaction(async (tx) => {
    await tx.insert(schema.billingCustomers).values({ accountId: opts.accountId, provider: 'stripe', providerCustomerId: 'cus_DemoParley0001', ...address });
    await tx.insert(schema.billingPaymentMethods).values([
      { accountId: opts.accountId, providerPaymentMethodId: 'pm_DemoVisa4242', brand: 'visa', last4: '4242', expMonth: 8, expYear: opts.now.getUTCFullYear() + 2, isDefault: true },
      { accountId: opts.accountId, providerPaymentMethodId: 'pm_DemoMc4444', brand: 'mastercard', last4: '4444', expMonth: 3, expYear: opts.now.getUTCFullYear() + 1, isDefault: false },
    ]);
    await tx.insert(schema.billingSubscriptions).values({
      accountId: opts.accountId,
      planId: plan.id,
      interval: 'month',
      seats: 5,
      provider: 'stripe',
      providerSubscriptionId: 'sub_DemoParley0001',
      providerItemId: 'si_DemoParley0001',
      status: 'active',
      currentPeriodStart: periodStart,
      currentPeriodEnd: new Date(periodStart.getTime() + 30 * day),
    });
    await tx.update(schema.accounts).set({ planId: plan.id, subscriptionStatus: 'active', pastDueSince: null }).where(eq(schema.accounts.id, opts.accountId));
    const seat = plan.seatPriceMonthly;
    const invoices = [
      { at: start, seats: 4, lines: [{ description: '4 × Parley Enterprise', amount: 4 * seat, quantity: 4, proration: false }] },
      {
        at: new Date(start.getTime() + 12 * day),
        seats: 5,
        lines: [
          { description: 'Unused time on 4 × Parley Enterprise', amount: -Math.round(4 * seat * 0.6), quantity: 4, proration: true },
          { description: 'Remaining time on 5 × Parley Enterprise', amount: Math.round(5 * seat * 0.6), quantity: 5, proration: true },
        ],
      },
      ...[1, 2, 3].map((n) => ({ at: new Date(start.getTime() + n * 30 * day), seats: 5, lines: [{ description: '5 × Parley Enterprise', amount: 5 * seat, quantity: 5, proration: false }] })),
    ];
    for (const [i, inv] of invoices.entries()) {
      const total = inv.lines.reduce((s, l) => s + l.amount, 0);
      const end = new Date(inv.at.getTime() + 30 * day);
      await tx.insert(schema.billingInvoices).values({
        accountId: opts.accountId,
        providerInvoiceId: `in_DemoParley${String(i + 1).padStart(4, '0')}`,
        status: 'paid',
        currency: plan.currency,
        subtotal: total,
        total,
        amountPaid: total,
        lines: inv.lines.map((l) => ({ ...l, periodStart: inv.at.toISOString(), periodEnd: end.toISOString() })),
        billedTo: address,
        issuedAt: inv.at,
        paidAt: inv.at,
      });
    }
  });
}
