import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { getOpenConnection } from '../../app/models/integrations/connections.server';
import { recordSale, toMinorUnits } from '../../app/models/integrations/sales.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';
import { integrationAccount, startCommerceStandIns } from '../helpers/integrations';

let app: Awaited<ReturnType<typeof startTestApp>>;
let bc: Awaited<ReturnType<typeof startCommerceStandIns>>['bc'];
let shopify: Awaited<ReturnType<typeof startCommerceStandIns>>['shopify'];
let standIns: Awaited<ReturnType<typeof startCommerceStandIns>> | undefined;

beforeAll(async () => {
  standIns = await startCommerceStandIns({ clientId: 'shop-client', clientSecret: 'shpss_sales_secret', shop: 'sales-test.myshopify.com' });
  ({ bc, shopify } = standIns);
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await standIns?.close();
});

const setup = () => integrationAccount(app, { subject: 'Cancel my order', contact: { name: 'Bea Buyer' }, message: 'Please cancel it' });

const toApp = (destination: string) => destination.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${app.port}`);

async function sales(accountId: number) {
  const e = schema.domainEvents;
  return getDb()
    .select()
    .from(e)
    .where(and(eq(e.accountId, accountId), eq(e.type, 'sale_recorded')));
}

describe('sales', () => {
  it('converts amounts to minor units by the currency’s digits', () => {
    expect(toMinorUnits('49.90', 'EUR')).toBe(4990);
    expect(toMinorUnits('49.9000', 'USD')).toBe(4990);
    expect(toMinorUnits('12.3456', 'USD')).toBe(1235);
    expect(toMinorUnits('1200', 'JPY')).toBe(1200);
    expect(toMinorUnits('1.234', 'BHD')).toBe(1234);
    expect(toMinorUnits('abc', 'EUR')).toBeNull();
    expect(toMinorUnits('1.00', 'euro')).toBeNull();
  });

  it('records a sale once per account, source and external id, even when written at once', async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const write = (accountId: number) =>
      getDb().transaction((tx) => recordSale(tx, { accountId, source: 'api', externalId: 'o-1', amountMinor: 100, currency: 'EUR' }));
    const results = await Promise.all([write(a.account.id), write(a.account.id), write(a.account.id), write(b.account.id)]);
    expect(results.filter(Boolean)).toHaveLength(2);
    expect(await sales(a.account.id)).toHaveLength(1);
    expect(await sales(b.account.id)).toHaveLength(1);
  });
});

describe('BigCommerce', () => {
  it('checks the store hash and token before saving, with field errors and the token not shown back', async () => {
    const s = await setup();
    expect(
      (await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: bc.storeHash, accessToken: bc.token }, s.agentCookie)).status,
    ).toBe(403);
    const empty = await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: '', accessToken: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Store hash is required');
    const wrongToken = await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: bc.storeHash, accessToken: 'not-the-token' });
    expect(wrongToken.status).toBe(400);
    expect(wrongToken.text).toContain('BigCommerce refused this access token for this store');
    expect(wrongToken.text).not.toContain('not-the-token');
    expect(wrongToken.text).toContain(`value="${bc.storeHash}"`);
    const wrongStore = await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: 'zzz999', accessToken: bc.token });
    expect(wrongStore.status).toBe(400);
    expect(wrongStore.text).toContain('BigCommerce has no store with this hash');
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'bigcommerce' })).toBeNull();
  });

  it('connects, shows the contact’s orders, cancels with a confirmation, records new orders as sales once', async () => {
    const s = await setup();
    const customerId = bc.addCustomer({ email: s.email, firstName: 'Bea', lastName: 'Buyer' });
    const first = bc.addOrder({ customerId, total: '32.5000' });
    const res = await s.post('/settings/integrations/bigcommerce', {
      intent: 'connect',
      storeHash: `https://api.bigcommerce.com/stores/${bc.storeHash}/v3/`,
      accessToken: bc.token,
    });
    expect(res.status).toBe(302);
    const [row] = await getDb()
      .select()
      .from(schema.integrationConnections)
      .where(and(eq(schema.integrationConnections.accountId, s.account.id), eq(schema.integrationConnections.provider, 'bigcommerce')));
    expect(row.externalAccount).toBe(bc.storeHash);
    expect(row.accessTokenSealed).not.toContain(bc.token);
    const hook = bc.hooks.find((h) => h.destination.endsWith(`/webhooks/integrations/bigcommerce/${row.id}`))!;
    expect(hook.scope).toBe('store/order/created');
    expect(Object.values(hook.headers)[0]).toMatch(/^[\w-]{20,}$/);

    for (const path of ['/settings/integrations', '/settings/integrations/bigcommerce', `/inbox/${s.conversation.id}`]) {
      const p = await s.get(path);
      expect(p.status).toBe(200);
      expect(p.text).not.toContain(bc.token);
      expect(p.text).not.toContain(Object.values(hook.headers)[0]);
    }
    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain('data-testid="bigcommerce-panel"');
    expect(page.text).toContain(`#${first}`);
    expect(page.text).toContain('32.50 USD');
    expect(page.text).toContain('Awaiting Fulfillment');
    expect((await s.get(`/customers/${s.conversation.contactId}`)).text).toContain(`#${first}`);
    // The agent's default role has no view_incoming_data: no panel, and no action.
    expect((await s.get(`/inbox/${s.conversation.id}`, s.agentCookie)).text).not.toContain('bigcommerce-panel');
    expect(
      (
        await s.post(
          `/inbox/${s.conversation.id}/integrations`,
          { intent: 'bigcommerce-order-action', orderId: String(first), action: 'cancel' },
          s.agentCookie,
        )
      ).status,
    ).toBe(403);

    const confirm = await s.get(`/inbox/${s.conversation.id}/integrations?bcorder=${first}&do=cancel`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Cancel order #${first}`);
    expect(bc.orders.find((o) => o.id === first)!.status_id).toBe(11);
    const done = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(first), action: 'cancel' });
    expect(done.status).toBe(302);
    expect(bc.orders.find((o) => o.id === first)!.status).toBe('Cancelled');
    const notes = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'system')));
    expect(notes.map((n) => n.text).join('\n')).toContain(`Cancelled BigCommerce order #${first} (32.5000 USD)`);
    // Another customer's order is not reachable from this conversation.
    const stranger = bc.addOrder({ customerId: bc.addCustomer({ email: 'x@example.test', firstName: 'X', lastName: 'Y' }), total: '5.00' });
    expect((await s.get(`/inbox/${s.conversation.id}/integrations?bcorder=${stranger}&do=cancel`)).status).toBe(404);
    expect(bc.orders.find((o) => o.id === stranger)!.status_id).toBe(11);

    // store/order/created: a forged secret is refused, the real callback records the sale once.
    const placed = bc.addOrder({ customerId, total: '19.9900', currency: 'EUR' });
    expect(await bc.fire('store/order/created', placed, { 'x-parley-hook-secret': 'forged' }, toApp)).toEqual([401]);
    expect(await bc.fire('store/order/created', placed, {}, toApp)).toEqual([401]);
    expect(await sales(s.account.id)).toHaveLength(0);
    expect(await bc.fire('store/order/created', placed, undefined, toApp)).toEqual([200]);
    expect(await bc.fire('store/order/created', placed, undefined, toApp)).toEqual([200]);
    const recorded = await sales(s.account.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].payload).toEqual({
      amountMinor: 1999,
      currency: 'EUR',
      source: 'bigcommerce',
      externalId: String(placed),
      contactId: s.conversation.contactId,
      saleTrackerId: null,
      // The contact's conversation has no agent reply yet, so the sale is not attributed to it (ADR 104).
      conversationId: null,
    });

    // Disconnect: the token and the webhook go.
    const out = await s.post('/settings/integrations/bigcommerce', { intent: 'disconnect' });
    expect(out.status).toBe(302);
    expect(bc.hooks.some((h) => h.destination.endsWith(`/bigcommerce/${row.id}`))).toBe(false);
    expect(await getOpenConnection({ accountId: s.account.id, provider: 'bigcommerce' })).toBeNull();
  });
});

describe('BigCommerce refunds', () => {
  it('quotes a refund, refunds with the chosen method behind a confirmation, and refuses what cannot be refunded', async () => {
    const s = await setup();
    const customerId = bc.addCustomer({ email: s.email, firstName: 'Bea', lastName: 'Buyer' });
    const order = bc.addOrder({ customerId, total: '40.0000' });
    expect((await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: bc.storeHash, accessToken: bc.token })).status).toBe(302);
    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain(`?bcorder=${order}&amp;do=refund`);
    // Without perform_data_specific_action: no confirmation and no refund.
    expect((await s.get(`/inbox/${s.conversation.id}/integrations?bcorder=${order}&do=refund`, s.agentCookie)).status).toBe(403);
    expect(
      (await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(order), action: 'refund', method: '0' }, s.agentCookie)).status,
    ).toBe(403);
    const confirm = await s.get(`/inbox/${s.conversation.id}/integrations?bcorder=${order}&do=refund`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Refund order #${order}`);
    expect(confirm.text).toContain('40.00 USD');
    expect(confirm.text).toContain('Store Credit: 40.00 USD');
    expect(bc.refunds).toHaveLength(0);
    // A method the quote does not have is refused, nothing refunded.
    const wrong = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(order), action: 'refund', method: '7' });
    expect(wrong.status).toBe(302);
    expect(bc.refunds).toHaveLength(0);
    // A declined refund is said, not noted.
    bc.control.declineNextRefund = true;
    const declined = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(order), action: 'refund', method: '1' });
    expect(declined.status).toBe(302);
    expect(bc.orders.find((o) => o.id === order)!.refunded_amount).toBe('0.0000');
    const done = await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(order), action: 'refund', method: '1' });
    expect(done.status).toBe(302);
    expect(bc.refunds).toHaveLength(1);
    expect(bc.refunds[0]).toMatchObject({ order_id: order, total_amount: 40, payments: [{ provider_id: 'storecredit', amount: 40, offline: false }] });
    expect(bc.orders.find((o) => o.id === order)!.status).toBe('Refunded');
    const notes = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, s.account.id), eq(schema.messages.conversationId, s.conversation.id), eq(schema.messages.kind, 'system')));
    expect(notes.map((n) => n.text).join('\n')).toContain(`Refunded BigCommerce order #${order} (40.00 USD via Store Credit)`);
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'integration_order_action')));
    expect(events.map((e) => e.payload)).toEqual([{ provider: 'bigcommerce', action: 'refund', orderId: order, orderName: `#${order}` }]);
    // Refunded: no link, and a second refund is refused before BigCommerce is asked.
    expect((await s.get(`/inbox/${s.conversation.id}`)).text).not.toContain(`?bcorder=${order}&amp;do=refund`);
    expect((await s.get(`/inbox/${s.conversation.id}/integrations?bcorder=${order}&do=refund`)).status).toBe(422);
    await s.post(`/inbox/${s.conversation.id}/integrations`, { intent: 'bigcommerce-order-action', orderId: String(order), action: 'refund', method: '0' });
    expect(bc.refunds).toHaveLength(1);
    await s.post('/settings/integrations/bigcommerce', { intent: 'disconnect' });
  });
});

describe('Shopify orders', () => {
  it('records orders/create as a sale once, HMAC-verified, for each account connected to the shop', async () => {
    const s = await setup();
    const start = await s.post('/settings/integrations/shopify', { intent: 'connect', shop: 'sales-test' });
    const consent = await fetch(start.headers.location!, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect((await s.get(`${back.pathname}${back.search}`)).status).toBe(302);
    const w = shopify.webhooks.find((x) => x.topic === 'orders/create')!;
    expect(w.address).toMatch(/\/webhooks\/integrations\/shopify$/);
    const address = toApp(w.address);
    const order = { id: 820982911946154500, email: s.email.toUpperCase(), total_price: '199.00', currency: 'EUR', customer: { id: 1, email: s.email } };
    expect(await shopify.deliver(address, 'orders/create', order, 'forged')).toBe(401);
    expect(await sales(s.account.id)).toHaveLength(0);
    expect(await shopify.deliver(address, 'orders/create', order)).toBe(200);
    expect(await shopify.deliver(address, 'orders/create', order)).toBe(200);
    const recorded = await sales(s.account.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].payload).toMatchObject({
      amountMinor: 19900,
      currency: 'EUR',
      source: 'shopify',
      externalId: '820982911946154500',
      contactId: s.conversation.contactId,
    });
  });
});
