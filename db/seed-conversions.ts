import { sql } from 'drizzle-orm';
import { getDb } from './client';
import { createGoal, createSaleTracker, recordSale, trackVisitorEvent } from '../app/models/conversions/conversions.server';

/**
 * The demo's conversion goals, sales trackers and sales (ADR 104, 105): three goals, two trackers, and two months of
 * sign-ups, demo bookings and orders from contacts of the demo's conversations, recorded the way the messenger's
 * `Parley.track()` records them (so they are attributed to the chats that preceded them), plus a few shop orders.
 */
export async function seedDemoConversions(opts: { accountId: number; actorId: number; now: Date }) {
  const who = { accountId: opts.accountId, actorId: opts.actorId };
  await createGoal({
    ...who,
    name: 'Signed up for a trial',
    eventName: 'signup',
    description: 'The trial form on the pricing page.',
    attributionDays: 30,
    active: true,
  });
  await createGoal({
    ...who,
    name: 'Booked a demo',
    eventName: 'demo_booked',
    description: 'The demo calendar on the sales page.',
    attributionDays: 14,
    active: true,
  });
  await createGoal({
    ...who,
    name: 'Placed an order',
    eventName: 'sale',
    description: 'Counts each customer once, on their first order.',
    attributionDays: 30,
    active: true,
  });
  // A URL goal (ADR 120): reached when a known contact views the order confirmation page.
  await createGoal({
    ...who,
    name: 'Reached the thank-you page',
    kind: 'url',
    urlOp: 'starts_with',
    urlValue: '/thank-you',
    eventName: '',
    description: 'The page the checkout ends on.',
    attributionDays: 30,
    active: true,
  });
  await createSaleTracker({ ...who, name: 'Web shop checkout', currency: 'USD', attributionDays: 30, active: true });
  await createSaleTracker({ ...who, name: 'EU store', currency: 'EUR', attributionDays: 30, active: true });
  const contacts = await getDb().execute<{ contact_id: number; created_at: string }>(sql`
    select distinct on (c.contact_id) c.contact_id, c.created_at from conversations c
    where c.account_id = ${opts.accountId} and c.contact_id is not null and c.deleted_at is null
    order by c.contact_id, c.created_at desc limit 60`);
  const prices = [19, 29, 49.5, 79, 99, 129, 249, 39.9];
  let order = 1040;
  for (const [i, c] of contacts.entries()) {
    // One to three days after the chat, never in the future.
    const at = new Date(Math.min(opts.now.getTime() - 3_600_000, new Date(c.created_at).getTime() + (1 + (i % 3)) * 86_400_000 + (i % 7) * 3_600_000));
    const contactId = Number(c.contact_id);
    if (i % 2 === 0) await trackVisitorEvent({ accountId: opts.accountId, contactId, name: 'signup', props: {}, now: at });
    if (i % 5 === 1) await trackVisitorEvent({ accountId: opts.accountId, contactId, name: 'demo_booked', props: {}, now: at });
    if (i % 3 === 0) {
      const eu = i % 4 === 0;
      await trackVisitorEvent({
        accountId: opts.accountId,
        contactId,
        name: 'sale',
        props: { amount: prices[i % prices.length], currency: eu ? 'EUR' : 'USD', orderId: `${eu ? 'EU' : 'US'}-${order++}` },
        now: new Date(at.getTime() + 600_000),
      });
    }
  }
  // Orders from the connected shop (no contact known to the chat): counted, never attributed.
  for (let d = 2; d < 60; d += 4) {
    await recordSale({
      accountId: opts.accountId,
      amountMinor: 2_900 + (d % 5) * 1_500,
      currency: 'USD',
      source: 'shopify',
      externalId: `shop-${5000 + d}`,
      occurredAt: new Date(opts.now.getTime() - d * 86_400_000),
    });
  }
}
