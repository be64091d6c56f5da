import crypto from 'node:crypto';
import type { InvoiceLine } from '../../../db/schema/billing';
import { guardedRequest, type GuardedResponse } from '../../utils/outbound-guard.server';
import { parseJsonObject } from '../../utils/json';
import {
  BillingProviderError,
  WebhookRejectedError,
  type BillingProvider,
  type ProviderCard,
  type ProviderInvoice,
  type ProviderSubscription,
  type SeatPrice,
} from './provider.server';

/**
 * Stripe's REST API (ADR 073): form-encoded requests with bracketed keys, a Bearer secret key, the API version
 * pinned by header, an Idempotency-Key on every POST (reused by the one retry), and `Stripe-Signature` webhooks
 * verified with HMAC-SHA256 and a five-minute tolerance, as Stripe's own libraries do.
 */
export const STRIPE_API_VERSION = '2024-06-20';
export const WEBHOOK_TOLERANCE_SECONDS = 300;
const TIMEOUT_MS = 20_000;

type Params = { [key: string]: string | number | boolean | null | undefined | Params | Params[] | string[] };

/** Stripe's form encoding: `items[0][price_data][recurring][interval]=month`. */
export function encodeStripeForm(params: Params, prefix = '', out = new URLSearchParams()) {
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        if (typeof item === 'object') encodeStripeForm(item, `${name}[${i}]`, out);
        else out.append(`${name}[${i}]`, String(item));
      });
    } else if (typeof value === 'object') encodeStripeForm(value, name, out);
    else out.append(name, String(value));
  }
  return out;
}

type Obj = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const idOf = (v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' ? str((v as Obj).id) : '');
const date = (v: unknown) => new Date(num(v) * 1000);

function toSubscription(o: Obj): ProviderSubscription {
  const items = ((o.items as Obj | undefined)?.data as Obj[] | undefined) ?? [];
  return {
    id: str(o.id),
    itemId: str(items[0]?.id),
    customerId: idOf(o.customer),
    status: str(o.status),
    cancelAtPeriodEnd: o.cancel_at_period_end === true,
    currentPeriodStart: date(o.current_period_start),
    currentPeriodEnd: date(o.current_period_end),
  };
}

function toLines(o: Obj): InvoiceLine[] {
  const data = ((o.lines as Obj | undefined)?.data as Obj[] | undefined) ?? [];
  return data.map((l) => {
    const period = (l.period as Obj | undefined) ?? {};
    return {
      description: str(l.description),
      amount: num(l.amount),
      quantity: num(l.quantity) || 1,
      proration: l.proration === true,
      periodStart: period.start ? date(period.start).toISOString() : null,
      periodEnd: period.end ? date(period.end).toISOString() : null,
    };
  });
}

function toInvoice(o: Obj): ProviderInvoice {
  const paidAt = (o.status_transitions as Obj | undefined)?.paid_at;
  return {
    id: str(o.id),
    customerId: idOf(o.customer),
    subscriptionId: idOf(o.subscription) || null,
    status: str(o.status),
    currency: str(o.currency),
    subtotal: num(o.subtotal),
    total: num(o.total),
    amountPaid: num(o.amount_paid),
    amountDue: num(o.amount_due),
    createdAt: date(o.created),
    paidAt: typeof paidAt === 'number' ? date(paidAt) : null,
    lines: toLines(o),
  };
}

function priceData(p: SeatPrice) {
  return { currency: p.currency, product: productId(p.planKey), unit_amount: p.unitAmount, recurring: { interval: p.interval } };
}
const productId = (planKey: string) => `parley_plan_${planKey.replace(/[^a-z0-9_]/gi, '_')}`;

/** Parses `t=...,v1=...,v1=...` and checks one v1 signature of `t.body` and the timestamp's age. */
export function verifyStripeSignature(opts: { body: string; header: string | null; secret: string; now?: Date; tolerance?: number }) {
  if (!opts.header) throw new WebhookRejectedError('No Stripe-Signature header');
  let timestamp = NaN;
  const signatures: string[] = [];
  for (const part of opts.header.split(',')) {
    const [k, v] = part.split('=', 2).map((s) => s.trim());
    if (k === 't') timestamp = Number(v);
    if (k === 'v1' && v) signatures.push(v);
  }
  if (!Number.isFinite(timestamp) || signatures.length === 0) throw new WebhookRejectedError('Malformed Stripe-Signature header');
  const expected = crypto.createHmac('sha256', opts.secret).update(`${timestamp}.${opts.body}`, 'utf8').digest();
  const match = signatures.some((s) => {
    const given = Buffer.from(s, 'hex');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookRejectedError('No signature matches the payload');
  const age = Math.abs((opts.now ?? new Date()).getTime() / 1000 - timestamp);
  if (age > (opts.tolerance ?? WEBHOOK_TOLERANCE_SECONDS)) throw new WebhookRejectedError('Timestamp outside the tolerance');
}

/** Signs a payload the way Stripe does (for the stand-in and tests). */
export function stripeSignatureHeader(opts: { body: string; secret: string; timestamp: number }) {
  const v1 = crypto.createHmac('sha256', opts.secret).update(`${opts.timestamp}.${opts.body}`, 'utf8').digest('hex');
  return `t=${opts.timestamp},v1=${v1}`;
}

export function createStripeProvider(config: { apiBase: string; secretKey: string; webhookSecret: string | null }): BillingProvider {
  async function call(method: 'GET' | 'POST' | 'DELETE', path: string, params: Params = {}): Promise<Obj> {
    const form = encodeStripeForm(params).toString();
    const url = `${config.apiBase}${path}${method === 'GET' && form ? `?${form}` : ''}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${config.secretKey}`,
      'stripe-version': STRIPE_API_VERSION,
      accept: 'application/json',
    };
    if (method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['idempotency-key'] = crypto.randomUUID();
    }
    let res: GuardedResponse | undefined;
    // One retry on a lost connection, a 429 or a 5xx: with the same idempotency key Stripe answers a repeated
    // POST with the first one's result instead of doing the work twice.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        res = await guardedRequest(url, { method, headers, body: method === 'POST' ? form : undefined, timeoutMs: TIMEOUT_MS, maxBytes: 2 * 1024 * 1024 });
        if (res.status !== 429 && res.status < 500) break;
      } catch (err) {
        if (attempt === 1) throw new BillingProviderError(`Stripe could not be reached (${(err as Error).message})`, 0);
      }
    }
    const body = parseJsonObject(res!.text) ?? {};
    if (!res!.ok) {
      const error = (body.error as Obj | undefined) ?? {};
      throw new BillingProviderError(str(error.message) || `Stripe answered ${res!.status}`, res!.status, str(error.code) || undefined);
    }
    return body;
  }

  async function ensureProduct(price: SeatPrice) {
    try {
      await call('POST', '/v1/products', { id: productId(price.planKey), name: `Parley ${price.planName}`, unit_label: 'seat' });
    } catch (err) {
      // Created by an earlier subscription: Stripe answers 400 resource_already_exists for a taken custom id.
      if (!(err instanceof BillingProviderError && err.code === 'resource_already_exists')) throw err;
    }
  }

  return {
    name: 'stripe',
    async createCustomer(opts) {
      const c = await call('POST', '/v1/customers', { email: opts.email, name: opts.name, metadata: { parley_account_id: opts.accountId } });
      return { id: str(c.id) };
    },
    async updateCustomer(opts) {
      const a = opts.address;
      await call('POST', `/v1/customers/${encodeURIComponent(opts.customerId)}`, {
        name: a.name,
        address: { line1: a.line1, line2: a.line2, city: a.city, postal_code: a.postalCode, state: a.state, country: a.country },
        // Shown on the provider's invoices; Parley keeps the tax ID itself as well.
        metadata: { tax_id: opts.taxId },
      });
    },
    async startCardSetup(opts) {
      const s = await call('POST', '/v1/checkout/sessions', {
        mode: 'setup',
        customer: opts.customerId,
        payment_method_types: ['card'],
        success_url: opts.successUrl,
        cancel_url: opts.cancelUrl,
      });
      return { id: str(s.id), url: str(s.url) };
    },
    async finishCardSetup(opts): Promise<ProviderCard> {
      const s = await call('GET', `/v1/checkout/sessions/${encodeURIComponent(opts.setupId)}`, { expand: ['setup_intent'] });
      if (idOf(s.customer) !== opts.customerId) throw new BillingProviderError('This card setup belongs to another customer', 404);
      const intent = (s.setup_intent as Obj | null) ?? {};
      if (str(s.status) !== 'complete' || str(intent.status) !== 'succeeded') throw new BillingProviderError('The card was not saved: the card page was not completed', 409);
      const pm = await call('GET', `/v1/payment_methods/${encodeURIComponent(idOf(intent.payment_method))}`);
      const card = (pm.card as Obj | undefined) ?? {};
      return { id: str(pm.id), brand: str(card.brand), last4: str(card.last4), expMonth: num(card.exp_month), expYear: num(card.exp_year) };
    },
    async setDefaultPaymentMethod(opts) {
      await call('POST', `/v1/customers/${encodeURIComponent(opts.customerId)}`, { invoice_settings: { default_payment_method: opts.paymentMethodId } });
    },
    async detachPaymentMethod(opts) {
      await call('POST', `/v1/payment_methods/${encodeURIComponent(opts.paymentMethodId)}/detach`);
    },
    async createSubscription(opts) {
      await ensureProduct(opts.price);
      const s = await call('POST', '/v1/subscriptions', {
        customer: opts.customerId,
        items: [{ price_data: priceData(opts.price), quantity: opts.price.seats }],
        // No default_payment_method of its own: the customer's default card pays, so "Make default" changes what
        // the renewals charge (a subscription's own default would take precedence over it at Stripe).
        // A declined first payment is an error now, not a half-made subscription.
        payment_behavior: 'error_if_incomplete',
        metadata: { parley_plan: opts.price.planKey },
      });
      return toSubscription(s);
    },
    async previewChange(opts) {
      await ensureProduct(opts.price);
      const inv = await call('GET', '/v1/invoices/upcoming', {
        customer: opts.customerId,
        subscription: opts.subscriptionId,
        subscription_items: [{ id: opts.itemId, price_data: priceData(opts.price), quantity: opts.price.seats }],
        subscription_proration_behavior: 'always_invoice',
        subscription_proration_date: Math.floor(opts.prorationDate.getTime() / 1000),
      });
      const invoice = toInvoice(inv);
      const proration = invoice.lines.filter((l) => l.proration).reduce((sum, l) => sum + l.amount, 0);
      return { currency: invoice.currency, amountDue: invoice.amountDue, proration, lines: invoice.lines };
    },
    async changeSubscription(opts) {
      await ensureProduct(opts.price);
      const s = await call('POST', `/v1/subscriptions/${encodeURIComponent(opts.subscriptionId)}`, {
        items: [{ id: opts.itemId, price_data: priceData(opts.price), quantity: opts.price.seats }],
        proration_behavior: 'always_invoice',
        proration_date: Math.floor(opts.prorationDate.getTime() / 1000),
        payment_behavior: 'error_if_incomplete',
        metadata: { parley_plan: opts.price.planKey },
      });
      return toSubscription(s);
    },
    async setCancelAtPeriodEnd(opts) {
      return toSubscription(await call('POST', `/v1/subscriptions/${encodeURIComponent(opts.subscriptionId)}`, { cancel_at_period_end: opts.cancel }));
    },
    async listInvoices(opts) {
      const list = await call('GET', '/v1/invoices', { customer: opts.customerId, limit: 100 });
      return (((list.data as Obj[] | undefined) ?? []) as Obj[]).map(toInvoice);
    },
    async payInvoice(opts) {
      return toInvoice(await call('POST', `/v1/invoices/${encodeURIComponent(opts.invoiceId)}/pay`));
    },
    parseWebhook(opts) {
      if (!config.webhookSecret) throw new WebhookRejectedError('STRIPE_WEBHOOK_SECRET is not set');
      verifyStripeSignature({ body: opts.body, header: opts.headers.get('stripe-signature'), secret: config.webhookSecret, now: opts.now });
      const event = parseJsonObject(opts.body);
      if (!event || typeof event.id !== 'string' || typeof event.type !== 'string') throw new WebhookRejectedError('Not a Stripe event');
      const object = ((event.data as Obj | undefined)?.object as Obj | undefined) ?? {};
      const kind = str(object.object);
      return {
        id: event.id,
        type: event.type,
        customerId: idOf(object.customer) || null,
        subscription: kind === 'subscription' ? toSubscription(object) : undefined,
        invoice: kind === 'invoice' ? toInvoice(object) : undefined,
      };
    },
  };
}
