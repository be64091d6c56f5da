import crypto from 'node:crypto';
import { integrationsInPlan, PLAN_IGNORED } from '../plan.server';
import { getLogger } from '../../../utils/logger.server';
import {
  disconnectIntegration,
  getOpenConnection,
  getOpenConnectionById,
  saveConnection,
  updateConnectionSettings,
  type OpenConnection,
} from '../connections.server';
import { safeEqual } from '../crypto.server';
import { IntegrationError } from '../http.server';
import { recordStoreOrder, toMinorUnits } from '../sales.server';
import { noteOrderAction } from '../order-actions.server';
import {
  BC_STATUS_CANCELLED,
  BC_STATUS_REFUNDED,
  cancelBigcommerceOrder,
  createBigcommerceRefund,
  quoteBigcommerceRefund,
  deleteBigcommerceWebhook,
  findBigcommerceCustomer,
  getBigcommerceOrder,
  getBigcommerceStore,
  listBigcommerceOrders,
  registerBigcommerceWebhook,
  type BcCtx,
  type BcCustomer,
  type BcOrder,
} from './client.server';

/**
 * BigCommerce (ADR 098): connected with the store's own API account (store hash + access token), the provider's way
 * for one store. The token is checked against the API before it is saved, and sealed. Orders are read live.
 */
export const BC_HOOK_HEADER = 'x-parley-hook-secret';
export const BC_ORDER_SCOPE = 'store/order/created';

export class BigcommerceConnectError extends Error {
  constructor(message: string, readonly field: 'storeHash' | 'accessToken' | null) {
    super(message);
  }
}

const ctxOf = (conn: OpenConnection): BcCtx => ({ storeHash: conn.externalAccount, token: conn.accessToken });

/**
 * Checks the hash and token with GET /v2/store, saves the connection (token and webhook secret sealed) and registers
 * the store/order/created webhook with the secret as one of its headers. A store that cannot reach Parley (a private
 * address, no HTTPS) still connects; `webhook` says so.
 */
export async function connectBigcommerce(opts: { accountId: number; userId: number; storeHash: string; accessToken: string; webhookBase: string }) {
  const ctx = { storeHash: opts.storeHash, token: opts.accessToken };
  let store;
  try {
    store = await getBigcommerceStore(ctx);
  } catch (err) {
    if (!(err instanceof IntegrationError)) throw err;
    if (err.status === 401 || err.status === 403) throw new BigcommerceConnectError('BigCommerce refused this access token for this store', 'accessToken');
    if (err.status === 404) throw new BigcommerceConnectError('BigCommerce has no store with this hash', 'storeHash');
    throw new BigcommerceConnectError(err.message, null);
  }
  const secret = crypto.randomBytes(24).toString('base64url');
  const settings = { storeName: store.name, domain: store.domain, currency: store.currency, hookId: 0 };
  const row = await saveConnection({
    accountId: opts.accountId,
    userId: opts.userId,
    provider: 'bigcommerce',
    externalAccount: opts.storeHash,
    tokens: { accessToken: opts.accessToken, refreshToken: null, expiresAt: null, scopes: '' },
    webhookSecret: secret,
    settings,
  });
  let webhook = true;
  try {
    settings.hookId = await registerBigcommerceWebhook({
      ...ctx,
      scope: BC_ORDER_SCOPE,
      destination: `${opts.webhookBase}/webhooks/integrations/bigcommerce/${row.id}`,
      headers: { [BC_HOOK_HEADER]: secret },
    });
    await updateConnectionSettings({ accountId: opts.accountId, provider: 'bigcommerce', settings });
  } catch (err) {
    webhook = false;
    getLogger().warn({ provider: 'bigcommerce', accountId: opts.accountId, err: (err as Error).message }, 'bigcommerce webhook registration failed');
  }
  return { id: row.id, store, webhook };
}

/** Deletes the connection (and its sealed token) and the webhook Parley registered; the API account stays the merchant's to delete. */
export async function disconnectBigcommerce(opts: { accountId: number; userId: number }) {
  return disconnectIntegration({
    ...opts,
    provider: 'bigcommerce',
    adapter: {
      revoke: async (conn) => {
        const hookId = Number(conn.settings.hookId ?? 0);
        if (hookId) await deleteBigcommerceWebhook({ ...ctxOf(conn), id: hookId });
      },
    },
  });
}

export type BigcommercePanel =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string }
  | { state: 'ok'; store: string; customer: BcCustomer | null; orders: (BcOrder & { canRefund: boolean })[] };

/** The side panel: the contact's BigCommerce customer (by email) and their five latest orders, read live. */
export async function bigcommercePanelFor(opts: { accountId: number; email: string | null }): Promise<BigcommercePanel> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'bigcommerce' }).catch((err) => (err instanceof Error ? err : null));
  if (!conn) return { state: 'not-connected' };
  if (conn instanceof Error) return { state: 'error', message: conn.message };
  if (!opts.email) return { state: 'no-email' };
  const store = String(conn.settings.storeName || conn.externalAccount);
  try {
    const customer = await findBigcommerceCustomer({ ...ctxOf(conn), email: opts.email });
    const orders = customer ? await listBigcommerceOrders({ ...ctxOf(conn), customerId: customer.id }) : [];
    return { state: 'ok', store, customer, orders: orders.map((o) => ({ ...o, canRefund: canRefundBigcommerceOrder(o) })) };
  } catch (err) {
    if (err instanceof IntegrationError) return { state: 'error', message: err.message };
    throw err;
  }
}

/** The order the confirmation page shows: only an order of this contact's customer record. */
export async function getContactBigcommerceOrder(opts: { accountId: number; email: string | null; orderId: number }) {
  const panel = await bigcommercePanelFor(opts);
  if (panel.state !== 'ok') return null;
  return panel.orders.find((o) => o.id === opts.orderId) ?? null;
}

type OrderActionOpts = { accountId: number; userId: number; userName: string; conversationId: number; email: string | null; orderId: number };

/** The contact's order and the open connection, or the reason there is none. */
async function contactOrder(opts: OrderActionOpts) {
  const order = await getContactBigcommerceOrder(opts);
  if (!order) throw new IntegrationError("This order is not one of the contact's BigCommerce orders", 404);
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'bigcommerce' });
  if (!conn) throw new IntegrationError('BigCommerce is not connected', 0);
  return { order, ctx: ctxOf(conn) };
}

/** Cancels an order of the conversation's contact; a note and `integration_order_action` in one transaction. */
export async function cancelContactBigcommerceOrder(opts: OrderActionOpts) {
  const { order, ctx } = await contactOrder(opts);
  if (order.statusId === BC_STATUS_CANCELLED) throw new IntegrationError(`Order #${order.id} is already cancelled`, 422);
  const after = await cancelBigcommerceOrder({ ...ctx, orderId: order.id });
  const text = `Cancelled BigCommerce order #${order.id} (${order.total} ${order.currency}) by ${opts.userName} · now ${after.status || 'Cancelled'}`;
  await noteOrderAction({ ...opts, text, provider: 'bigcommerce', action: 'cancel', orderId: order.id, orderName: `#${order.id}` });
  return { order, text };
}

/** What is left to refund on an order (total less what was refunded), in the currency's major unit; 0 when nothing. */
export function refundableAmount(order: Pick<BcOrder, 'total' | 'refunded' | 'currency'>) {
  const currency = order.currency.toUpperCase();
  const total = toMinorUnits(order.total, currency);
  const refunded = toMinorUnits(order.refunded || '0', currency) ?? 0;
  if (total === null) return 0;
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return Math.max(0, total - refunded) / 10 ** digits;
}

export const canRefundBigcommerceOrder = (order: BcOrder) => order.statusId !== BC_STATUS_CANCELLED && order.statusId !== BC_STATUS_REFUNDED && refundableAmount(order) > 0;

/**
 * The confirmation page of a refund: the contact's order and BigCommerce's refund quote for what is left of it
 * (POST refund_quotes, which changes nothing), with the refund methods the store offers.
 */
export async function quoteContactBigcommerceRefund(opts: Omit<OrderActionOpts, 'userId' | 'userName' | 'conversationId'>) {
  const order = await getContactBigcommerceOrder(opts);
  if (!order) return null;
  if (!canRefundBigcommerceOrder(order)) throw new IntegrationError(`Order #${order.id} has nothing left to refund`, 422);
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'bigcommerce' });
  if (!conn) throw new IntegrationError('BigCommerce is not connected', 0);
  const amount = refundableAmount(order);
  const quote = await quoteBigcommerceRefund({ ...ctxOf(conn), orderId: order.id, amount });
  if (quote.methods.length === 0) throw new IntegrationError('BigCommerce offers no refund method for this order', 422);
  return { order, amount, quote };
}

/**
 * Refunds what is left of an order of the conversation's contact with the refund method chosen on the confirmation
 * page (its index in a quote made again now, so the amounts are BigCommerce's, not the form's); a note and
 * `integration_order_action` in one transaction.
 */
export async function refundContactBigcommerceOrder(opts: OrderActionOpts & { method: number }) {
  const quoted = await quoteContactBigcommerceRefund(opts);
  if (!quoted) throw new IntegrationError("This order is not one of the contact's BigCommerce orders", 404);
  const { order, amount, quote } = quoted;
  const method = quote.methods[opts.method];
  if (!method) throw new IntegrationError('Choose one of the refund methods BigCommerce offers', 400);
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'bigcommerce' });
  if (!conn) throw new IntegrationError('BigCommerce is not connected', 0);
  await createBigcommerceRefund({ ...ctxOf(conn), orderId: order.id, amount, payments: method, reason: `Refunded from Parley conversation #${opts.conversationId}` });
  const how = method.map((p) => p.description).join(' + ');
  const text = `Refunded BigCommerce order #${order.id} (${amount.toFixed(2)} ${order.currency} via ${how}) by ${opts.userName}`;
  await noteOrderAction({ ...opts, text, provider: 'bigcommerce', action: 'refund', orderId: order.id, orderName: `#${order.id}` });
  return { order, text };
}

/**
 * POST /webhooks/integrations/bigcommerce/{connectionId}: BigCommerce sends back the secret header Parley registered
 * the hook with (compared in constant time), for the store the connection is to (`producer`). store/order/created
 * reads the order (the payload carries only its id) and records the sale once.
 */
export async function handleBigcommerceWebhook(opts: { connectionId: number; rawBody: string; headers: Headers }): Promise<{ status: number; text: string }> {
  const conn = await getOpenConnectionById({ id: opts.connectionId, provider: 'bigcommerce' }).catch(() => null);
  const given = opts.headers.get(BC_HOOK_HEADER) ?? '';
  if (!conn || !conn.webhookSecret || !safeEqual(given, conn.webhookSecret)) return { status: 401, text: 'The webhook secret does not match' };
  let body: { scope?: unknown; producer?: unknown; data?: { type?: unknown; id?: unknown } };
  try {
    body = JSON.parse(opts.rawBody) as typeof body;
  } catch {
    return { status: 400, text: 'The body is not JSON' };
  }
  if (body.producer !== `stores/${conn.externalAccount}`) return { status: 401, text: 'The webhook is for another store' };
  if (!(await integrationsInPlan(conn.accountId))) return PLAN_IGNORED;
  if (body.scope !== BC_ORDER_SCOPE) return { status: 200, text: 'nothing to do' };
  const orderId = Number(body.data?.id);
  if (!Number.isSafeInteger(orderId) || orderId <= 0) return { status: 400, text: 'The webhook names no order' };
  const order = await getBigcommerceOrder({ ...ctxOf(conn), orderId });
  if (!order) return { status: 200, text: 'order not found' };
  const out = await recordStoreOrder({
    accountIds: [conn.accountId],
    source: 'bigcommerce',
    externalId: String(order.id),
    amount: order.total,
    currency: order.currency,
    email: order.email || null,
  });
  return { status: 200, text: out.invalid ? 'order without an amount' : `${out.recorded} sale(s) recorded` };
}
