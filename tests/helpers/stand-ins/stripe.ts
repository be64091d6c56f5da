import crypto from 'node:crypto';
import http from 'node:http';
import { stripeSignatureHeader } from '../../../app/models/billing/stripe.server';

/**
 * Stripe's REST API as Parley uses it (version 2024-06-20): Bearer secret key, form-encoded bodies with bracketed
 * keys, Idempotency-Key on every POST (a repeat answers the first response), Stripe's error body
 * `{ error: { type, code, message, param } }`, and objects with Stripe's field names. Checkout in setup mode serves
 * a hosted card page (plain HTML) that saves a payment method and redirects to success_url. Test cards are
 * Stripe's: 4242 4242 4242 4242 works; 4000 0000 0000 0341 attaches but every charge is declined. Proration is
 * Stripe's: unused time of the old price credited, remaining time of the new one charged, by the second.
 * Webhooks are signed with the endpoint secret as Stripe signs them and delivered one at a time.
 */
type Obj = Record<string, any>;

export function parseStripeForm(body: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node = root;
    parts.forEach((p, i) => {
      if (i === parts.length - 1) node[p] = value;
      else node = node[p] ??= {};
    });
  }
  const arrays = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const o = v as Obj;
    const keys = Object.keys(o);
    if (keys.length && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => +a - +b).map((k) => arrays(o[k]));
    for (const k of keys) o[k] = arrays(o[k]);
    return o;
  };
  return arrays(root) as Obj;
}

const FAILING_CARDS = new Set(['4000000000000341', '4000000000000002']);

export async function startStripeStandIn(opts: { secretKey?: string; webhookSecret?: string } = {}) {
  const secretKey = opts.secretKey ?? 'sk_test_standin';
  const webhookSecret = opts.webhookSecret ?? 'whsec_standin';
  let webhookUrl: string | null = null;
  let seq = 0;
  const id = (prefix: string) => `${prefix}_${(++seq).toString(36).padStart(6, '0')}${crypto.randomBytes(4).toString('hex')}`;
  const now = () => Math.floor(Date.now() / 1000);
  const products = new Map<string, Obj>();
  const customers = new Map<string, Obj>();
  const paymentMethods = new Map<string, Obj & { number: string }>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  const requests: { method: string; path: string; idempotencyKey: string | null; version: string | null; body: Obj }[] = [];
  const deliveries: { type: string; status: number }[] = [];
  let queue: Promise<unknown> = Promise.resolve();

  const periodSeconds = (interval: string) => (interval === 'year' ? 365 : 30) * 86_400;
  const itemAmount = (item: Obj) => item.price.unit_amount * item.quantity;
  const defaultCard = (customerId: string, sub?: Obj) => paymentMethods.get(sub?.default_payment_method ?? customers.get(customerId)?.invoice_settings.default_payment_method);

  function makeInvoice(sub: Obj, lines: Obj[], reason: string) {
    const total = lines.reduce((s, l) => s + l.amount, 0);
    const card = defaultCard(sub.customer, sub);
    const pays = total <= 0 || (card && !FAILING_CARDS.has(card.number));
    const inv: Obj = {
      id: id('in'),
      object: 'invoice',
      customer: sub.customer,
      subscription: sub.id,
      billing_reason: reason,
      currency: sub.items.data[0].price.currency,
      subtotal: total,
      total,
      amount_due: Math.max(total, 0),
      amount_paid: pays ? Math.max(total, 0) : 0,
      status: pays ? 'paid' : 'open',
      created: now(),
      status_transitions: { paid_at: pays ? now() : null },
      lines: { object: 'list', data: lines },
    };
    return inv;
  }

  function line(description: string, amount: number, quantity: number, proration: boolean, start: number, end: number) {
    return { id: id('il'), object: 'line_item', description, amount, quantity, proration, period: { start, end } };
  }

  /** Stripe's proration of a change of the single item at `at`: credit for the old, charge for the new. */
  function changeLines(sub: Obj, newItem: Obj, at: number) {
    const old = sub.items.data[0];
    const sameInterval = old.price.recurring.interval === newItem.price.recurring.interval;
    const start = sub.current_period_start;
    const end = sub.current_period_end;
    const fraction = Math.max(0, Math.min(1, (end - at) / (end - start)));
    const name = (item: Obj) => `${item.quantity} × ${products.get(item.price.product)?.name ?? item.price.product}`;
    const lines = [line(`Unused time on ${name(old)}`, -Math.round(itemAmount(old) * fraction), old.quantity, true, at, end)];
    if (sameInterval) lines.push(line(`Remaining time on ${name(newItem)}`, Math.round(itemAmount(newItem) * fraction), newItem.quantity, true, at, end));
    else lines.push(line(name(newItem), itemAmount(newItem), newItem.quantity, false, at, at + periodSeconds(newItem.price.recurring.interval)));
    return { lines, sameInterval };
  }

  function itemFrom(spec: Obj, existingId?: string) {
    const pd = spec.price_data;
    return {
      id: existingId ?? id('si'),
      object: 'subscription_item',
      quantity: Number(spec.quantity ?? 1),
      price: { id: id('price'), object: 'price', currency: pd.currency, product: pd.product, unit_amount: Number(pd.unit_amount), recurring: { interval: pd.recurring.interval } },
    };
  }

  function enqueueEvent(type: string, object: Obj) {
    if (!webhookUrl) return;
    const event = { id: id('evt'), object: 'event', api_version: '2024-06-20', created: now(), type, data: { object: structuredClone(object) } };
    queue = queue.then(() => deliver(event)).catch(() => {});
  }

  async function deliver(event: Obj, o: { timestamp?: number; secret?: string; signature?: string } = {}) {
    const body = JSON.stringify(event);
    const header = o.signature ?? stripeSignatureHeader({ body, secret: o.secret ?? webhookSecret, timestamp: o.timestamp ?? now() });
    const url = new URL(webhookUrl!);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    deliveries.push({ type: event.type, status });
    return status;
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const base = `http://${req.headers.host}`;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), 'stripe-version': '2024-06-20' });
      res.end(JSON.stringify(body));
    };
    const fail = (status: number, type: string, message: string, code?: string, param?: string) => send(status, { error: { type, code, message, param } });

    // The hosted card page (Checkout in setup mode): plain HTML, no script.
    const pay = /^\/c\/pay\/([\w]+)$/.exec(url.pathname);
    if (pay) {
      const session = sessions.get(pay[1]);
      if (!session) return res.writeHead(404).end('Not found');
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          `<!doctype html><html lang="en"><head><title>Save a card</title></head><body><main><h1>Save a card</h1><form method="post">` +
            `<label>Card number <input name="number" autocomplete="cc-number"></label><label>Expiry (MM/YY) <input name="exp"></label><label>CVC <input name="cvc"></label>` +
            `<button type="submit">Save card</button></form><a href="${session.cancel_url}">Cancel</a></main></body></html>`,
        );
      }
      const form = new URLSearchParams(raw);
      const number = (form.get('number') ?? '').replace(/\s+/g, '');
      const [mm, yy] = (form.get('exp') ?? '12/34').split('/');
      if (!/^\d{16}$/.test(number)) return res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Your card number is incomplete.</p>');
      const pm = { id: id('pm'), object: 'payment_method', type: 'card', customer: session.customer, number, card: { brand: number.startsWith('5') ? 'mastercard' : 'visa', last4: number.slice(-4), exp_month: Number(mm), exp_year: 2000 + Number(yy) } };
      paymentMethods.set(pm.id, pm);
      session.status = 'complete';
      session.setup_intent_obj = { id: session.setup_intent, object: 'setup_intent', status: 'succeeded', payment_method: pm.id, customer: session.customer };
      res.writeHead(303, { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', session.id) });
      return res.end();
    }

    if (req.headers.authorization !== `Bearer ${secretKey}`) return fail(401, 'invalid_request_error', 'Invalid API Key provided');
    const body = req.method === 'POST' ? parseStripeForm(raw) : parseStripeForm(url.search.slice(1));
    const key = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method: req.method ?? '', path: url.pathname, idempotencyKey: key ?? null, version: (req.headers['stripe-version'] as string) ?? null, body });
    if (req.method === 'POST') {
      if (!key) return fail(400, 'invalid_request_error', 'Parley always sends an Idempotency-Key (stand-in check)');
      const seen = idempotent.get(key);
      if (seen) return send(seen.status, seen.body);
      const original = send;
      const record = (status: number, b: unknown) => {
        idempotent.set(key, { status, body: b });
        original(status, b);
      };
      return route(req.method, url, body, base, record, (s, t, m, c, p) => record(s, { error: { type: t, code: c, message: m, param: p } }));
    }
    return route(req.method ?? 'GET', url, body, base, send, fail);
  });

  function route(method: string, url: URL, body: Obj, base: string, send: (s: number, b: unknown) => void, fail: (s: number, t: string, m: string, c?: string, p?: string) => void) {
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (method === 'POST' && p === '/v1/products') {
      if (products.has(body.id)) return fail(400, 'invalid_request_error', `Product already exists.`, 'resource_already_exists', 'id');
      const product = { id: body.id ?? id('prod'), object: 'product', name: body.name };
      products.set(product.id, product);
      return send(200, product);
    }
    if (method === 'POST' && p === '/v1/customers') {
      const c = { id: id('cus'), object: 'customer', email: body.email, name: body.name, metadata: body.metadata ?? {}, address: null, invoice_settings: { default_payment_method: null } };
      customers.set(c.id, c);
      return send(200, c);
    }
    if ((m = /^\/v1\/customers\/(\w+)$/.exec(p))) {
      const c = customers.get(m[1]);
      if (!c) return fail(404, 'invalid_request_error', `No such customer: '${m[1]}'`, 'resource_missing');
      if (method === 'POST') {
        if (body.name !== undefined) c.name = body.name;
        if (body.address) c.address = body.address;
        if (body.metadata) c.metadata = { ...c.metadata, ...body.metadata };
        if (body.invoice_settings?.default_payment_method) {
          const pm = paymentMethods.get(body.invoice_settings.default_payment_method);
          if (!pm || pm.customer !== c.id) return fail(400, 'invalid_request_error', 'The payment method is not attached to this customer', 'resource_missing');
          c.invoice_settings.default_payment_method = pm.id;
        }
      }
      return send(200, c);
    }
    if (method === 'POST' && p === '/v1/checkout/sessions') {
      if (body.mode !== 'setup') return fail(400, 'invalid_request_error', 'The stand-in only offers setup mode');
      if (!customers.has(body.customer)) return fail(400, 'invalid_request_error', `No such customer: '${body.customer}'`, 'resource_missing');
      const s: Obj = { id: id('cs_test'), object: 'checkout.session', mode: 'setup', customer: body.customer, status: 'open', success_url: body.success_url, cancel_url: body.cancel_url, setup_intent: id('seti') };
      s.url = `${base}/c/pay/${s.id}`;
      sessions.set(s.id, s);
      return send(200, s);
    }
    if ((m = /^\/v1\/checkout\/sessions\/(\w+)$/.exec(p))) {
      const s = sessions.get(m[1]);
      if (!s) return fail(404, 'invalid_request_error', `No such checkout.session: '${m[1]}'`, 'resource_missing');
      const { setup_intent_obj, ...rest } = s;
      const expand = ([] as string[]).concat(body.expand ?? []);
      return send(200, { ...rest, setup_intent: expand.includes('setup_intent') ? (setup_intent_obj ?? { id: s.setup_intent, object: 'setup_intent', status: 'requires_payment_method', payment_method: null }) : s.setup_intent });
    }
    if ((m = /^\/v1\/payment_methods\/(\w+)(\/detach)?$/.exec(p))) {
      const pm = paymentMethods.get(m[1]);
      if (!pm) return fail(404, 'invalid_request_error', `No such PaymentMethod: '${m[1]}'`, 'resource_missing');
      if (m[2] && method === 'POST') pm.customer = null;
      const { number: _n, ...visible } = pm;
      return send(200, visible);
    }
    if (method === 'POST' && p === '/v1/subscriptions') {
      const customer = customers.get(body.customer);
      if (!customer) return fail(400, 'invalid_request_error', `No such customer: '${body.customer}'`, 'resource_missing');
      const item = itemFrom(body.items[0]);
      if (!products.has(item.price.product)) return fail(400, 'invalid_request_error', `No such product: '${item.price.product}'`, 'resource_missing');
      const start = now();
      const sub: Obj = {
        id: id('sub'),
        object: 'subscription',
        customer: customer.id,
        status: 'active',
        cancel_at_period_end: false,
        current_period_start: start,
        current_period_end: start + periodSeconds(item.price.recurring.interval),
        default_payment_method: body.default_payment_method ?? null,
        items: { object: 'list', data: [item] },
        metadata: body.metadata ?? {},
      };
      const inv = makeInvoice(sub, [line(`${item.quantity} × ${products.get(item.price.product)!.name}`, itemAmount(item), item.quantity, false, sub.current_period_start, sub.current_period_end)], 'subscription_create');
      if (inv.status !== 'paid' && body.payment_behavior === 'error_if_incomplete') return fail(402, 'card_error', 'Your card was declined.', 'card_declined');
      invoices.set(inv.id, inv);
      sub.latest_invoice = inv.id;
      subscriptions.set(sub.id, sub);
      enqueueEvent('invoice.paid', inv);
      return send(200, sub);
    }
    if ((m = /^\/v1\/subscriptions\/(\w+)$/.exec(p))) {
      const sub = subscriptions.get(m[1]);
      if (!sub || sub.customer === undefined) return fail(404, 'invalid_request_error', `No such subscription: '${m[1]}'`, 'resource_missing');
      if (method === 'POST') {
        if (sub.status === 'canceled') return fail(400, 'invalid_request_error', 'A canceled subscription can only update its cancellation_details and metadata.');
        if (body.items) {
          const old = sub.items.data[0];
          if (body.items[0].id !== old.id) return fail(400, 'invalid_request_error', 'Unknown subscription item', 'resource_missing', 'items[0][id]');
          const next = itemFrom(body.items[0], old.id);
          const at = Number(body.proration_date ?? now());
          const { lines, sameInterval } = changeLines(sub, next, at);
          const inv = makeInvoice({ ...sub, items: { data: [next] } }, lines, 'subscription_update');
          if (inv.status !== 'paid' && body.payment_behavior === 'error_if_incomplete') return fail(402, 'card_error', 'Your card was declined.', 'card_declined');
          sub.items.data = [next];
          if (!sameInterval) {
            sub.current_period_start = at;
            sub.current_period_end = at + periodSeconds(next.price.recurring.interval);
          }
          invoices.set(inv.id, inv);
          sub.latest_invoice = inv.id;
          enqueueEvent('invoice.paid', inv);
        }
        if (body.cancel_at_period_end !== undefined) sub.cancel_at_period_end = body.cancel_at_period_end === 'true';
        if (body.metadata) sub.metadata = { ...sub.metadata, ...body.metadata };
        enqueueEvent('customer.subscription.updated', sub);
      }
      return send(200, sub);
    }
    if ((m = /^\/v1\/invoices\/(\w+)\/pay$/.exec(p)) && method === 'POST') {
      const inv = invoices.get(m[1]);
      if (!inv) return fail(404, 'invalid_request_error', `No such invoice: '${m[1]}'`, 'resource_missing');
      if (inv.status === 'paid') return fail(400, 'invalid_request_error', 'Invoice is already paid', 'invoice_already_paid');
      const sub = subscriptions.get(inv.subscription)!;
      const card = defaultCard(inv.customer, sub);
      if (!card || FAILING_CARDS.has(card.number)) return fail(402, 'card_error', 'Your card was declined.', 'card_declined');
      Object.assign(inv, { status: 'paid', amount_paid: inv.amount_due, status_transitions: { paid_at: now() } });
      sub.status = 'active';
      enqueueEvent('invoice.paid', inv);
      enqueueEvent('customer.subscription.updated', sub);
      return send(200, inv);
    }
    if (method === 'GET' && p === '/v1/invoices/upcoming') {
      const sub = subscriptions.get(body.subscription);
      if (!sub || sub.customer !== body.customer) return fail(404, 'invalid_request_error', 'No upcoming invoices for customer', 'invoice_upcoming_none');
      const spec = body.subscription_items?.[0];
      if (!spec || spec.id !== sub.items.data[0].id) return fail(400, 'invalid_request_error', 'Unknown subscription item', 'resource_missing', 'subscription_items[0][id]');
      const next = itemFrom(spec, spec.id);
      const { lines } = changeLines(sub, next, Number(body.subscription_proration_date ?? now()));
      const inv = makeInvoice({ ...sub, items: { data: [next] } }, lines, 'upcoming');
      return send(200, { ...inv, id: undefined, status: 'draft', amount_paid: 0, status_transitions: { paid_at: null } });
    }
    if (method === 'GET' && p === '/v1/invoices') {
      const data = [...invoices.values()].filter((i) => i.customer === body.customer).sort((a, b) => b.created - a.created || (b.id < a.id ? -1 : 1));
      return send(200, { object: 'list', data: data.slice(0, Number(body.limit ?? 10)), has_more: false, url: '/v1/invoices' });
    }
    return fail(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${p}).`);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  return {
    url,
    secretKey,
    webhookSecret,
    requests,
    deliveries,
    customers,
    subscriptions,
    invoices,
    setWebhookUrl(u: string) {
      webhookUrl = u;
    },
    /** Waits until every queued webhook has been delivered. */
    settled: () => queue,
    deliver,
    /** The renewal at the period's end: charged to the default card; a declined card makes the subscription past_due. */
    async renew(subscriptionId: string) {
      const sub = subscriptions.get(subscriptionId)!;
      const item = sub.items.data[0];
      const start = sub.current_period_end;
      const inv = makeInvoice(sub, [line(`${item.quantity} × ${products.get(item.price.product)!.name}`, itemAmount(item), item.quantity, false, start, start + periodSeconds(item.price.recurring.interval))], 'subscription_cycle');
      invoices.set(inv.id, inv);
      sub.current_period_start = start;
      sub.current_period_end = start + periodSeconds(item.price.recurring.interval);
      sub.status = inv.status === 'paid' ? 'active' : 'past_due';
      enqueueEvent(inv.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', inv);
      enqueueEvent('customer.subscription.updated', sub);
      await queue;
      return inv;
    },
    /** The subscription ends (cancelled at the period's end, or unpaid for good). */
    async end(subscriptionId: string) {
      const sub = subscriptions.get(subscriptionId)!;
      sub.status = 'canceled';
      sub.ended_at = now();
      enqueueEvent('customer.subscription.deleted', sub);
      await queue;
    },
    /** Makes the card a failing one (as if the bank now declines it). */
    declineCard(paymentMethodId: string) {
      paymentMethods.get(paymentMethodId)!.number = '4000000000000341';
    },
    event: (type: string, object: Obj) => ({ id: id('evt'), object: 'event', api_version: '2024-06-20', created: now(), type, data: { object: structuredClone(object) } }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;
