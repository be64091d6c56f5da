import { getConfig } from '../../../utils/env.server';
import { IntegrationError, providerCall } from '../http.server';
import type { StoreOrder } from '../shopify/client.server';

/**
 * BigCommerce's REST Management API (ADR 098): https://api.bigcommerce.com/stores/{store_hash}/v2|v3/..., with the
 * store API account's access token in X-Auth-Token. BIGCOMMERCE_API_BASE points it elsewhere (the tests' stand-in).
 * v2 answers lists as bare arrays (204 when empty), v3 as { data, meta }.
 */
export type BcCtx = { storeHash: string; token: string };

const base = (storeHash: string) => `${getConfig().integrations.bigcommerce.apiBase}/stores/${encodeURIComponent(storeHash)}`;
const api = (ctx: BcCtx, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('BigCommerce', `${base(ctx.storeHash)}${path}`, { ...init, headers: { 'x-auth-token': ctx.token } });

/** "abc123", "store-abc123.mybigcommerce.com" or an API path ".../stores/abc123/v3/" → "abc123"; null otherwise. */
export function normalizeStoreHash(input: string) {
  const v = input.trim().toLowerCase();
  const fromPath = /\/stores\/([a-z0-9]+)(\/|$)/.exec(v)?.[1];
  const fromHost = /^(?:https?:\/\/)?store-([a-z0-9]+)\.mybigcommerce\.com/.exec(v)?.[1];
  const hash = fromPath ?? fromHost ?? v;
  return /^[a-z0-9]{3,40}$/.test(hash) ? hash : null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export type BcStore = { id: string; name: string; domain: string; currency: string };

/** GET /v2/store: the check before a connection is saved; a wrong hash or token is BigCommerce's 401/403/404. */
export async function getBigcommerceStore(ctx: BcCtx): Promise<BcStore> {
  const res = await api(ctx, '/v2/store');
  const b = (res.body ?? {}) as Record<string, unknown>;
  return { id: str(b.id), name: str(b.name), domain: str(b.domain), currency: str(b.currency) };
}

export type BcCustomer = { id: number; firstName: string; lastName: string; email: string; createdAt: string };
export type BcOrder = {
  id: number;
  createdAt: string;
  status: string;
  statusId: number;
  total: string;
  /** What was refunded already (v2 `refunded_amount`, four decimals). */
  refunded: string;
  currency: string;
  itemCount: number;
  email: string;
};

/** GET /v3/customers?email:in=...: the customer with this email, or null. */
export async function findBigcommerceCustomer(ctx: BcCtx & { email: string }): Promise<BcCustomer | null> {
  const q = new URLSearchParams({ 'email:in': ctx.email });
  const res = await api(ctx, `/v3/customers?${q}`);
  const c = ((res.body as { data?: Record<string, unknown>[] })?.data ?? [])[0];
  if (!c) return null;
  return { id: Number(c.id), firstName: str(c.first_name), lastName: str(c.last_name), email: str(c.email), createdAt: str(c.date_created) };
}

function readOrder(o: Record<string, unknown>): BcOrder {
  const billing = (o.billing_address ?? {}) as Record<string, unknown>;
  return {
    id: Number(o.id),
    createdAt: str(o.date_created),
    status: str(o.status),
    statusId: Number(o.status_id ?? 0),
    total: str(o.total_inc_tax),
    refunded: str(o.refunded_amount) || '0',
    currency: str(o.currency_code),
    itemCount: Number(o.items_total ?? 0),
    email: str(billing.email),
  };
}

/** GET /v2/orders?customer_id=&sort=date_created:desc&limit=: the customer's latest orders (204 → none). */
export async function listBigcommerceOrders(ctx: BcCtx & { customerId: number; limit?: number }): Promise<BcOrder[]> {
  const q = new URLSearchParams({ customer_id: String(ctx.customerId), sort: 'date_created:desc', limit: String(ctx.limit ?? 5) });
  const res = await api(ctx, `/v2/orders?${q}`);
  return Array.isArray(res.body) ? (res.body as Record<string, unknown>[]).map(readOrder) : [];
}

export async function getBigcommerceOrder(ctx: BcCtx & { orderId: number }): Promise<BcOrder | null> {
  try {
    const res = await api(ctx, `/v2/orders/${ctx.orderId}`);
    return res.body && typeof res.body === 'object' ? readOrder(res.body as Record<string, unknown>) : null;
  } catch (err) {
    if (err instanceof IntegrationError && err.status === 404) return null;
    throw err;
  }
}

/** BigCommerce's order status ids (GET /v2/order_statuses): 5 is Cancelled, 4 Refunded, 14 Partially Refunded. */
export const BC_STATUS_CANCELLED = 5;
export const BC_STATUS_REFUNDED = 4;

/** PUT /v2/orders/{id} { status_id: 5 }: the order is cancelled (what the store admin's "Cancelled" status does). */
export async function cancelBigcommerceOrder(ctx: BcCtx & { orderId: number }) {
  const res = await api(ctx, `/v2/orders/${ctx.orderId}`, { method: 'PUT', json: { status_id: BC_STATUS_CANCELLED } });
  return readOrder((res.body ?? {}) as Record<string, unknown>);
}

/**
 * POST /v3/hooks: BigCommerce calls `destination` on `scope`, sending `headers` back with every callback; that is
 * how BigCommerce documents authenticating its webhooks, so the secret header is the proof of the sender.
 */
export async function registerBigcommerceWebhook(ctx: BcCtx & { scope: string; destination: string; headers: Record<string, string> }) {
  const res = await api(ctx, '/v3/hooks', { method: 'POST', json: { scope: ctx.scope, destination: ctx.destination, is_active: true, headers: ctx.headers } });
  return Number((res.body as { data?: { id?: number } })?.data?.id ?? 0);
}

export async function deleteBigcommerceWebhook(ctx: BcCtx & { id: number }) {
  await api(ctx, `/v3/hooks/${ctx.id}`, { method: 'DELETE' });
}

/** One way to pay a refund back: a provider (the order's gateway, store credit, "custom" for a refund made elsewhere). */
export type BcRefundOption = { providerId: string; description: string; amount: number; offline: boolean; offlineReason: string };
/** A refund quote: the amount BigCommerce would refund and its refund methods, each a list of payment options. */
export type BcRefundQuote = { total: number; methods: BcRefundOption[][] };

const orderItem = (orderId: number, amount: number) => [{ item_type: 'ORDER', item_id: orderId, amount }];

/**
 * POST /v3/orders/{id}/payment_actions/refund_quotes for an amount of the whole order: what BigCommerce would refund
 * and how (`refund_methods`: the merchant picks one method; a method may split the amount over several providers).
 */
export async function quoteBigcommerceRefund(ctx: BcCtx & { orderId: number; amount: number }): Promise<BcRefundQuote> {
  const res = await api(ctx, `/v3/orders/${ctx.orderId}/payment_actions/refund_quotes`, { method: 'POST', json: { items: orderItem(ctx.orderId, ctx.amount) } });
  const d = ((res.body as { data?: Record<string, unknown> })?.data ?? {}) as { total_refund_amount?: unknown; refund_methods?: unknown };
  const methods = (Array.isArray(d.refund_methods) ? d.refund_methods : []).map((m) =>
    (Array.isArray(m) ? (m as Record<string, unknown>[]) : []).map((o) => ({
      providerId: str(o.provider_id),
      description: str(o.provider_description) || str(o.provider_id),
      amount: Number(o.amount ?? 0),
      offline: o.offline === true,
      offlineReason: str(o.offline_reason),
    })),
  );
  return { total: Number(d.total_refund_amount ?? 0), methods: methods.filter((m) => m.length > 0) };
}

/**
 * POST /v3/orders/{id}/payment_actions/refunds with the quoted method's payments. BigCommerce answers 201 even when a
 * payment provider declined (`is_declined` on the payment): that is an error here.
 */
export async function createBigcommerceRefund(ctx: BcCtx & { orderId: number; amount: number; payments: BcRefundOption[]; reason: string }) {
  const res = await api(ctx, `/v3/orders/${ctx.orderId}/payment_actions/refunds`, {
    method: 'POST',
    json: {
      items: orderItem(ctx.orderId, ctx.amount),
      payments: ctx.payments.map((p) => ({ provider_id: p.providerId, amount: p.amount, offline: p.offline })),
      reason: ctx.reason.slice(0, 1000),
    },
  });
  const d = ((res.body as { data?: Record<string, unknown> })?.data ?? {}) as { id?: unknown; total_amount?: unknown; payments?: { is_declined?: boolean; declined_message?: string }[] };
  const declined = (d.payments ?? []).find((p) => p.is_declined);
  if (declined) throw new IntegrationError(`BigCommerce answered: the payment provider declined the refund${declined.declined_message ? ` (${declined.declined_message})` : ''}`, 402);
  return { id: Number(d.id ?? 0), total: Number(d.total_amount ?? ctx.amount) };
}

/** BigCommerce statuses that are no sale: 0 Incomplete, 5 Cancelled, 6 Declined. */
const NOT_SALES = new Set([0, 5, 6]);

/**
 * One page (250) of the store's orders by id, optionally from a day on: GET /v2/orders?page=&limit=&sort=id:asc
 * (v2 pages by number; an empty page is 204, the end).
 */
export async function listBigcommerceOrdersPage(ctx: BcCtx & { page: number; since: Date | null }): Promise<{ orders: StoreOrder[]; next: number | null }> {
  const limit = 250;
  const q = new URLSearchParams({ page: String(ctx.page), limit: String(limit), sort: 'id:asc' });
  if (ctx.since) q.set('min_date_created', ctx.since.toISOString());
  const res = await api(ctx, `/v2/orders?${q}`);
  const raw = Array.isArray(res.body) ? (res.body as Record<string, unknown>[]) : [];
  const orders = raw.map((o) => {
    const order = readOrder(o);
    const created = Date.parse(order.createdAt);
    return { id: String(order.id), amount: order.total, currency: order.currency, email: order.email || null, createdAt: Number.isNaN(created) ? null : new Date(created), isSale: !NOT_SALES.has(order.statusId) };
  });
  return { orders, next: raw.length === limit ? ctx.page + 1 : null };
}
