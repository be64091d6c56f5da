import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import type { z } from 'zod';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { canManageBilling, requireBilling } from '~/models/billing/access.server';
import {
  BillingError,
  changeSubscription,
  countSeatHolders,
  deleteCard,
  getBillingAddress,
  getSubscription,
  listPaymentMethods,
  listSellablePlans,
  payOpenInvoice,
  quoteSubscription,
  setDefaultCard,
  setSubscriptionCancelled,
  startCardSetup,
  startSubscription,
  updateBillingAddress,
  type Quote,
} from '~/models/billing/billing.server';
import { formatMoney } from '~/models/billing/money';
import { getBillingProvider } from '~/models/billing/provider.server';
import { BillingAddressSchema, CardIdSchema, PlanChoiceSchema } from '~/models/billing/schemas';
import { FEATURE_AREAS } from '~/models/plans/catalogue';
import { trialBanner } from '~/models/shell/trial';
import { parseWithZod } from '~/utils/conform.server';
import { getConfig } from '~/utils/env.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser, requireUser } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/my-plan';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const base = {
    user: publicUser(ctx),
    plan: ctx.plan,
    status: ctx.account.subscriptionStatus,
    trialEndsAt: getConfig().billing ? (ctx.account.trialEndsAt?.toISOString() ?? null) : null,
    trial: trialBanner(ctx.account, { billing: getConfig().billing }),
  };
  // Billing off, or not the owner: the plan and its features only (ADR 074).
  if (!canManageBilling(ctx)) return { ...base, billing: null, ownerOnly: getConfig().billing };
  const accountId = ctx.account.id;
  const [plans, current, cards, address, seatHolders] = await Promise.all([
    listSellablePlans(),
    getSubscription({ accountId }),
    listPaymentMethods({ accountId }),
    getBillingAddress({ accountId }),
    countSeatHolders({ accountId }),
  ]);
  // `calculateamount`: a chosen plan, period and seats, priced (and for a change, prorated) before confirming.
  const url = new URL(request.url);
  let quote: Quote | null = null;
  let quoteError: string | null = null;
  if (url.searchParams.has('plan')) {
    const parsed = PlanChoiceSchema.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) quoteError = parsed.error.issues[0].message;
    else {
      try {
        quote = await quoteSubscription({ accountId, planKey: parsed.data.plan, interval: parsed.data.interval, seats: parsed.data.seats });
      } catch (err) {
        if (!(err instanceof BillingError)) throw err;
        quoteError = err.message;
      }
    }
  }
  const sub = current && current.subscription.status !== 'expired' ? current : null;
  return {
    ...base,
    ownerOnly: false,
    billing: {
      providerReady: getBillingProvider() !== null,
      plans: plans.map((p) => ({ key: p.key, name: p.name, currency: p.currency, month: p.seatPriceMonthly, year: p.seatPriceYearly, features: p.features })),
      subscription: sub
        ? {
            planKey: sub.plan.key,
            planName: sub.plan.name,
            interval: sub.subscription.interval,
            seats: sub.subscription.seats,
            status: sub.subscription.status,
            cancelAtPeriodEnd: sub.subscription.cancelAtPeriodEnd,
            periodEnd: sub.subscription.currentPeriodEnd.toISOString(),
          }
        : null,
      cards: cards.map((c) => ({ id: c.id, brand: c.brand, last4: c.last4, exp: `${String(c.expMonth).padStart(2, '0')}/${c.expYear}`, isDefault: c.isDefault })),
      address: address ? { name: address.name, line1: address.line1, line2: address.line2, city: address.city, postalCode: address.postalCode, state: address.state, country: address.country, taxId: address.taxId } : null,
      seatHolders,
      choice: { plan: url.searchParams.get('plan') ?? sub?.plan.key ?? plans[0]?.key ?? '', interval: url.searchParams.get('interval') ?? sub?.subscription.interval ?? 'month', seats: url.searchParams.get('seats') ?? String(Math.max(seatHolders, sub?.subscription.seats ?? 1)) },
      quote,
      quoteError,
    },
  };
}

type ActionResult = { intent: string; error?: string; result?: SubmissionResult<string[]> };

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireBilling(request);
  const who = { accountId: ctx.account.id, userId: ctx.user.id };
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  try {
    switch (intent) {
      case 'add-card': {
        const setup = await startCardSetup({ accountId: who.accountId, baseUrl: accountUrl(request, ctx.account.domain, '') });
        // The provider's own page takes the card number; Parley gets the card back on /settings/my-plan/card.
        return redirect(setup.url);
      }
      case 'default-card':
      case 'delete-card': {
        const parsed = CardIdSchema.safeParse(Object.fromEntries(formData));
        if (!parsed.success) return data<ActionResult>({ intent, error: 'Unknown card' }, { status: 400 });
        if (intent === 'default-card') {
          await setDefaultCard({ ...who, paymentMethodId: parsed.data.paymentMethodId });
          return redirectWithToast(PATH, 'Default card updated');
        }
        await deleteCard({ ...who, paymentMethodId: parsed.data.paymentMethodId });
        return redirectWithToast(PATH, 'Card Deleted');
      }
      case 'address': {
        const submission = parseWithZod(formData, { schema: BillingAddressSchema });
        if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
        await updateBillingAddress({ ...who, address: submission.value });
        return redirectWithToast(PATH, 'Billing Address Updated');
      }
      case 'start':
      case 'change': {
        const parsed = PlanChoiceSchema.safeParse(Object.fromEntries(formData));
        if (!parsed.success) return data<ActionResult>({ intent, error: parsed.error.issues[0].message }, { status: 400 });
        const choice = { ...who, planKey: parsed.data.plan, interval: parsed.data.interval, seats: parsed.data.seats };
        if (intent === 'start') await startSubscription(choice);
        else await changeSubscription(choice);
        return redirectWithToast(PATH, intent === 'start' ? 'Subscription Started' : 'Subscription Updated');
      }
      case 'pay':
        await payOpenInvoice(who);
        return redirectWithToast(PATH, 'Subscription Updated');
      case 'cancel':
      case 'resume':
        await setSubscriptionCancelled({ ...who, cancel: intent === 'cancel' });
        return redirectWithToast(PATH, intent === 'cancel' ? 'Subscription Cancelled' : 'Subscription Resumed');
      default:
        return data<ActionResult>({ intent, error: 'Unknown action' }, { status: 400 });
    }
  } catch (err) {
    if (err instanceof BillingError) return data<ActionResult>({ intent, error: err.message }, { status: err.status });
    throw err;
  }
}

export const handle = { breadcrumb: 'My Plan' };

type Billing = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>['billing']>;

export default function MyPlan() {
  const { user, plan, status, trialEndsAt, trial, billing, ownerOnly } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <SettingsPage title="My Plan" subHeader="Your subscription and the features it includes.">
      <div className="stack">
        <p>
          Plan: <strong data-testid="plan-name">{plan.name}</strong> · Status:{' '}
          <span className="pill" data-testid="subscription-status">
            {status}
          </span>
          {trialEndsAt && status === 'trialing' ? ` · Trial ends ${formatDate(trialEndsAt, user)}` : ''}
        </p>
        {trial ? <p data-testid="plan-banner">{trial.text}</p> : null}
        {actionData?.error ? (
          <p className="form-error" role="alert" data-testid="action-error">
            {actionData.error}
          </p>
        ) : null}
        {billing ? <BillingPanels billing={billing} user={user} /> : ownerOnly ? <p className="muted">The account owner manages the subscription and payment.</p> : null}
        <h2>Included in your plan</h2>
        <FeatureTable features={plan.features} />
      </div>
    </SettingsPage>
  );
}

function BillingPanels({ billing, user }: { billing: Billing; user: Parameters<typeof formatDate>[1] }) {
  const sub = billing.subscription;
  if (!billing.providerReady) return <p className="form-error">Online payment is not configured on this installation. Ask its administrator to set STRIPE_SECRET_KEY.</p>;
  return (
    <>
      <section className="card stack" aria-labelledby="sub-title">
        <h2 id="sub-title">Subscription</h2>
        {sub ? (
          <>
            <p data-testid="subscription-summary">
              {sub.planName}, {sub.seats} {sub.seats === 1 ? 'seat' : 'seats'}, billed {sub.interval === 'year' ? 'yearly' : 'monthly'}.{' '}
              {sub.cancelAtPeriodEnd ? `Cancelled: ends on ${formatDate(sub.periodEnd, user)}.` : `Renews on ${formatDate(sub.periodEnd, user)}.`}
            </p>
            {sub.status === 'past_due' ? (
              <Form method="post" className="row">
                <button type="submit" className="btn btn-primary" name="intent" value="pay">
                  Pay now with the default card
                </button>
              </Form>
            ) : null}
            {sub.cancelAtPeriodEnd ? (
              <Form method="post" className="row">
                <button type="submit" className="btn btn-primary" name="intent" value="resume">
                  Resume subscription
                </button>
              </Form>
            ) : (
              <div className="row">
                <DeleteConfirm id="cancel-sub" intent="cancel" label="Cancel subscription" title="Cancel subscription" text="The subscription ends at the end of the period already paid. You can resume it until then." confirmLabel="Cancel subscription" />
              </div>
            )}
          </>
        ) : (
          <p className="muted">No subscription yet. Choose a plan below{billing.cards.length === 0 ? ' after adding a card' : ''}.</p>
        )}
        <PlanCompare billing={billing} />
      </section>
      <PaymentMethods billing={billing} />
      <AddressForm billing={billing} />
      <p>
        <Link to="/settings/invoices">Invoices</Link>
      </p>
    </>
  );
}

function PlanCompare({ billing }: { billing: Billing }) {
  const { choice, quote, quoteError, subscription } = billing;
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="plan-compare">
          <thead>
            <tr>
              <th>Plan</th>
              <th>Per seat, monthly</th>
              <th>Per seat, yearly</th>
              <th>Includes</th>
            </tr>
          </thead>
          <tbody>
            {billing.plans.map((p) => (
              <tr key={p.key}>
                <td>
                  <strong>{p.name}</strong>
                  {subscription?.planKey === p.key ? <span className="pill pill-ok"> current</span> : null}
                </td>
                <td>{formatMoney(p.month, p.currency)}</td>
                <td>{formatMoney(p.year, p.currency)}</td>
                <td>{Object.entries(p.features).filter(([, f]) => f.enabled === true).map(([area]) => area).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Form method="get" className="row" aria-label="Choose a plan">
        <label htmlFor="choice-plan">Plan</label>
        <select id="choice-plan" name="plan" defaultValue={choice.plan}>
          {billing.plans.map((p) => (
            <option key={p.key} value={p.key}>
              {p.name}
            </option>
          ))}
        </select>
        <label htmlFor="choice-interval">Billing</label>
        <select id="choice-interval" name="interval" defaultValue={choice.interval}>
          <option value="month">Monthly</option>
          <option value="year">Yearly</option>
        </select>
        <label htmlFor="choice-seats">Seats</label>
        <input id="choice-seats" name="seats" type="number" min={billing.seatHolders} defaultValue={choice.seats} style={{ width: '6rem' }} />
        <button type="submit" className="btn">
          Calculate amount
        </button>
      </Form>
      {quoteError ? (
        <p className="form-error" role="alert" data-testid="quote-error">
          {quoteError}
        </p>
      ) : null}
      {quote ? (
        <Form method="post" className="card stack" data-testid="quote">
          <p>
            {quote.planName}, {quote.seats} {quote.seats === 1 ? 'seat' : 'seats'}: <strong>{formatMoney(quote.perPeriod, quote.currency)}</strong> per {quote.interval}.
          </p>
          {quote.proration !== null ? (
            <p data-testid="proration">
              Proration for the rest of this period: <strong>{formatMoney(quote.proration, quote.currency)}</strong>. Charged now: <strong>{formatMoney(quote.dueNow, quote.currency)}</strong>.
            </p>
          ) : (
            <p>Charged now: {formatMoney(quote.dueNow, quote.currency)}.</p>
          )}
          <input type="hidden" name="plan" value={quote.planKey} />
          <input type="hidden" name="interval" value={quote.interval} />
          <input type="hidden" name="seats" value={quote.seats} />
          <div className="row">
            <button type="submit" className="btn btn-primary" name="intent" value={subscription ? 'change' : 'start'} disabled={!subscription && billing.cards.length === 0}>
              {subscription ? 'Confirm change' : 'Start subscription'}
            </button>
            <Link to="/settings/my-plan" className="btn">
              Cancel
            </Link>
          </div>
        </Form>
      ) : null}
    </>
  );
}

function PaymentMethods({ billing }: { billing: Billing }) {
  return (
    <section className="card stack" aria-labelledby="cards-title">
      <h2 id="cards-title">Payment methods</h2>
      {billing.cards.length === 0 ? <p className="muted">No card yet.</p> : null}
      <ul className="stack" data-testid="cards">
        {billing.cards.map((c) => (
          <li key={c.id} className="row" data-card={c.last4}>
            <span>
              {c.brand} •••• {c.last4} · expires {c.exp}
            </span>
            {c.isDefault ? (
              <span className="pill pill-ok">Default</span>
            ) : (
              <Form method="post">
                <input type="hidden" name="paymentMethodId" value={c.id} />
                <button type="submit" className="btn" name="intent" value="default-card">
                  Make default
                </button>
              </Form>
            )}
            <DeleteConfirm id={`card-${c.id}`} intent="delete-card" fields={{ paymentMethodId: String(c.id) }} />
          </li>
        ))}
      </ul>
      <Form method="post">
        <button type="submit" className="btn" name="intent" value="add-card">
          Add card
        </button>
        <small className="muted"> Your card is entered on the payment provider's page; Parley never sees its number.</small>
      </Form>
    </section>
  );
}

function AddressForm({ billing }: { billing: Billing }) {
  const actionData = useActionData<typeof action>();
  const a = billing.address;
  const [form, fields] = useForm<z.input<typeof BillingAddressSchema>>({
    id: 'address',
    defaultValue: a ?? {},
    lastResult: actionData?.intent === 'address' ? actionData.result : undefined,
    shouldValidate: 'onSubmit',
  });
  return (
    <section className="card" aria-labelledby="address-title">
      <h2 id="address-title">Billing address</h2>
      <Form method="post" {...getFormProps(form)} className="stack">
        <Field label="Name or company" field={fields.name} autoComplete="organization" />
        <Field label="Address" field={fields.line1} autoComplete="address-line1" />
        <Field label="Address line 2" field={fields.line2} autoComplete="address-line2" />
        <Field label="City" field={fields.city} autoComplete="address-level2" />
        <Field label="Postal code" field={fields.postalCode} autoComplete="postal-code" />
        <Field label="State or region" field={fields.state} autoComplete="address-level1" />
        <Field label="Country (two letters)" field={fields.country} autoComplete="country" maxLength={2} />
        <Field label="Tax ID" field={fields.taxId} hint="VAT, GST or other tax number, printed on invoices." />
        <button type="submit" className="btn btn-primary" name="intent" value="address">
          Save address
        </button>
      </Form>
    </section>
  );
}

function FeatureTable({ features }: { features: Record<string, Record<string, boolean | number>> }) {
  return (
    <table className="table">
      <thead>
        <tr>
          <th>Area</th>
          <th>Included</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(FEATURE_AREAS).map(([area, flags]) => (
          <tr key={area}>
            <td>{area}</td>
            <td>
              {flags
                .filter((f) => features[area]?.[f] === true)
                .map((f) => (
                  <span key={f} className="pill pill-ok" style={{ marginRight: 4 }}>
                    {f}
                  </span>
                ))}
              {typeof features[area]?.advanceWorkflowsLimit === 'number' ? <span className="pill">workflows ≤ {String(features[area].advanceWorkflowsLimit)}</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('My Plan', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
