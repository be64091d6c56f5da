import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { IntegrationError, providerCall } from '../http.server';
import type { TokenSet } from '../connections.server';

/**
 * Shopify's Admin REST API (version below) and its OAuth authorization-code grant for public/custom apps (ADR 079).
 * Each shop is reached at https://{shop}.myshopify.com unless SHOPIFY_API_BASE points every shop at one place (the
 * stand-in in tests). Offline access tokens; "expiring offline tokens" (expires_in + refresh_token) are kept too.
 */
export const SHOPIFY_API_VERSION = '2024-10';
export const SHOPIFY_SCOPES = 'read_customers,read_orders,write_orders';

export function shopifyConfig() {
  const s = getConfig().integrations.shopify;
  if (!s) throw new IntegrationError('Shopify is not set up on this server (SHOPIFY_CLIENT_ID and SHOPIFY_CLIENT_SECRET)', 0);
  return s;
}

export const isShopifyConfigured = () => getConfig().integrations.shopify !== null;

/** "my-store", "my-store.myshopify.com" or its admin URL → "my-store.myshopify.com"; null when it is none of these. */
export function normalizeShopDomain(input: string) {
  const v = input.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  const name = v.endsWith('.myshopify.com') ? v.slice(0, -'.myshopify.com'.length) : v;
  return /^[a-z0-9][a-z0-9-]{0,59}$/.test(name) ? `${name}.myshopify.com` : null;
}

const base = (shop: string) => shopifyConfig().apiBase ?? `https://${shop}`;

export function shopifyAuthorizeUrl(opts: { shop: string; redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: shopifyConfig().clientId, scope: SHOPIFY_SCOPES, redirect_uri: opts.redirectUri, state: opts.state });
  return `${base(opts.shop)}/admin/oauth/authorize?${params}`;
}

/** The callback's `hmac`: hex HMAC-SHA256 of the other query parameters, sorted, with the app's secret. */
export function verifyShopifyCallback(params: URLSearchParams) {
  const given = params.get('hmac') ?? '';
  const message = [...params.entries()]
    .filter(([k]) => k !== 'hmac' && k !== 'signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return safeEqual(given, hmac('sha256', shopifyConfig().clientSecret, message).digest('hex'));
}

/** Webhooks: X-Shopify-Hmac-Sha256 is the base64 HMAC-SHA256 of the raw body with the app's secret. */
export function verifyShopifyWebhook(rawBody: string, header: string | null) {
  const s = getConfig().integrations.shopify;
  if (!s || !header) return false;
  return safeEqual(header, hmac('sha256', s.clientSecret, rawBody).digest('base64'));
}

function readTokens(body: unknown): TokenSet {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.access_token !== 'string') throw new IntegrationError('Shopify sent no access token', 0);
  return {
    accessToken: b.access_token,
    refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : null,
    expiresAt: typeof b.expires_in === 'number' ? new Date(Date.now() + b.expires_in * 1000) : null,
    scopes: typeof b.scope === 'string' ? b.scope : '',
  };
}

export async function exchangeShopifyCode(opts: { shop: string; code: string }) {
  const s = shopifyConfig();
  const res = await providerCall('Shopify', `${base(opts.shop)}/admin/oauth/access_token`, { method: 'POST', json: { client_id: s.clientId, client_secret: s.clientSecret, code: opts.code } });
  return readTokens(res.body);
}

export async function refreshShopifyToken(opts: { shop: string; refreshToken: string }) {
  const s = shopifyConfig();
  const res = await providerCall('Shopify', `${base(opts.shop)}/admin/oauth/access_token`, {
    method: 'POST',
    form: { client_id: s.clientId, client_secret: s.clientSecret, grant_type: 'refresh_token', refresh_token: opts.refreshToken },
  });
  return readTokens(res.body);
}

type Ctx = { shop: string; token: string };
const api = (ctx: Ctx, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('Shopify', `${base(ctx.shop)}/admin/api/${SHOPIFY_API_VERSION}${path}`, { ...init, headers: { 'x-shopify-access-token': ctx.token } });

/** Uninstalls the app from the shop: the token stops working. */
export async function revokeShopifyToken(ctx: Ctx) {
  await providerCall('Shopify', `${base(ctx.shop)}/admin/api_permissions/current.json`, { method: 'DELETE', headers: { 'x-shopify-access-token': ctx.token } });
}

export async function registerShopifyWebhook(ctx: Ctx & { topic: string; address: string }) {
  try {
    await api(ctx, '/webhooks.json', { method: 'POST', json: { webhook: { topic: ctx.topic, address: ctx.address, format: 'json' } } });
  } catch (err) {
    // 422 "address for this topic has already been taken": it is registered.
    if (!(err instanceof IntegrationError && err.status === 422)) throw err;
  }
}

/** GET webhooks.json: the app's webhook subscriptions on the shop. */
export async function listShopifyWebhooks(ctx: Ctx) {
  const res = await api(ctx, '/webhooks.json?limit=250');
  return ((res.body as { webhooks?: Record<string, unknown>[] })?.webhooks ?? []).map((w) => ({ id: Number(w.id), topic: str(w.topic), address: str(w.address) }));
}

export type ShopifyCustomer = { id: number; firstName: string; lastName: string; email: string; ordersCount: number; totalSpent: string; currency: string; createdAt: string; state: string };
export type ShopifyOrder = {
  id: number;
  name: string;
  createdAt: string;
  financialStatus: string;
  fulfillmentStatus: string;
  cancelledAt: string | null;
  totalPrice: string;
  currency: string;
  itemCount: number;
};

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export async function findShopifyCustomer(ctx: Ctx & { email: string }): Promise<ShopifyCustomer | null> {
  const q = new URLSearchParams({ query: `email:${ctx.email}`, limit: '1' });
  const res = await api(ctx, `/customers/search.json?${q}`);
  const c = ((res.body as { customers?: Record<string, unknown>[] })?.customers ?? [])[0];
  if (!c) return null;
  return {
    id: Number(c.id),
    firstName: str(c.first_name),
    lastName: str(c.last_name),
    email: str(c.email),
    ordersCount: Number(c.orders_count ?? 0),
    totalSpent: str(c.total_spent),
    currency: str(c.currency),
    createdAt: str(c.created_at),
    state: str(c.state),
  };
}

export async function listShopifyOrders(ctx: Ctx & { customerId: number; limit?: number }): Promise<ShopifyOrder[]> {
  const q = new URLSearchParams({ customer_id: String(ctx.customerId), status: 'any', limit: String(ctx.limit ?? 5) });
  const res = await api(ctx, `/orders.json?${q}`);
  return ((res.body as { orders?: Record<string, unknown>[] })?.orders ?? []).map((o) => ({
    id: Number(o.id),
    name: str(o.name),
    createdAt: str(o.created_at),
    financialStatus: str(o.financial_status) || 'pending',
    fulfillmentStatus: str(o.fulfillment_status) || 'unfulfilled',
    cancelledAt: typeof o.cancelled_at === 'string' ? o.cancelled_at : null,
    totalPrice: str(o.total_price),
    currency: str(o.currency),
    itemCount: Array.isArray(o.line_items) ? o.line_items.length : 0,
  }));
}

export async function getShopifyOrder(ctx: Ctx & { orderId: number }) {
  const res = await api(ctx, `/orders/${ctx.orderId}.json`);
  return ((res.body as { order?: Record<string, unknown> })?.order ?? null) as Record<string, unknown> | null;
}

/** POST orders/{id}/cancel.json: Shopify cancels (and, when asked, refunds and restocks) the order. */
export async function cancelShopifyOrder(ctx: Ctx & { orderId: number; reason: 'customer' | 'fraud' | 'inventory' | 'declined' | 'other' }) {
  await api(ctx, `/orders/${ctx.orderId}/cancel.json`, { method: 'POST', json: { reason: ctx.reason, email: true } });
}

/** A full refund: Shopify calculates it (refunds/calculate.json), then the suggested transactions are refunded. */
export async function refundShopifyOrder(ctx: Ctx & { orderId: number; note: string }) {
  const order = await getShopifyOrder(ctx);
  if (!order) throw new IntegrationError('Shopify answered: the order was not found', 404);
  const lineItems = ((order.line_items as { id: number; quantity: number }[] | undefined) ?? []).map((l) => ({ line_item_id: l.id, quantity: l.quantity, restock_type: 'no_restock' }));
  const calc = await api(ctx, `/orders/${ctx.orderId}/refunds/calculate.json`, { method: 'POST', json: { refund: { shipping: { full_refund: true }, refund_line_items: lineItems } } });
  const suggested = ((calc.body as { refund?: { transactions?: { parent_id: number; amount: string; gateway: string }[] } })?.refund?.transactions ?? []).map((t) => ({
    parent_id: t.parent_id,
    amount: t.amount,
    kind: 'refund',
    gateway: t.gateway,
  }));
  if (suggested.length === 0) throw new IntegrationError('Shopify answered: nothing is left to refund on this order', 422);
  await api(ctx, `/orders/${ctx.orderId}/refunds.json`, { method: 'POST', json: { refund: { notify: true, note: ctx.note, shipping: { full_refund: true }, refund_line_items: lineItems, transactions: suggested } } });
}

/** A store order as the import of past orders reads it (ADR 118). */
export type StoreOrder = { id: string; amount: string; currency: string; email: string | null; createdAt: Date | null; isSale: boolean };

const IMPORT_FIELDS = 'id,email,total_price,currency,created_at,cancelled_at,customer';

/** The `page_info` of Link's rel="next" (Shopify's cursor pagination), or null on the last page. */
export function nextPageInfo(link: string | string[] | undefined) {
  const text = Array.isArray(link) ? link.join(',') : link ?? '';
  for (const part of text.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return new URL(m[1], 'https://shop.invalid').searchParams.get('page_info');
  }
  return null;
}

/**
 * One page (250) of the shop's orders, every status, oldest cursor first: GET orders.json with `created_at_min` on
 * the first page, then only `page_info` (Shopify refuses other filters beside a cursor) from the Link header.
 */
export async function listShopifyOrdersPage(ctx: Ctx & { since: Date | null; pageInfo: string | null }): Promise<{ orders: StoreOrder[]; next: string | null }> {
  const q = new URLSearchParams({ limit: '250', fields: IMPORT_FIELDS });
  if (ctx.pageInfo) q.set('page_info', ctx.pageInfo);
  else {
    q.set('status', 'any');
    if (ctx.since) q.set('created_at_min', ctx.since.toISOString());
  }
  const res = await api(ctx, `/orders.json?${q}`);
  const orders = ((res.body as { orders?: Record<string, unknown>[] })?.orders ?? []).map((o) => {
    const customer = (o.customer ?? {}) as Record<string, unknown>;
    const email = str(o.email) || str(customer.email);
    const created = Date.parse(str(o.created_at));
    return { id: str(o.id), amount: str(o.total_price), currency: str(o.currency), email: email || null, createdAt: Number.isNaN(created) ? null : new Date(created), isSale: !o.cancelled_at };
  });
  return { orders, next: nextPageInfo(res.headers.link) };
}
