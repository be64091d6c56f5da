import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { claimableRun, enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { freshAccessToken, getOpenConnection } from './connections.server';
import { IntegrationError } from './http.server';
import { contactIdByEmail, recordSale, toMinorUnits } from './sales.server';
import { listBigcommerceOrdersPage } from './bigcommerce/client.server';
import { listShopifyOrdersPage, type StoreOrder } from './shopify/client.server';
import { shopifyAdapter } from './shopify/shopify.server';

/**
 * Importing a store's past orders as sales (ADR 118): a job pages through Shopify's or BigCommerce's orders API and
 * records each order through the one sales path, which keeps one sale per (account, source, order id): running the
 * import again, or the order's webhook arriving as well, never counts an order twice. The page shows the progress
 * and the result, or the store's answer when it failed.
 */
const imp = schema.integrationOrderImports;
export type OrderImport = typeof imp.$inferSelect;
export type StoreProvider = 'shopify' | 'bigcommerce';
const LABEL = { shopify: 'Shopify', bigcommerce: 'BigCommerce' } as const;

export class OrderImportError extends Error {}

/** Queues an import of the connected store's orders (one at a time per account and store). */
export async function startOrderImport(opts: { accountId: number; userId: number; provider: StoreProvider; since: Date | null }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: opts.provider });
  if (!conn) throw new OrderImportError(`${LABEL[opts.provider]} is not connected`);
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('integration_order_imports'), ${opts.accountId})`);
    const [running] = await tx
      .select({ id: imp.id })
      .from(imp)
      .where(and(eq(imp.accountId, opts.accountId), eq(imp.provider, opts.provider), inArray(imp.status, ['queued', 'running'])))
      .limit(1);
    if (running) throw new OrderImportError('An import of past orders is already under way; wait for it to finish.');
    const [row] = await tx
      .insert(imp)
      .values({ accountId: opts.accountId, provider: opts.provider, externalAccount: conn.externalAccount, since: opts.since, createdBy: opts.userId })
      .returning({ id: imp.id });
    await enqueueInTx(tx, QUEUES.integrationsOrderImport, { accountId: opts.accountId, importId: row.id });
    return row.id;
  });
}

export async function latestOrderImport(opts: { accountId: number; provider: StoreProvider }) {
  const [row] = await getDb()
    .select()
    .from(imp)
    .where(and(eq(imp.accountId, opts.accountId), eq(imp.provider, opts.provider)))
    .orderBy(desc(imp.id))
    .limit(1);
  return row ?? null;
}

async function setImport(opts: { accountId: number; importId: number }, patch: Partial<typeof imp.$inferInsert>) {
  await getDb()
    .update(imp)
    .set(patch)
    .where(and(eq(imp.accountId, opts.accountId), eq(imp.id, opts.importId)));
}

/** Records one page of orders in one transaction; what each order became. */
async function recordPage(opts: { accountId: number; provider: StoreProvider; orders: StoreOrder[] }) {
  const out = { recorded: 0, existing: 0, skipped: 0 };
  await getDb().transaction(async (tx) => {
    for (const o of opts.orders) {
      const currency = o.currency.toUpperCase();
      const amountMinor = o.isSale && o.id ? toMinorUnits(o.amount, currency) : null;
      if (amountMinor === null) {
        out.skipped++;
        continue;
      }
      const contactId = await contactIdByEmail(tx, { accountId: opts.accountId, email: o.email });
      const fresh = await recordSale(tx, { accountId: opts.accountId, source: opts.provider, externalId: o.id, amountMinor, currency, contactId, occurredAt: o.createdAt ?? undefined });
      if (fresh) out.recorded++;
      else out.existing++;
    }
  });
  return out;
}

/**
 * The job: claims the import (a run whose engine died is claimed again after an hour, and starts over: what it
 * recorded is not recorded twice), reads page after page and keeps the counts up to date for the page. Ends done or
 * failed with the store's answer; it does not throw for the store's faults, so the queue does not retry them.
 */
export async function runOrderImport(opts: { accountId: number; importId: number }) {
  const [row] = await getDb()
    .update(imp)
    .set({ status: 'running', pages: 0, seen: 0, recorded: 0, existing: 0, skipped: 0, message: null })
    .where(
      and(
        eq(imp.accountId, opts.accountId),
        eq(imp.id, opts.importId),
        claimableRun(imp),
      ),
    )
    .returning();
  if (!row) return;
  const provider = row.provider as StoreProvider;
  const totals = { pages: 0, seen: 0, recorded: 0, existing: 0, skipped: 0 };
  try {
    const conn = await getOpenConnection({ accountId: row.accountId, provider });
    if (!conn || conn.externalAccount !== row.externalAccount) throw new IntegrationError(`${LABEL[provider]} ${row.externalAccount} is no longer connected`, 0);
    let shopifyCursor: string | null = null;
    let bcPage: number | null = 1;
    for (;;) {
      let page: { orders: StoreOrder[]; more: boolean };
      if (provider === 'shopify') {
        const token = await freshAccessToken(conn, shopifyAdapter(conn.externalAccount));
        const res = await listShopifyOrdersPage({ shop: conn.externalAccount, token, since: row.since, pageInfo: shopifyCursor });
        shopifyCursor = res.next;
        page = { orders: res.orders, more: res.next !== null };
      } else {
        const res = await listBigcommerceOrdersPage({ storeHash: conn.externalAccount, token: conn.accessToken, page: bcPage ?? 1, since: row.since });
        bcPage = res.next;
        page = { orders: res.orders, more: res.next !== null };
      }
      const done = await recordPage({ accountId: row.accountId, provider, orders: page.orders });
      totals.pages++;
      totals.seen += page.orders.length;
      totals.recorded += done.recorded;
      totals.existing += done.existing;
      totals.skipped += done.skipped;
      await setImport(opts, totals);
      if (!page.more || page.orders.length === 0) break;
    }
    await setImport(opts, { ...totals, status: 'done', finishedAt: new Date() });
  } catch (err) {
    const message =
      err instanceof IntegrationError
        ? err.message
        : (getLogger().warn({ provider, accountId: row.accountId, err: (err as Error).message }, 'order import failed'), `The import stopped on an error in Parley after ${totals.pages} page(s); run it again.`);
    await setImport(opts, { ...totals, status: 'failed', message, finishedAt: new Date() });
  }
}
