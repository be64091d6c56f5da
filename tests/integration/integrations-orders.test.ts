import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { saveConnection } from '../../app/models/integrations/connections.server';
import { runOrderImport } from '../../app/models/integrations/order-import.server';
import { ensureStoreWebhooks } from '../../app/models/integrations/shopify/webhook-check.server';
import { getBoss, QUEUES, startBoss } from '../../app/utils/jobs.server';
import { startTestApp } from '../helpers/http';
import { integrationSession, startCommerceStandIns } from '../helpers/integrations';

/** Issue 20 (ADR 118): past orders imported as sales, and the orders webhook for connections made before it existed. */
let app: Awaited<ReturnType<typeof startTestApp>>;
let bc: Awaited<ReturnType<typeof startCommerceStandIns>>['bc'];
let shopify: Awaited<ReturnType<typeof startCommerceStandIns>>['shopify'];
let standIns: Awaited<ReturnType<typeof startCommerceStandIns>> | undefined;

beforeAll(async () => {
  standIns = await startCommerceStandIns({ clientId: 'orders-client', clientSecret: 'shpss_orders_secret', shop: 'orders-test.myshopify.com' });
  ({ bc, shopify } = standIns);
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await standIns?.close();
});

const setup = () => integrationSession(app);

const sales = (accountId: number, source: 'shopify' | 'bigcommerce') =>
  getDb()
    .select()
    .from(schema.sales)
    .where(and(eq(schema.sales.accountId, accountId), eq(schema.sales.source, source)));

async function latestImport(accountId: number) {
  const rows = await getDb().select().from(schema.integrationOrderImports).where(eq(schema.integrationOrderImports.accountId, accountId));
  return rows.sort((x, y) => y.id - x.id)[0];
}

const toApp = (address: string) => address.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${app.port}`);

describe('importing past Shopify orders', () => {
  it('pages through every order (Link header cursor), records each sale once, counts a webhook’s order as already there, and states a failure', async () => {
    const s = await setup();
    const start = await s.post('/settings/integrations/shopify', { intent: 'connect', shop: 'orders-test' });
    const back = new URL((await fetch(start.headers.location!, { redirect: 'manual' })).headers.get('location')!);
    expect((await s.get(`${back.pathname}${back.search}`)).status).toBe(302);
    const customer = shopify.addCustomer({ email: `pat@${s.domain}.test`, firstName: 'Pat', lastName: 'Past' });
    const ids: number[] = [];
    for (let i = 0; i < 260; i++) ids.push(shopify.addOrder({ customerId: customer, name: `#${1000 + i}`, total: `${10 + i}.50`, createdAt: `2025-0${1 + (i % 9)}-15T10:00:00Z`, cancelled: i === 7 }));
    // One order came by its webhook before the import.
    const hook = shopify.webhooks.find((w) => w.topic === 'orders/create')!;
    expect(await shopify.deliver(toApp(hook.address), 'orders/create', { id: ids[3], email: `pat@${s.domain}.test`, total_price: '13.50', currency: 'EUR' })).toBe(200);

    expect((await s.post('/settings/integrations/shopify', { intent: 'import-orders' }, s.agentCookie)).status).toBe(403);
    const bad = await s.post('/settings/integrations/shopify', { intent: 'import-orders', since: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Orders since must be a date');
    expect((await s.post('/settings/integrations/shopify', { intent: 'import-orders' })).status).toBe(302);
    const again = await s.post('/settings/integrations/shopify', { intent: 'import-orders' });
    expect(again.status).toBe(400);
    expect(again.text).toContain('An import of past orders is already under way');
    const queued = await latestImport(s.account.id);
    expect(queued.status).toBe('queued');
    expect((await s.get('/settings/integrations/shopify')).text).toContain('Reload this page to see its progress');

    await runOrderImport({ accountId: s.account.id, importId: queued.id });
    const done = await latestImport(s.account.id);
    expect(done).toMatchObject({ status: 'done', pages: 2, seen: 260, recorded: 258, existing: 1, skipped: 1 });
    const recorded = await sales(s.account.id, 'shopify');
    expect(recorded).toHaveLength(259);
    const first = recorded.find((r) => r.externalId === String(ids[0]))!;
    expect(first).toMatchObject({ amountMinor: 1050, currency: 'EUR' });
    expect(first.occurredAt.toISOString()).toBe('2025-01-15T10:00:00.000Z');
    expect(recorded.some((r) => r.externalId === String(ids[7]))).toBe(false);
    const page = await s.get('/settings/integrations/shopify');
    expect(page.text).toContain('260 orders read in 2 pages, 258 sales recorded, 1 already counted, 1 not sales');

    // Running it again records nothing twice; only orders since a day are read when asked.
    await s.post('/settings/integrations/shopify', { intent: 'import-orders', since: '2025-09-01' });
    await runOrderImport({ accountId: s.account.id, importId: (await latestImport(s.account.id)).id });
    expect(await latestImport(s.account.id)).toMatchObject({ status: 'done', seen: 28, recorded: 0, existing: 28 });
    expect(await sales(s.account.id, 'shopify')).toHaveLength(259);

    // Shopify failing on the second page: the import says so, and what it recorded stays counted once.
    shopify.failOrdersPageAt(2);
    await s.post('/settings/integrations/shopify', { intent: 'import-orders' });
    await runOrderImport({ accountId: s.account.id, importId: (await latestImport(s.account.id)).id });
    shopify.failOrdersPageAt(null);
    expect(await latestImport(s.account.id)).toMatchObject({ status: 'failed', pages: 1, seen: 250, message: 'Shopify answered: Service Unavailable' });
    expect((await s.get('/settings/integrations/shopify')).text).toContain('Failed: Shopify answered: Service Unavailable');
    expect(await sales(s.account.id, 'shopify')).toHaveLength(259);
  });
});

describe('importing past BigCommerce orders', () => {
  it('pages through v2 orders, skips cancelled and declined ones, and never counts an order twice', async () => {
    const s = await setup();
    expect((await s.post('/settings/integrations/bigcommerce', { intent: 'connect', storeHash: bc.storeHash, accessToken: bc.token })).status).toBe(302);
    const customer = bc.addCustomer({ email: `bo@${s.domain}.test`, firstName: 'Bo', lastName: 'Buyer' });
    for (let i = 0; i < 255; i++) bc.addOrder({ customerId: customer, total: `${i + 1}.2500`, statusId: i === 0 ? 5 : i === 1 ? 6 : 10, createdAt: i < 5 ? 'Tue, 01 Jul 2025 09:00:00 +0000' : 'Sun, 01 Jun 2025 12:00:00 +0000' });
    const placed = bc.orders.find((o) => o.total_inc_tax === '3.2500')!;
    expect(await bc.fire('store/order/created', placed.id, undefined, toApp)).toEqual([200]);

    expect((await s.post('/settings/integrations/bigcommerce', { intent: 'import-orders' })).status).toBe(302);
    await runOrderImport({ accountId: s.account.id, importId: (await latestImport(s.account.id)).id });
    expect(await latestImport(s.account.id)).toMatchObject({ status: 'done', pages: 2, seen: 255, recorded: 252, existing: 1, skipped: 2 });
    const recorded = await sales(s.account.id, 'bigcommerce');
    expect(recorded).toHaveLength(253);
    expect(recorded.find((r) => r.externalId === String(placed.id))).toMatchObject({ amountMinor: 325, currency: 'USD' });

    await s.post('/settings/integrations/bigcommerce', { intent: 'import-orders', since: '2025-07-01' });
    await runOrderImport({ accountId: s.account.id, importId: (await latestImport(s.account.id)).id });
    expect(await latestImport(s.account.id)).toMatchObject({ status: 'done', pages: 1, seen: 5, recorded: 0, existing: 3, skipped: 2 });
    expect(await sales(s.account.id, 'bigcommerce')).toHaveLength(253);
    expect((await s.get('/settings/integrations/bigcommerce')).text).toContain('5 orders read in 1 page, 0 sales recorded, 3 already counted, 2 not sales');
  });
});

describe('the orders webhook for existing Shopify connections', () => {
  it('registers the topics an old connection is missing, to the address its other webhook uses, on a schedule', async () => {
    const s = await setup();
    // A connection made before orders/create was registered at connect: only app/uninstalled at Shopify.
    shopify.webhooks.length = 0;
    shopify.grant('shpat_old_connection');
    await saveConnection({ accountId: s.account.id, userId: s.owner.id, provider: 'shopify', externalAccount: shopify.shop, tokens: { accessToken: 'shpat_old_connection', refreshToken: null, expiresAt: null } });
    const address = `http://old.parley.test/webhooks/integrations/shopify`;
    shopify.webhooks.push({ id: 1, topic: 'app/uninstalled', address });

    expect(await ensureStoreWebhooks({ accountId: s.account.id })).toEqual({ connections: 1, registered: 1 });
    expect(shopify.webhooks.filter((w) => w.topic === 'orders/create')).toEqual([expect.objectContaining({ address })]);
    expect(await ensureStoreWebhooks({ accountId: s.account.id })).toEqual({ connections: 1, registered: 0 });
    expect((await s.get('/settings/integrations/shopify')).text).toContain('app/uninstalled and orders/create are registered');
    // The new webhook counts the order.
    expect(await shopify.deliver(toApp(address), 'orders/create', { id: 555001, email: 'x@example.test', total_price: '5.00', currency: 'EUR' })).toBe(200);
    expect(await sales(s.account.id, 'shopify')).toHaveLength(1);

    // "Check webhooks now" does the same from the page; a token Shopify refuses is stated.
    shopify.webhooks.splice(shopify.webhooks.findIndex((w) => w.topic === 'orders/create'), 1);
    expect((await s.post('/settings/integrations/shopify', { intent: 'check-webhooks' })).status).toBe(302);
    expect(shopify.webhooks.some((w) => w.topic === 'orders/create')).toBe(true);
    shopify.tokens.delete('shpat_old_connection');
    await ensureStoreWebhooks({ accountId: s.account.id });
    expect((await s.get('/settings/integrations/shopify')).text).toContain('Shopify answered: [API] Invalid API key or access token');

    // The check is scheduled every hour.
    await startBoss();
    expect((await getBoss().getSchedules()).map((x) => x.name)).toContain(QUEUES.integrationsWebhookCheck);
  });
});
