import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for BigCommerce's REST Management API for one store: X-Auth-Token on every call, GET /v2/store,
 * GET /v3/customers?email:in= ({ data, meta }), GET /v2/orders?customer_id=&sort=&limit= and ?page=&limit=&sort=id:asc
 * &min_date_created= (a bare array, 204 when empty), GET and PUT /v2/orders/{id} (status_id 5 = Cancelled), the v3
 * payment actions (POST refund_quotes answering refund_methods, POST refunds; an amount above what is left is 422),
 * POST and DELETE /v3/hooks, and callbacks as
 * BigCommerce sends them: the lightweight payload { scope, store_id, data: { type, id }, hash, created_at, producer }
 * with the headers the hook was created with.
 */
const STATUSES: Record<number, string> = { 1: 'Pending', 2: 'Shipped', 4: 'Refunded', 5: 'Cancelled', 10: 'Completed', 11: 'Awaiting Fulfillment', 14: 'Partially Refunded' };

export type BcStandInOrder = {
  id: number;
  customer_id: number;
  date_created: string;
  status_id: number;
  status: string;
  total_inc_tax: string;
  refunded_amount: string;
  currency_code: string;
  items_total: number;
  billing_address: { first_name: string; last_name: string; email: string };
};

export async function startBigcommerceStandIn(opts: { storeHash?: string; token?: string; port?: number } = {}) {
  const storeHash = opts.storeHash ?? 'abc123';
  const token = opts.token ?? 'bc-test-token-0001';
  const customers: { id: number; email: string; first_name: string; last_name: string; date_created: string }[] = [];
  const orders: BcStandInOrder[] = [];
  const hooks: { id: number; scope: string; destination: string; headers: Record<string, string>; is_active: boolean }[] = [];
  const requests: { method: string; path: string }[] = [];
  const refunds: { id: number; order_id: number; total_amount: number; payments: { provider_id: string; amount: number; offline: boolean }[]; reason: string }[] = [];
  /** The next refund is declined by the payment provider (BigCommerce still answers 201). */
  const control = { declineNextRefund: false };
  const left = (o: BcStandInOrder) => Math.round((Number(o.total_inc_tax) - Number(o.refunded_amount)) * 100) / 100;
  const refundItemAmount = (orderId: number, body: Record<string, unknown>) => {
    const items = (body.items ?? []) as { item_type?: string; item_id?: number; amount?: number }[];
    if (!Array.isArray(items) || items.length !== 1 || items[0].item_type !== 'ORDER' || items[0].item_id !== orderId || typeof items[0].amount !== 'number') return null;
    return items[0].amount;
  };

  const json = (res: http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      res.writeHead(status);
      return res.end();
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const v3Error = (res: http.ServerResponse, status: number, title: string) =>
    json(res, status, { status, title, type: 'https://developer.bigcommerce.com/api-docs/getting-started/api-status-codes', errors: {} });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      requests.push({ method: req.method ?? '', path: url.pathname });
      const m = /^\/stores\/([^/]+)(\/v[23]\/.*)$/.exec(url.pathname);
      if (!m) return json(res, 404, [{ status: 404, message: 'The requested resource was not found.' }]);
      if (m[1] !== storeHash) return json(res, 404, [{ status: 404, message: 'Store not found.' }]);
      if (req.headers['x-auth-token'] !== token) return json(res, 401, [{ status: 401, message: 'You are not authorized to access this resource.' }]);
      const path = m[2];
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (req.method === 'GET' && path === '/v2/store')
        return json(res, 200, {
          id: storeHash,
          domain: 'shop.example.com',
          name: 'Parley Test Store',
          currency: 'USD',
          secure_url: 'https://shop.example.com',
        });
      if (req.method === 'GET' && path === '/v3/customers') {
        const emails = (url.searchParams.get('email:in') ?? '').toLowerCase().split(',');
        const data = customers.filter((c) => emails.includes(c.email.toLowerCase()));
        return json(res, 200, { data, meta: { pagination: { total: data.length, count: data.length, per_page: 50, current_page: 1, total_pages: 1 } } });
      }
      if (req.method === 'GET' && path === '/v2/orders') {
        const limit = Math.min(250, Number(url.searchParams.get('limit') ?? 50));
        if (url.searchParams.has('customer_id')) {
          const cid = Number(url.searchParams.get('customer_id'));
          const list = orders.filter((o) => o.customer_id === cid).slice(0, limit);
          return list.length ? json(res, 200, list) : json(res, 204);
        }
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
        const min = url.searchParams.get('min_date_created');
        const byId = url.searchParams.get('sort') === 'id:asc' ? [...orders].sort((a, b) => a.id - b.id) : orders;
        const list = byId.filter((o) => !min || Date.parse(o.date_created) >= Date.parse(min)).slice((page - 1) * limit, page * limit);
        return list.length ? json(res, 200, list) : json(res, 204);
      }
      const pa = /^\/v3\/orders\/(\d+)\/payment_actions\/(refund_quotes|refunds)$/.exec(path);
      if (pa && req.method === 'POST') {
        const order = orders.find((o) => o.id === Number(pa[1]));
        if (!order) return v3Error(res, 404, 'Order not found');
        const amount = refundItemAmount(order.id, body);
        if (amount === null) return v3Error(res, 422, 'items must name the order and an amount');
        if (amount <= 0 || amount > left(order)) return v3Error(res, 422, `The refund amount exceeds the refundable amount of ${left(order).toFixed(2)}`);
        if (pa[2] === 'refund_quotes') {
          const option = (provider_id: string, provider_description: string, offline: boolean) => ({ provider_id, provider_description, amount, offline, offline_provider: offline, offline_reason: offline ? 'This is an offline payment provider.' : '' });
          return json(res, 201, {
            data: { order_id: order.id, total_refund_amount: amount, total_refund_tax_amount: 0, rounding: 0, adjustment: 0, tax_inclusive: true, refund_methods: [[option('stripe', 'Stripe', false)], [option('storecredit', 'Store Credit', false)], [option('custom', 'Custom', true)]] },
            meta: {},
          });
        }
        const payments = (body.payments ?? []) as { provider_id: string; amount: number; offline: boolean }[];
        const paid = Math.round(payments.reduce((sum, p) => sum + Number(p.amount), 0) * 100) / 100;
        if (!payments.length || paid !== amount) return v3Error(res, 422, 'The payments do not add up to the refund amount');
        const declined = control.declineNextRefund;
        control.declineNextRefund = false;
        const refund = { id: 900 + refunds.length, order_id: order.id, total_amount: amount, payments, reason: String(body.reason ?? '') };
        if (!declined) {
          refunds.push(refund);
          order.refunded_amount = (Number(order.refunded_amount) + amount).toFixed(4);
          order.status_id = left(order) <= 0 ? 4 : 14;
          order.status = STATUSES[order.status_id];
        }
        return json(res, 201, {
          data: {
            ...refund,
            user_id: 0,
            created: new Date().toISOString(),
            total_tax: 0,
            uses_merchant_override_values: false,
            payments: payments.map((p, i) => ({ id: refund.id * 10 + i, ...p, is_declined: declined, declined_message: declined ? 'Insufficient funds in the merchant account' : '' })),
            items: body.items,
          },
          meta: {},
        });
      }
      const om = /^\/v2\/orders\/(\d+)$/.exec(path);
      if (om) {
        const order = orders.find((o) => o.id === Number(om[1]));
        if (!order) return json(res, 404, [{ status: 404, message: 'The requested resource was not found.' }]);
        if (req.method === 'GET') return json(res, 200, order);
        if (req.method === 'PUT') {
          const sid = Number(body.status_id);
          if (!STATUSES[sid]) return json(res, 400, [{ status: 400, message: 'The field status_id is invalid.' }]);
          order.status_id = sid;
          order.status = STATUSES[sid];
          return json(res, 200, order);
        }
      }
      if (req.method === 'POST' && path === '/v3/hooks') {
        if (typeof body.scope !== 'string' || typeof body.destination !== 'string') return v3Error(res, 422, 'scope and destination are required');
        const hook = {
          id: 18048287 + hooks.length,
          scope: body.scope,
          destination: body.destination,
          headers: (body.headers ?? {}) as Record<string, string>,
          is_active: body.is_active !== false,
        };
        hooks.push(hook);
        return json(res, 200, {
          data: { ...hook, store_hash: storeHash, created_at: Math.floor(Date.now() / 1000), updated_at: Math.floor(Date.now() / 1000) },
          meta: {},
        });
      }
      const hm = /^\/v3\/hooks\/(\d+)$/.exec(path);
      if (req.method === 'DELETE' && hm) {
        const i = hooks.findIndex((h) => h.id === Number(hm[1]));
        if (i < 0) return v3Error(res, 404, 'Webhook not found');
        const [gone] = hooks.splice(i, 1);
        return json(res, 200, { data: gone, meta: {} });
      }
      json(res, 404, [{ status: 404, message: 'The requested resource was not found.' }]);
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  let nextId = 100;
  return {
    base: `http://127.0.0.1:${port}`,
    storeHash,
    token,
    orders,
    hooks,
    requests,
    refunds,
    control,
    addCustomer(c: { email: string; firstName: string; lastName: string }) {
      const id = ++nextId;
      customers.push({ id, email: c.email, first_name: c.firstName, last_name: c.lastName, date_created: 'Fri, 10 Jan 2025 10:00:00 +0000' });
      return id;
    },
    addOrder(o: { customerId: number; total: string; currency?: string; statusId?: number; email?: string; createdAt?: string }) {
      const id = ++nextId;
      const c = customers.find((x) => x.id === o.customerId);
      orders.unshift({
        id,
        customer_id: o.customerId,
        date_created: o.createdAt ?? 'Sun, 01 Jun 2025 12:00:00 +0000',
        status_id: o.statusId ?? 11,
        status: STATUSES[o.statusId ?? 11],
        total_inc_tax: o.total,
        refunded_amount: '0.0000',
        currency_code: o.currency ?? 'USD',
        items_total: 2,
        billing_address: { first_name: c?.first_name ?? '', last_name: c?.last_name ?? '', email: o.email ?? c?.email ?? '' },
      });
      return id;
    },
    /** Sends the callback for `scope` and `id` to every hook on it, as BigCommerce does; `headers` replaces the hook's (to forge). */
    async fire(scope: string, id: number, headers?: Record<string, string>, destination?: (d: string) => string) {
      const statuses: number[] = [];
      for (const h of hooks.filter((x) => x.scope === scope)) {
        const payload = {
          scope,
          store_id: '1001',
          data: { type: 'order', id },
          hash: crypto.randomBytes(20).toString('hex'),
          created_at: Math.floor(Date.now() / 1000),
          producer: `stores/${storeHash}`,
        };
        const res = await fetch(destination ? destination(h.destination) : h.destination, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(headers ?? h.headers) },
          body: JSON.stringify(payload),
        });
        statuses.push(res.status);
      }
      return statuses;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
