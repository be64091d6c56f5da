import { getLogger } from '../../../utils/logger.server';
import { accountsWithIntegrations } from '../plan.server';
import {
  disconnectIntegration,
  freshAccessToken,
  getOpenConnection,
  listConnectionAccountsByExternal,
  saveConnection,
  signIntegrationState,
  verifyIntegrationState,
  type OAuthAdapter,
  type OpenConnection,
} from '../connections.server';
import { IntegrationError } from '../http.server';
import { recordStoreOrder } from '../sales.server';
import { noteOrderAction } from '../order-actions.server';
import { parseJsonObject } from '../../../utils/json';
import {
  cancelShopifyOrder,
  exchangeShopifyCode,
  findShopifyCustomer,
  getShopifyOrder,
  listShopifyOrders,
  refundShopifyOrder,
  refreshShopifyToken,
  registerShopifyWebhook,
  revokeShopifyToken,
  shopifyAuthorizeUrl,
  verifyShopifyCallback,
  verifyShopifyWebhook,
  type ShopifyCustomer,
  type ShopifyOrder,
} from './client.server';

/** The webhooks every Shopify connection needs (ADR 079, 098). */
export const SHOPIFY_WEBHOOK_TOPICS = ['app/uninstalled', 'orders/create'] as const;

export function shopifyAdapter(shop: string): OAuthAdapter {
  return {
    refresh: (refreshToken) => refreshShopifyToken({ shop, refreshToken }),
    revoke: (conn) => revokeShopifyToken({ shop, token: conn.accessToken }),
  };
}

/** Where the agent approves the app: the shop's own admin, with a state naming the shop. */
export function startShopifyConnect(opts: { accountId: number; userId: number; shop: string; redirectUri: string }) {
  return shopifyAuthorizeUrl({
    shop: opts.shop,
    redirectUri: opts.redirectUri,
    state: signIntegrationState({ ...opts, provider: 'shopify', extra: opts.shop }),
  });
}

export class ConnectRefusedError extends Error {}

/** The callback: the state must be this agent's, the query signed by Shopify, and the shop the one asked for. */
export async function finishShopifyConnect(opts: { accountId: number; userId: number; params: URLSearchParams; webhookAddress: string }) {
  const state = verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'shopify' });
  if (!state) throw new ConnectRefusedError('The Shopify sign-in link has expired or was not started here. Please connect again.');
  if (!verifyShopifyCallback(opts.params)) throw new ConnectRefusedError('The answer from Shopify was not signed by Shopify. Please connect again.');
  const shop = opts.params.get('shop') ?? '';
  if (shop !== state.extra) throw new ConnectRefusedError('Shopify answered for another shop than the one asked for. Please connect again.');
  const tokens = await exchangeShopifyCode({ shop, code: (opts.params.get('code') ?? '').slice(0, 512) });
  // The address is kept so that the scheduled check (ADR 118) can register a missing webhook without a request.
  const row = await saveConnection({ accountId: opts.accountId, userId: opts.userId, provider: 'shopify', externalAccount: shop, tokens, settings: { webhookAddress: opts.webhookAddress } });
  // Shopify tells Parley when the app is uninstalled from the shop's admin; the connection then ends here too.
  // orders/create makes each new order a sale for the Ecommerce analytics (ADR 098).
  for (const topic of SHOPIFY_WEBHOOK_TOPICS) {
    await registerShopifyWebhook({ shop, token: tokens.accessToken, topic, address: opts.webhookAddress }).catch((err) =>
      getLogger().warn({ provider: 'shopify', accountId: opts.accountId, topic, err: (err as Error).message }, 'shopify webhook registration failed'),
    );
  }
  return row;
}

export async function disconnectShopify(opts: { accountId: number; userId: number }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'shopify' }).catch(() => null);
  return disconnectIntegration({ ...opts, provider: 'shopify', adapter: shopifyAdapter(conn?.externalAccount ?? '') });
}

async function ctxOf(conn: OpenConnection) {
  return { shop: conn.externalAccount, token: await freshAccessToken(conn, shopifyAdapter(conn.externalAccount)) };
}

export type ShopifyPanel =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string; shop: string }
  | { state: 'ok'; shop: string; customer: ShopifyCustomer | null; orders: ShopifyOrder[] };

/** The side panel: the contact's Shopify customer (by email) and their five latest orders, read live. */
export async function shopifyPanelFor(opts: { accountId: number; email: string | null }): Promise<ShopifyPanel> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'shopify' }).catch((err) => (err instanceof Error ? err : null));
  if (!conn) return { state: 'not-connected' };
  if (conn instanceof Error) return { state: 'error', message: conn.message, shop: '' };
  if (!opts.email) return { state: 'no-email' };
  try {
    const ctx = await ctxOf(conn);
    const customer = await findShopifyCustomer({ ...ctx, email: opts.email });
    const orders = customer ? await listShopifyOrders({ ...ctx, customerId: customer.id }) : [];
    return { state: 'ok', shop: conn.externalAccount, customer, orders };
  } catch (err) {
    if (err instanceof IntegrationError) return { state: 'error', message: err.message, shop: conn.externalAccount };
    throw err;
  }
}

export const ORDER_ACTIONS = { cancel: 'Cancel order', refund: 'Refund order' } as const;
export type OrderAction = keyof typeof ORDER_ACTIONS;

/** The order the confirmation page shows; only an order of this contact's customer record may be acted on. */
export async function getContactShopifyOrder(opts: { accountId: number; email: string | null; orderId: number }) {
  const panel = await shopifyPanelFor(opts);
  if (panel.state !== 'ok') return null;
  return panel.orders.find((o) => o.id === opts.orderId) ?? null;
}

/**
 * Cancels or refunds an order of the conversation's contact at Shopify; the conversation gets a note saying who did
 * what, and `integration_order_action` is recorded with it.
 */
export async function runShopifyOrderAction(opts: { accountId: number; userId: number; userName: string; conversationId: number; email: string | null; orderId: number; action: OrderAction }) {
  const order = await getContactShopifyOrder(opts);
  if (!order) throw new IntegrationError("This order is not one of the contact's Shopify orders", 404);
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'shopify' });
  if (!conn) throw new IntegrationError('Shopify is not connected', 0);
  const ctx = await ctxOf(conn);
  if (opts.action === 'cancel') {
    if (order.cancelledAt) throw new IntegrationError(`Order ${order.name} is already cancelled`, 422);
    await cancelShopifyOrder({ ...ctx, orderId: order.id, reason: 'customer' });
  } else {
    await refundShopifyOrder({ ...ctx, orderId: order.id, note: `Refunded from Parley conversation #${opts.conversationId}` });
  }
  const after = await getShopifyOrder({ ...ctx, orderId: order.id }).catch(() => null);
  const text = `${opts.action === 'cancel' ? 'Cancelled' : 'Refunded'} Shopify order ${order.name} (${order.totalPrice} ${order.currency}) by ${opts.userName}${
    after ? ` · now ${String(after.financial_status ?? '')}` : ''
  }`;
  await noteOrderAction({ ...opts, text, provider: 'shopify', action: opts.action, orderId: order.id, orderName: order.name });
  return { order, text };
}

/**
 * POST /webhooks/integrations/shopify: a delivery signed with the app's secret (X-Shopify-Hmac-Sha256) for a
 * connected shop. app/uninstalled ends the connection here; the GDPR topics have nothing to erase (Parley keeps no
 * Shopify customer data, it reads it live). Anything unsigned is refused.
 */
export async function handleShopifyWebhook(opts: { rawBody: string; headers: Headers }): Promise<{ status: number; text: string }> {
  if (!verifyShopifyWebhook(opts.rawBody, opts.headers.get('x-shopify-hmac-sha256'))) return { status: 401, text: 'The signature does not match' };
  const topic = opts.headers.get('x-shopify-topic') ?? '';
  const shop = (opts.headers.get('x-shopify-shop-domain') ?? '').toLowerCase();
  if (topic === 'app/uninstalled') {
    const accounts = await listConnectionAccountsByExternal({ provider: 'shopify', externalAccount: shop });
    for (const accountId of accounts) await disconnectIntegration({ accountId, userId: null, provider: 'shopify', adapter: {} });
    return { status: 200, text: `${accounts.length} connection(s) ended` };
  }
  if (topic === 'orders/create') {
    const order = parseJsonObject(opts.rawBody);
    if (!order || (typeof order.id !== 'number' && typeof order.id !== 'string')) return { status: 400, text: 'The body is not an order' };
    // Only the accounts whose plan has integrations (ADR 157); an uninstall above still ends every connection.
    const accounts = await accountsWithIntegrations(await listConnectionAccountsByExternal({ provider: 'shopify', externalAccount: shop }));
    const customer = (order.customer ?? {}) as Record<string, unknown>;
    const email = typeof order.email === 'string' && order.email ? order.email : typeof customer.email === 'string' ? customer.email : null;
    const out = await recordStoreOrder({
      accountIds: accounts,
      source: 'shopify',
      externalId: String(order.id),
      amount: String(order.total_price ?? ''),
      currency: String(order.currency ?? ''),
      email,
    });
    return { status: 200, text: out.invalid ? 'order without an amount' : `${out.recorded} sale(s) recorded` };
  }
  return { status: 200, text: 'nothing to do' };
}
