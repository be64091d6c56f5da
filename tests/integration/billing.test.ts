import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { accountHasFeature } from '../../app/models/accounts/accounts.server';
import { encodeStripeForm, STRIPE_API_VERSION, stripeSignatureHeader, verifyStripeSignature } from '../../app/models/billing/stripe.server';
import { WebhookRejectedError } from '../../app/models/billing/provider.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { parseConfig } from '../../app/utils/env.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stand-ins/stripe';

let app: Awaited<ReturnType<typeof startTestApp>>;
let stripe: StripeStandIn;

function configure(env: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetSingleton('config');
}

beforeAll(async () => {
  stripe = await startStripeStandIn();
  configure({ PARLEY_BILLING: 'on', STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url });
  app = await startTestApp();
  stripe.setWebhookUrl(`http://127.0.0.1:${app.port}/webhooks/stripe`);
});
afterAll(async () => {
  await app?.close();
  await stripe?.close();
  configure({ PARLEY_BILLING: undefined, STRIPE_SECRET_KEY: undefined, STRIPE_WEBHOOK_SECRET: undefined, STRIPE_API_BASE: undefined });
});

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const get = (path: string, c = cookie) => app.request(path, { domain: a.domain, cookie: c });
  const post = (path: string, form: Record<string, string>, c = cookie) => app.request(path, { domain: a.domain, cookie: c, form });
  return { ...a, cookie, get, post };
}

/** Adds a card the way an owner does: Add card, the provider's page, back to Parley. */
async function addCard(s: Awaited<ReturnType<typeof setup>>, number = '4242424242424242') {
  const started = await s.post('/settings/my-plan', { intent: 'add-card' });
  expect(started.status).toBe(302);
  const hosted = new URL(started.headers.location!);
  expect(hosted.origin).toBe(stripe.url);
  const page = await fetch(hosted);
  expect(await page.text()).toContain('Card number');
  const saved = await fetch(hosted, { method: 'POST', body: new URLSearchParams({ number, exp: '12/34', cvc: '123' }), redirect: 'manual' });
  expect(saved.status).toBe(303);
  const back = new URL(saved.headers.get('location')!);
  expect(back.pathname).toBe('/settings/my-plan/card');
  const done = await s.get(`${back.pathname}${back.search}`);
  expect(done.status).toBe(302);
  return { ...done, setupId: back.searchParams.get('session_id')! };
}

const subscriptionOf = async (accountId: number) => (await getDb().select().from(schema.billingSubscriptions).where(eq(schema.billingSubscriptions.accountId, accountId)))[0];
const accountOf = async (accountId: number) => (await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, accountId)))[0];

describe('Stripe wire format and webhook signatures', () => {
  it('validates the Stripe settings at boot with clear messages', () => {
    expect(parseConfig({ PARLEY_BILLING: 'on' }).stripe).toBeNull();
    expect(parseConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).stripe).toEqual({ apiBase: 'https://api.stripe.com', secretKey: 'sk_test_abc', webhookSecret: 'whsec_x' });
    expect(() => parseConfig({ STRIPE_SECRET_KEY: 'pk_test_abc' })).toThrow(/STRIPE_SECRET_KEY must be a Stripe secret key/);
    expect(() => parseConfig({ STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(/STRIPE_WEBHOOK_SECRET must be the endpoint signing secret/);
    expect(() => parseConfig({ PARLEY_BILLING_GRACE_DAYS: 'soon' })).toThrow(/PARLEY_BILLING_GRACE_DAYS/);
  });

  it('encodes nested parameters as Stripe expects', () => {
    expect(decodeURIComponent(encodeStripeForm({ items: [{ price_data: { recurring: { interval: 'month' } }, quantity: 3 }], expand: ['setup_intent'] }).toString())).toBe(
      'items[0][price_data][recurring][interval]=month&items[0][quantity]=3&expand[0]=setup_intent',
    );
  });

  it('accepts a signed delivery and refuses forged, altered and stale ones', () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid' });
    const now = new Date();
    const t = Math.floor(now.getTime() / 1000);
    const secret = 'whsec_abc';
    expect(() => verifyStripeSignature({ body, header: stripeSignatureHeader({ body, secret, timestamp: t }), secret, now })).not.toThrow();
    expect(() => verifyStripeSignature({ body, header: stripeSignatureHeader({ body, secret: 'whsec_forged', timestamp: t }), secret, now })).toThrow(WebhookRejectedError);
    expect(() => verifyStripeSignature({ body: body.replace('paid', 'void'), header: stripeSignatureHeader({ body, secret, timestamp: t }), secret, now })).toThrow(/No signature matches/);
    expect(() => verifyStripeSignature({ body, header: stripeSignatureHeader({ body, secret, timestamp: t - 301 }), secret, now })).toThrow(/tolerance/);
    expect(() => verifyStripeSignature({ body, header: null, secret, now })).toThrow(/No Stripe-Signature/);
    expect(() => verifyStripeSignature({ body, header: 'garbage', secret, now })).toThrow(/Malformed/);
  });
});

describe('billing with the Stripe stand-in', () => {
  it('runs the lifecycle: card, start, second card, change with proration, invoices, cancel, resume', async () => {
    const s = await setup();
    // The trial banner's account sees My Plan with the plans to compare.
    const page = await s.get('/settings/my-plan');
    expect(page.status).toBe(200);
    expect(page.text).toContain('days left in your trial');
    expect(page.text).toContain('Growth');

    // Starting without a card is refused with words.
    const noCard = await s.post('/settings/my-plan', { intent: 'start', plan: 'starter', interval: 'month', seats: '1' });
    expect(noCard.status).toBe(409);
    expect(noCard.text).toContain('Add a card before starting a subscription.');

    const added = await addCard(s);
    expect(added.headers.location).toBe('/settings/my-plan');
    const cards = await getDb().select().from(schema.billingPaymentMethods).where(eq(schema.billingPaymentMethods.accountId, s.account.id));
    expect(cards).toMatchObject([{ last4: '4242', brand: 'visa', isDefault: true }]);

    // calculateamount before starting: 2 seats of Starter monthly.
    const quote = await s.get('/settings/my-plan?plan=starter&interval=month&seats=2');
    expect(quote.text).toContain('$38.00');
    const started = await s.post('/settings/my-plan', { intent: 'start', plan: 'starter', interval: 'month', seats: '2' });
    expect(started.status).toBe(302);
    const acc = await accountOf(s.account.id);
    expect(acc.subscriptionStatus).toBe('active');
    const sub = await subscriptionOf(s.account.id);
    expect(sub).toMatchObject({ seats: 2, interval: 'month', status: 'active' });
    // Every POST carried an idempotency key and the pinned version.
    expect(stripe.requests.filter((r) => r.method === 'POST').every((r) => r.idempotencyKey && r.version === STRIPE_API_VERSION)).toBe(true);
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(false);

    // A second card, made the default.
    await addCard(s, '5555555555554444');
    const second = (await getDb().select().from(schema.billingPaymentMethods).where(and(eq(schema.billingPaymentMethods.accountId, s.account.id), eq(schema.billingPaymentMethods.last4, '4444'))))[0];
    expect(second.isDefault).toBe(false);
    expect((await s.post('/settings/my-plan', { intent: 'default-card', paymentMethodId: String(second.id) })).status).toBe(302);
    const customer = stripe.customers.get((await getDb().select().from(schema.billingCustomers).where(eq(schema.billingCustomers.accountId, s.account.id)))[0].providerCustomerId)!;
    expect(customer.invoice_settings.default_payment_method).toBe(second.providerPaymentMethodId);

    // Change to Growth with 3 seats: the proration is shown before confirming.
    const preview = await s.get('/settings/my-plan?plan=growth&interval=month&seats=3');
    expect(preview.text).toContain('data-testid="proration"');
    expect(preview.text).toMatch(/Proration for the rest of this period: <strong>\$1(0[0-9]|09)\.\d\d<\/strong>/);
    expect((await s.post('/settings/my-plan', { intent: 'change', plan: 'growth', interval: 'month', seats: '3' })).status).toBe(302);
    expect(await subscriptionOf(s.account.id)).toMatchObject({ seats: 3 });
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(true);

    // Invoices: sequential numbers, page, PDF.
    await stripe.settled();
    const list = await s.get('/settings/invoices?index');
    expect(list.status).toBe(200);
    const invoices = await getDb().select().from(schema.billingInvoices).where(eq(schema.billingInvoices.accountId, s.account.id)).orderBy(schema.billingInvoices.number);
    expect(invoices).toHaveLength(2);
    expect(invoices[1].number).toBe(invoices[0].number + 1);
    expect(invoices[1].lines.some((l) => l.proration)).toBe(true);
    const detail = await s.get(`/settings/invoices/${invoices[0].id}`);
    expect(detail.text).toContain('$38.00');
    const pdf = await s.get(`/settings/invoices/${invoices[0].id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.text.startsWith('%PDF-')).toBe(true);

    // Cancel at the period's end, then resume.
    expect((await s.post('/settings/my-plan', { intent: 'cancel' })).status).toBe(302);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('cancelled');
    expect((await subscriptionOf(s.account.id)).cancelAtPeriodEnd).toBe(true);
    expect((await s.post('/settings/my-plan', { intent: 'cancel' })).status).toBe(409);
    expect((await s.post('/settings/my-plan', { intent: 'resume' })).status).toBe(302);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('active');

    // Every action is a domain event with the owner as actor (the audit trail).
    const events = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, s.account.id)).orderBy(schema.domainEvents.id);
    const types = events.map((e) => e.type);
    for (const t of ['billing_card_added', 'billing_default_card_changed', 'billing_subscription_started', 'billing_subscription_changed', 'billing_subscription_cancelled', 'billing_subscription_resumed'])
      expect(types).toContain(t);
  });

  it('moves a failed renewal to past_due, emails the owner, and falls back to the free features after the grace period', async () => {
    const s = await setup();
    await addCard(s);
    await s.post('/settings/my-plan', { intent: 'start', plan: 'growth', interval: 'month', seats: '1' });
    const sub = await subscriptionOf(s.account.id);
    const pm = (await getDb().select().from(schema.billingPaymentMethods).where(eq(schema.billingPaymentMethods.accountId, s.account.id)))[0];
    await stripe.settled();
    stripe.declineCard(pm.providerPaymentMethodId);
    await stripe.renew(sub.providerSubscriptionId);
    const acc = await accountOf(s.account.id);
    expect(acc.subscriptionStatus).toBe('past_due');
    expect(acc.pastDueSince).not.toBeNull();
    // Still in the grace period: Growth's features.
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(true);
    const banner = await s.get('/settings/my-plan');
    expect(banner.text).toContain('Your last payment failed');
    const mails = await getDb().select().from(schema.outboundEmails).where(eq(schema.outboundEmails.accountId, s.account.id));
    expect(mails.map((m) => m.subject)).toContain('Your Parley payment failed');
    // Past the grace period (7 days by default): the free plan's features; nothing deleted.
    await getDb().update(schema.accounts).set({ pastDueSince: new Date(Date.now() - 8 * 86_400_000) }).where(eq(schema.accounts.id, s.account.id));
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(false);
    expect(await accountHasFeature({ accountId: s.account.id, key: 'conversation/enabled' })).toBe(true);
    // Paying again with the declined card is refused; a new default card pays the open invoice and brings the plan back.
    const again = await s.post('/settings/my-plan', { intent: 'pay' });
    expect(again.status).toBe(402);
    expect(again.text).toContain('The payment was declined');
    await addCard(s, '5555555555554444');
    const fresh = (await getDb().select().from(schema.billingPaymentMethods).where(and(eq(schema.billingPaymentMethods.accountId, s.account.id), eq(schema.billingPaymentMethods.last4, '4444'))))[0];
    await s.post('/settings/my-plan', { intent: 'default-card', paymentMethodId: String(fresh.id) });
    expect((await s.post('/settings/my-plan', { intent: 'pay' })).status).toBe(302);
    await stripe.settled();
    expect(await accountOf(s.account.id)).toMatchObject({ subscriptionStatus: 'active', pastDueSince: null });
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(true);
    // The subscription ends for good: expired, still the free features.
    await stripe.end(sub.providerSubscriptionId);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('expired');
    expect(await accountHasFeature({ accountId: s.account.id, key: 'workflowAutomation/slaManagement' })).toBe(false);
  });

  it('refuses forged and replayed webhooks and applies a duplicate delivery once', async () => {
    const s = await setup();
    await addCard(s);
    await s.post('/settings/my-plan', { intent: 'start', plan: 'starter', interval: 'month', seats: '1' });
    await stripe.settled();
    const sub = stripe.subscriptions.get((await subscriptionOf(s.account.id)).providerSubscriptionId)!;
    const event = stripe.event('customer.subscription.updated', { ...sub, cancel_at_period_end: true });
    expect(await stripe.deliver(event, { secret: 'whsec_forged' })).toBe(400);
    expect(await stripe.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 })).toBe(400);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('active');
    expect(await stripe.deliver(event)).toBe(200);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('cancelled');
    // Someone resumes; the old delivery arrives again: it changes nothing.
    await s.post('/settings/my-plan', { intent: 'resume' });
    await stripe.settled();
    expect(await stripe.deliver(event)).toBe(200);
    expect((await accountOf(s.account.id)).subscriptionStatus).toBe('active');
    const paid = [...stripe.invoices.values()].find((i) => i.customer === sub.customer)!;
    const invoiceEvent = stripe.event('invoice.paid', paid);
    await stripe.deliver(invoiceEvent);
    await stripe.deliver(invoiceEvent);
    expect(await getDb().select().from(schema.billingInvoices).where(eq(schema.billingInvoices.accountId, s.account.id))).toHaveLength(1);
  });

  it('enforces seats, keeps the last card of a subscription, and validates the address', async () => {
    const s = await setup();
    await addCard(s);
    await s.post('/settings/my-plan', { intent: 'start', plan: 'starter', interval: 'month', seats: '2' });
    await createTestUser({ accountId: s.account.id });
    const invite = await s.post('/settings/users?index', { intent: 'invite', email: 'third@example.test', firstName: 'Third', lastName: 'Agent', roleId: String((await getDb().select().from(schema.roles).where(and(eq(schema.roles.accountId, s.account.id), eq(schema.roles.kind, 'agent'))))[0].id) });
    expect(invite.status).toBe(409);
    expect(invite.text).toContain('Your subscription has 2 seats, all taken');
    const fewer = await s.get('/settings/my-plan?plan=starter&interval=month&seats=1');
    expect(fewer.text).toContain('This account has 2 agents: choose at least 2 seats');

    const card = (await getDb().select().from(schema.billingPaymentMethods).where(eq(schema.billingPaymentMethods.accountId, s.account.id)))[0];
    const del = await s.post('/settings/my-plan', { intent: 'delete-card', paymentMethodId: String(card.id) });
    expect(del.status).toBe(409);
    expect(del.text).toContain('This is the only card of an active subscription');

    const bad = await s.post('/settings/my-plan', { intent: 'address', name: 'Acme', line1: '1 Main St', city: 'Berlin', postalCode: '10115', country: 'Germany', taxId: '!' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Country must be a two-letter ISO code');
    expect(bad.text).toContain('1 Main St');
    const good = await s.post('/settings/my-plan', { intent: 'address', name: 'Acme GmbH', line1: '1 Main St', city: 'Berlin', postalCode: '10115', country: 'de', taxId: 'DE123456789' });
    expect(good.status).toBe(302);
    const customer = (await getDb().select().from(schema.billingCustomers).where(eq(schema.billingCustomers.accountId, s.account.id)))[0];
    expect(customer).toMatchObject({ country: 'DE', taxId: 'DE123456789' });
    expect(stripe.customers.get(customer.providerCustomerId)!.address).toMatchObject({ country: 'DE', city: 'Berlin' });
  });

  it('keeps accounts apart and billing to the owner', async () => {
    const a = await setup();
    const { setupId } = await addCard(a);
    await a.post('/settings/my-plan', { intent: 'start', plan: 'starter', interval: 'month', seats: '1' });
    await stripe.settled();
    await a.get('/settings/invoices?index');
    const invoice = (await getDb().select().from(schema.billingInvoices).where(eq(schema.billingInvoices.accountId, a.account.id)))[0];
    const card = (await getDb().select().from(schema.billingPaymentMethods).where(eq(schema.billingPaymentMethods.accountId, a.account.id)))[0];

    const b = await setup();
    expect((await b.get(`/settings/invoices/${invoice.id}`)).status).toBe(404);
    expect((await b.get(`/settings/invoices/${invoice.id}/pdf`)).status).toBe(404);
    // An id past PostgreSQL's integer names no invoice either (not the database's error).
    expect((await b.get('/settings/invoices/99999999999')).status).toBe(404);
    expect((await b.get('/settings/invoices/2147483648/pdf')).status).toBe(404);
    expect((await b.post('/settings/my-plan', { intent: 'delete-card', paymentMethodId: String(card.id) })).status).toBe(404);
    expect((await b.post('/settings/my-plan', { intent: 'default-card', paymentMethodId: String(card.id) })).status).toBe(404);
    expect((await b.post('/settings/my-plan', { intent: 'cancel' })).status).toBe(409);
    expect((await subscriptionOf(a.account.id)).cancelAtPeriodEnd).toBe(false);
    // A card setup of account A cannot be claimed by B, even once B has a customer of its own.
    await b.post('/settings/my-plan', { intent: 'add-card' });
    const claim = await b.get(`/settings/my-plan/card?session_id=${setupId}`);
    expect(claim.status).toBe(302);
    expect(await getDb().select().from(schema.billingPaymentMethods).where(eq(schema.billingPaymentMethods.accountId, b.account.id))).toHaveLength(0);

    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'admin' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    expect((await a.get('/settings/invoices', agentCookie)).status).toBe(403);
    expect((await a.post('/settings/my-plan', { intent: 'cancel' }, agentCookie)).status).toBe(403);
    const readOnly = await a.get('/settings/my-plan', agentCookie);
    expect(readOnly.status).toBe(200);
    expect(readOnly.text).toContain('The account owner manages the subscription');
  });

  it('with billing off, no billing route is reachable', async () => {
    const s = await setup();
    configure({ PARLEY_BILLING: 'off' });
    try {
      expect((await s.get('/settings/invoices?index')).status).toBe(404);
      expect((await s.get('/settings/invoices/1')).status).toBe(404);
      expect((await s.get('/settings/invoices/1/pdf')).status).toBe(404);
      expect((await s.get('/settings/my-plan/card?session_id=cs_x')).status).toBe(404);
      expect((await s.post('/settings/my-plan', { intent: 'add-card' })).status).toBe(404);
      expect((await app.request('/webhooks/stripe', { method: 'POST', form: { a: 'b' }, origin: null })).status).toBe(404);
      const page = await s.get('/settings/my-plan');
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Payment methods');
      expect(page.text).not.toContain('Invoices</a>');
    } finally {
      configure({ PARLEY_BILLING: 'on' });
    }
  });
});
