import crypto from 'node:crypto';
import http from 'node:http';

/**
 * A stand-in for one Shopify shop: the OAuth authorization-code grant (/admin/oauth/authorize redirecting back with
 * code, shop, state, timestamp and the hex `hmac` of the sorted query; /admin/oauth/access_token), the Admin REST
 * API calls Parley makes (customers/search, orders, cancel, refunds/calculate, refunds, webhooks,
 * api_permissions/current) with X-Shopify-Access-Token, Shopify's error shape { errors }, and webhook deliveries
 * signed with X-Shopify-Hmac-Sha256.
 */
export type StandInOrder = {
  id: number;
  name: string;
  customer_id: number;
  created_at: string;
  financial_status: string;
  fulfillment_status: string | null;
  cancelled_at: string | null;
  total_price: string;
  currency: string;
  line_items: { id: number; quantity: number; title: string; price: string }[];
  transactions: { id: number; amount: string; gateway: string }[];
};

export async function startShopifyStandIn(opts: { clientId: string; clientSecret: string; shop?: string; port?: number }) {
  const shop = opts.shop ?? 'parley-test.myshopify.com';
  const codes = new Set<string>();
  const tokens = new Set<string>();
  const webhooks: { id: number; topic: string; address: string }[] = [];
  const customers: Record<string, unknown>[] = [];
  const orders: StandInOrder[] = [];
  const requests: { method: string; path: string; token: string | null }[] = [];
  let revoked = 0;
  let ordersPageReads = 0;
  /** The n-th read of an orders page answers 503 (to test a failed import). */
  let failOrdersPage: number | null = null;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const sign = (params: URLSearchParams) =>
    crypto
      .createHmac('sha256', opts.clientSecret)
      .update(
        [...params.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => `${k}=${v}`)
          .join('&'),
      )
      .digest('hex');

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      const token = (req.headers['x-shopify-access-token'] as string | undefined) ?? null;
      requests.push({ method: req.method ?? '', path: url.pathname, token });
      if (req.method === 'GET' && url.pathname === '/admin/oauth/authorize') {
        if (url.searchParams.get('client_id') !== opts.clientId) return json(res, 400, { errors: 'Invalid client_id' });
        const code = crypto.randomBytes(16).toString('hex');
        codes.add(code);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        const p = new URLSearchParams({ code, host: Buffer.from(`${shop}/admin`).toString('base64url'), shop, state: url.searchParams.get('state') ?? '', timestamp: String(Math.floor(Date.now() / 1000)) });
        p.set('hmac', sign(p));
        back.search = p.toString();
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/admin/oauth/access_token') {
        const b = JSON.parse(raw || '{}') as { client_id?: string; client_secret?: string; code?: string };
        if (b.client_id !== opts.clientId || b.client_secret !== opts.clientSecret) return json(res, 400, { error: 'invalid_request', error_description: 'Invalid client credentials' });
        if (!b.code || !codes.delete(b.code)) return json(res, 400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
        const t = `shpat_${crypto.randomBytes(16).toString('hex')}`;
        tokens.add(t);
        return json(res, 200, { access_token: t, scope: 'read_customers,read_orders,write_orders' });
      }
      if (!token || !tokens.has(token)) return json(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
      if (req.method === 'DELETE' && url.pathname === '/admin/api_permissions/current.json') {
        tokens.delete(token);
        revoked++;
        return json(res, 200, {});
      }
      const m = /^\/admin\/api\/[0-9-]+(\/.*)$/.exec(url.pathname);
      if (!m) return json(res, 404, { errors: 'Not Found' });
      const path = m[1];
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (req.method === 'POST' && path === '/webhooks.json') {
        const w = body.webhook as { topic: string; address: string };
        if (webhooks.some((x) => x.topic === w.topic && x.address === w.address)) return json(res, 422, { errors: { address: ['for this topic has already been taken'] } });
        const hook = { id: webhooks.length + 1, topic: w.topic, address: w.address };
        webhooks.push(hook);
        return json(res, 201, { webhook: hook });
      }
      if (req.method === 'GET' && path === '/customers/search.json') {
        const email = (url.searchParams.get('query') ?? '').replace(/^email:/, '').toLowerCase();
        return json(res, 200, { customers: customers.filter((c) => String(c.email).toLowerCase() === email) });
      }
      if (req.method === 'GET' && path === '/webhooks.json') return json(res, 200, { webhooks });
      if (req.method === 'GET' && path === '/orders.json' && url.searchParams.has('customer_id')) {
        const cid = Number(url.searchParams.get('customer_id'));
        const list = orders.filter((o) => o.customer_id === cid && (url.searchParams.get('status') === 'any' || !o.cancelled_at)).slice(0, Number(url.searchParams.get('limit') ?? 50));
        return json(res, 200, { orders: list });
      }
      if (req.method === 'GET' && path === '/orders.json') {
        // Cursor pagination as Shopify does it: page_info is opaque, and beside it only limit and fields are allowed.
        const limit = Math.min(250, Number(url.searchParams.get('limit') ?? 50));
        const pageInfo = url.searchParams.get('page_info');
        let cursor: { offset: number; min: string | null; any: boolean };
        if (pageInfo) {
          if ([...url.searchParams.keys()].some((k) => !['page_info', 'limit', 'fields'].includes(k))) return json(res, 400, { errors: { page_info: ['filters cannot be combined with page_info'] } });
          try {
            cursor = JSON.parse(Buffer.from(pageInfo, 'base64url').toString('utf8'));
          } catch {
            return json(res, 400, { errors: { page_info: ['Invalid value.'] } });
          }
        } else cursor = { offset: 0, min: url.searchParams.get('created_at_min'), any: url.searchParams.get('status') === 'any' };
        const all = [...orders].sort((a, b) => a.id - b.id).filter((o) => (cursor.any || !o.cancelled_at) && (!cursor.min || Date.parse(o.created_at) >= Date.parse(cursor.min)));
        const page = all.slice(cursor.offset, cursor.offset + limit);
        ordersPageReads++;
        if (failOrdersPage !== null && ordersPageReads === failOrdersPage) return json(res, 503, { errors: 'Service Unavailable' });
        const fields = url.searchParams.get('fields')?.split(',');
        const shown = page.map((o) => (fields ? Object.fromEntries(Object.entries({ ...o, email: customers.find((c) => c.id === o.customer_id)?.email ?? null, customer: customers.find((c) => c.id === o.customer_id) ?? null }).filter(([k]) => fields.includes(k))) : o));
        const links: string[] = [];
        const here = `http://127.0.0.1:${(server.address() as { port: number }).port}${url.pathname}`;
        const link = (c: typeof cursor) => `${here}?limit=${limit}&page_info=${Buffer.from(JSON.stringify(c)).toString('base64url')}`;
        if (cursor.offset > 0) links.push(`<${link({ ...cursor, offset: Math.max(0, cursor.offset - limit) })}>; rel="previous"`);
        if (cursor.offset + limit < all.length) links.push(`<${link({ ...cursor, offset: cursor.offset + limit })}>; rel="next"`);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...(links.length ? { link: links.join(', ') } : {}) });
        return res.end(JSON.stringify({ orders: shown }));
      }
      const om = /^\/orders\/(\d+)(\.json|\/cancel\.json|\/refunds\/calculate\.json|\/refunds\.json)$/.exec(path);
      const order = om ? orders.find((o) => o.id === Number(om[1])) : undefined;
      if (om && !order) return json(res, 404, { errors: 'Not Found' });
      if (order && req.method === 'GET' && om![2] === '.json') return json(res, 200, { order });
      if (order && req.method === 'POST' && om![2] === '/cancel.json') {
        if (order.cancelled_at) return json(res, 422, { error: 'Order has already been cancelled' });
        order.cancelled_at = new Date().toISOString();
        return json(res, 200, { order });
      }
      if (order && req.method === 'POST' && om![2] === '/refunds/calculate.json') {
        if (order.financial_status === 'refunded') return json(res, 200, { refund: { transactions: [] } });
        return json(res, 200, { refund: { transactions: order.transactions.map((t) => ({ parent_id: t.id, amount: t.amount, kind: 'suggested_refund', gateway: t.gateway })) } });
      }
      if (order && req.method === 'POST' && om![2] === '/refunds.json') {
        const r = body.refund as { transactions?: { parent_id: number; kind: string }[] };
        if (!r?.transactions?.length || r.transactions.some((t) => t.kind !== 'refund' || !order.transactions.some((x) => x.id === t.parent_id))) return json(res, 422, { errors: { transactions: ['are invalid'] } });
        order.financial_status = 'refunded';
        return json(res, 201, { refund: { id: Date.now(), order_id: order.id, transactions: r.transactions } });
      }
      json(res, 404, { errors: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  let nextId = 1000;
  return {
    base: `http://127.0.0.1:${port}`,
    shop,
    webhooks,
    orders,
    /** Tokens the stand-in accepts; `grant` makes one for a connection written straight to the database. */
    grant(token: string) {
      tokens.add(token);
    },
    requests,
    tokens,
    revokedCount: () => revoked,
    failOrdersPageAt(n: number | null) {
      ordersPageReads = 0;
      failOrdersPage = n;
    },
    addCustomer(c: { email: string; firstName: string; lastName: string }) {
      const id = ++nextId;
      customers.push({ id, email: c.email, first_name: c.firstName, last_name: c.lastName, orders_count: 0, total_spent: '0.00', currency: 'EUR', state: 'enabled', created_at: '2025-01-10T10:00:00Z' });
      return id;
    },
    addOrder(o: { customerId: number; name: string; total: string; financialStatus?: string; fulfillmentStatus?: string | null; createdAt?: string; cancelled?: boolean }) {
      const id = ++nextId;
      orders.unshift({
        id,
        name: o.name,
        customer_id: o.customerId,
        created_at: o.createdAt ?? '2025-06-01T12:00:00Z',
        financial_status: o.financialStatus ?? 'paid',
        fulfillment_status: o.fulfillmentStatus ?? null,
        cancelled_at: o.cancelled ? '2025-06-02T12:00:00Z' : null,
        total_price: o.total,
        currency: 'EUR',
        line_items: [{ id: id * 10, quantity: 1, title: 'Item', price: o.total }],
        transactions: [{ id: id * 100, amount: o.total, gateway: 'shopify_payments' }],
      });
      const c = customers.find((x) => x.id === o.customerId);
      if (c) {
        c.orders_count = Number(c.orders_count) + 1;
        c.total_spent = (Number(c.total_spent) + Number(o.total)).toFixed(2);
      }
      return id;
    },
    /** Delivers a webhook as Shopify does; `secret` other than the app's forges it. */
    async deliver(address: string, topic: string, payload: unknown, secret = opts.clientSecret) {
      const body = JSON.stringify(payload);
      const res = await fetch(address, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-shopify-topic': topic,
          'x-shopify-shop-domain': shop,
          'x-shopify-hmac-sha256': crypto.createHmac('sha256', secret).update(body).digest('base64'),
          'x-shopify-webhook-id': crypto.randomUUID(),
        },
        body,
      });
      return res.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
