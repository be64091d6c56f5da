import { getFormProps, useForm, type FormMetadata } from '@conform-to/react';
import type { ReactNode } from 'react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import type { z, ZodType } from 'zod';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField, TextareaField } from '~/components/ui/forms';
import { getConversation } from '~/models/inbox/conversations.server';
import { createGithubIssueFromConversation, githubPanelFor, linkGithubIssue } from '~/models/integrations/github/github.server';
import { IntegrationError } from '~/models/integrations/http.server';
import { LinkExistsError } from '~/models/integrations/links.server';
import {
  BigcommerceOrderActionSchema,
  GithubIssueSchema,
  GithubLinkSchema,
  HubspotContactSchema,
  HubspotDealSchema,
  OrderActionSchema,
  PipedriveDealSchema,
} from '~/models/integrations/schemas';
import { PIPEDRIVE_VISIBILITY } from '~/models/integrations/constants';
import { getContactShopifyOrder, ORDER_ACTIONS, runShopifyOrderAction } from '~/models/integrations/shopify/shopify.server';
import {
  cancelContactBigcommerceOrder,
  getContactBigcommerceOrder,
  quoteContactBigcommerceRefund,
  refundContactBigcommerceOrder,
} from '~/models/integrations/bigcommerce/bigcommerce.server';
import { createPipedriveDealFromConversation, findOrCreatePipedrivePerson, logConversationToPipedrive, pipedriveDealChoices } from '~/models/integrations/pipedrive/pipedrive.server';
import { createHubspotDeal, findOrCreateHubspotContact, hubspotDealChoices, logConversationToHubspot } from '~/models/integrations/hubspot/hubspot.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { accountUrl, bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * /inbox/{id}/integrations: what an agent does at a provider from a conversation (ADR 078-080), each a plain page:
 * confirm an order action (?order=&do=cancel|refund), create or link a GitHub issue (?github=create), and the
 * POSTs behind them. perform_data_specific_action and the plan's integrations area, checked first.
 */
async function guard(request: Request, param: string | undefined) {
  const ctx = await requirePermission(request, 'perform_data_specific_action');
  await requireFeature(request, 'integrations/enabled', ctx);
  const id = parseRouteId(param);
  const found = id === null ? undefined : await getConversation({ accountId: ctx.account.id, id });
  if (!found) throw new Response('Not Found', { status: 404 });
  return { ctx, found, id: found.conversation.id };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, found, id } = await guard(request, params.conversationId);
  const url = new URL(request.url);
  const orderId = parseRouteId(url.searchParams.get('order') ?? undefined);
  const act = url.searchParams.get('do');
  const base = { conversationId: id, subject: found.conversation.subject ?? '' };
  if (orderId !== null && (act === 'cancel' || act === 'refund')) {
    const order = await getContactShopifyOrder({ accountId: ctx.account.id, email: found.contact?.email ?? null, orderId });
    if (!order) throw new Response("This order is not one of the contact's Shopify orders", { status: 404 });
    return { ...base, view: 'order' as const, order, act, actLabel: ORDER_ACTIONS[act] };
  }
  const bcOrderId = parseRouteId(url.searchParams.get('bcorder') ?? undefined);
  if (bcOrderId !== null && act === 'cancel') {
    const order = await getContactBigcommerceOrder({ accountId: ctx.account.id, email: found.contact?.email ?? null, orderId: bcOrderId });
    if (!order) throw new Response("This order is not one of the contact's BigCommerce orders", { status: 404 });
    return { ...base, view: 'bigcommerce-order' as const, order };
  }
  if (bcOrderId !== null && act === 'refund') {
    const quoted = await quoteContactBigcommerceRefund({ accountId: ctx.account.id, email: found.contact?.email ?? null, orderId: bcOrderId }).catch((err) => {
      if (err instanceof IntegrationError) throw new Response(err.message, { status: err.status === 0 ? 404 : err.status >= 400 && err.status < 500 ? 422 : 502 });
      throw err;
    });
    if (!quoted) throw new Response("This order is not one of the contact's BigCommerce orders", { status: 404 });
    return { ...base, view: 'bigcommerce-refund' as const, ...quoted };
  }
  if (url.searchParams.get('pipedrive') === 'deal') return { ...base, view: 'pipedrive-deal' as const, ...(await choicesOf(pipedriveDealChoices({ accountId: ctx.account.id }))) };
  if (url.searchParams.get('hubspot') === 'deal') return { ...base, view: 'hubspot-deal' as const, ...(await choicesOf(hubspotDealChoices({ accountId: ctx.account.id }))) };
  if (url.searchParams.get('github') === 'create') {
    const gh = await githubPanelFor({ accountId: ctx.account.id, conversationId: id });
    if (!gh.connected) throw new Response('GitHub is not connected', { status: 404 });
    return { ...base, view: 'github' as const, defaultRepo: gh.defaultRepo, reopenOnClose: gh.reopenOnClose };
  }
  throw redirect(`/inbox/${id}`);
}

/** A deal form's choices from the provider; not connected is a 404, a provider failure a 502, with its words. */
function choicesOf<T>(read: Promise<T>) {
  return read.catch((err) => {
    if (err instanceof IntegrationError) throw new Response(err.message, { status: err.status === 0 ? 404 : 502 });
    throw err;
  });
}

type Parsed<S extends ZodType> = { status: 'success'; value: z.output<S> };

/**
 * A form of this page: parsed on the server (400 with the field errors), then run; the provider's refusal (or a link
 * that exists) becomes a form error with the agent's input shown back.
 */
async function formIntent<S extends ZodType>(intent: string, formData: FormData, schema: S, run: (value: z.output<S>) => Promise<Response>) {
  const submission = parseWithZod(formData, { schema });
  if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
  try {
    return await run((submission as unknown as Parsed<S>).value);
  } catch (err) {
    if (err instanceof IntegrationError || err instanceof LinkExistsError) return data({ intent, result: submission.reply({ formErrors: [err.message] }) }, { status: 400 });
    throw err;
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, found, id } = await guard(request, params.conversationId);
  const back = `/inbox/${id}`;
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  const who = { accountId: ctx.account.id, userId: ctx.user.id, conversationId: id };
  try {
    if (intent === 'order-action') {
      const submission = parseWithZod(formData, { schema: OrderActionSchema });
      if (submission.status !== 'success') throw new Response('Choose an order and an action', { status: 400 });
      const out = await runShopifyOrderAction({
        ...who,
        userName: `${ctx.user.firstName} ${ctx.user.lastName}`.trim(),
        email: found.contact?.email ?? null,
        ...submission.value,
      });
      return redirectWithToast(back, out.text.split(' by ')[0]);
    }
    if (intent === 'bigcommerce-order-action') {
      const submission = parseWithZod(formData, { schema: BigcommerceOrderActionSchema });
      if (submission.status !== 'success') throw new Response('Choose an order and an action', { status: 400 });
      const opts = { ...who, userName: `${ctx.user.firstName} ${ctx.user.lastName}`.trim(), email: found.contact?.email ?? null, orderId: submission.value.orderId };
      const out = submission.value.action === 'refund' ? await refundContactBigcommerceOrder({ ...opts, method: submission.value.method }) : await cancelContactBigcommerceOrder(opts);
      return redirectWithToast(back, out.text.split(' by ')[0]);
    }
    if (intent === 'pipedrive-person') {
      await findOrCreatePipedrivePerson(who);
      return redirectWithToast(back, 'Pipedrive Person Ready');
    }
    if (intent === 'pipedrive-log') {
      await logConversationToPipedrive({ ...who, subject: found.conversation.subject ?? '', conversationUrl: accountUrl(request, ctx.account.domain, back) });
      return redirectWithToast(back, 'Conversation Logged to Pipedrive');
    }
    if (intent === 'pipedrive-deal')
      return formIntent(intent, formData, PipedriveDealSchema, async (v) => {
        await createPipedriveDealFromConversation({ ...who, title: v.title, pipelineId: v.pipelineId, stageId: v.stageId, ownerId: v.ownerId ?? null, value: v.value ?? null, closeDate: v.closeDate ?? null, visibleTo: v.visibleTo ? Number(v.visibleTo) : null });
        return redirectWithToast(back, 'Deal Created in Pipedrive');
      });
    if (intent === 'hubspot-contact') {
      const submission = parseWithZod(formData, { schema: HubspotContactSchema });
      if (submission.status !== 'success') throw new Response('Choose a lead status', { status: 400 });
      const out = await findOrCreateHubspotContact({ ...who, leadStatus: submission.value.leadStatus ?? null });
      return redirectWithToast(back, out.text);
    }
    if (intent === 'hubspot-log') {
      await logConversationToHubspot({ ...who, conversationUrl: accountUrl(request, ctx.account.domain, back) });
      return redirectWithToast(back, 'Conversation Logged to HubSpot');
    }
    if (intent === 'hubspot-deal')
      return formIntent(intent, formData, HubspotDealSchema, async (v) => {
        await createHubspotDeal({ ...who, dealName: v.dealName, pipeline: v.pipeline, dealStage: v.dealStage, closeDate: v.closeDate ?? null, ownerId: v.ownerId || null, amount: v.amount ?? null });
        return redirectWithToast(back, 'Deal Created in HubSpot');
      });
    const publicBase = bareUrl(request, '').replace(/\/$/, '');
    if (intent === 'github-create')
      return formIntent(intent, formData, GithubIssueSchema, async (v) => {
        const issue = await createGithubIssueFromConversation({
          ...who,
          ...v,
          assignee: v.assignee || null,
          reopenOnClose: v.reopenOnClose === 'on',
          conversationUrl: accountUrl(request, ctx.account.domain, back),
          publicBase,
        });
        return redirectWithToast(back, `Issue ${issue.repo}#${issue.number} Created`);
      });
    if (intent === 'github-link')
      return formIntent(intent, formData, GithubLinkSchema, async (v) => {
        const issue = await linkGithubIssue({ ...who, ref: v.ref, reopenOnClose: v.reopenOnClose === 'on', publicBase });
        return redirectWithToast(back, `Issue ${issue.repo}#${issue.number} Linked`);
      });
    if (intent === 'github-refresh') {
      const gh = await githubPanelFor({ accountId: ctx.account.id, conversationId: id, refresh: true });
      if (gh.connected && gh.error) return redirectWithToast(back, { type: 'error', text: gh.error });
      return redirectWithToast(back, 'Issue Status Refreshed');
    }
  } catch (err) {
    if (err instanceof IntegrationError) return redirectWithToast(back, { type: 'error', text: err.message });
    throw err;
  }
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = { breadcrumb: 'Integrations' };

export default function ConversationIntegrations() {
  const d = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const resultFor = (intent: string) => (actionData && 'intent' in actionData && actionData.intent === intent ? actionData.result : undefined);
  const [createForm, c] = useForm<{ repo: string; title: string; body: string; assignee: string; reopenOnClose: string }>({
    id: 'github-create',
    lastResult: resultFor('github-create'),
    shouldValidate: 'onSubmit',
    defaultValue: d.view === 'github' ? { repo: d.defaultRepo, title: d.subject, reopenOnClose: d.reopenOnClose ? 'on' : undefined } : {},
  });
  const [dealForm, deal] = useForm<{ dealName: string; pipeline: string; dealStage: string; closeDate: string; ownerId: string; amount: string }>({
    id: 'hubspot-deal',
    lastResult: resultFor('hubspot-deal'),
    shouldValidate: 'onSubmit',
    defaultValue: d.view === 'hubspot-deal' ? { dealName: d.subject, pipeline: d.pipelines[0]?.id, dealStage: d.pipelines[0]?.stages[0]?.id } : {},
  });
  const [pdForm, pd] = useForm<{ title: string; pipelineId: string; stageId: string; ownerId: string; closeDate: string; value: string; visibleTo: string }>({
    id: 'pipedrive-deal',
    lastResult: resultFor('pipedrive-deal'),
    shouldValidate: 'onSubmit',
    defaultValue: d.view === 'pipedrive-deal' ? { title: d.subject, pipelineId: String(d.pipelines[0]?.id ?? ''), stageId: String(d.pipelines[0]?.stages[0]?.id ?? '') } : {},
  });
  const [linkForm, l] = useForm<{ ref: string; reopenOnClose: string }>({ id: 'github-link', lastResult: resultFor('github-link'), shouldValidate: 'onSubmit', defaultValue: d.view === 'github' ? { reopenOnClose: d.reopenOnClose ? 'on' : undefined } : {} });
  return (
    <section className="settings-page">
      <header>
        <h1>
          {d.view === 'order'
            ? `${d.actLabel} ${d.order.name}`
            : d.view === 'bigcommerce-order'
            ? `Cancel order #${d.order.id}`
            : d.view === 'bigcommerce-refund'
            ? `Refund order #${d.order.id}`
            : d.view === 'pipedrive-deal'
            ? 'Pipedrive deal'
            : d.view === 'hubspot-deal'
            ? 'HubSpot deal'
            : 'GitHub issue'}
        </h1>
      </header>
      <p>
        <Link to={`/inbox/${d.conversationId}`}>Back to conversation #{d.conversationId}</Link>
      </p>
      {d.view === 'order' ? (
        <OrderConfirm conversationId={d.conversationId} orderId={d.order.id} act={d.act} intent="order-action" label={d.actLabel}>
          {d.act === 'cancel' ? 'Cancel' : 'Refund in full'} Shopify order <strong>{d.order.name}</strong> of {d.order.createdAt.slice(0, 10)},{' '}
          {d.order.totalPrice} {d.order.currency} ({d.order.financialStatus.replaceAll('_', ' ')}, {d.order.fulfillmentStatus.replaceAll('_', ' ')})? The customer
          is notified by Shopify. This cannot be undone here.
        </OrderConfirm>
      ) : d.view === 'pipedrive-deal' ? (
        <DealCard form={pdForm} intent="pipedrive-deal">
            <Field label="Deal title" field={pd.title} />
            <SelectField label="Pipeline ID" field={pd.pipelineId} options={d.pipelines.map((p) => ({ value: String(p.id), label: `${p.name} (${p.id})` }))} />
            <SelectField label="Stage ID" field={pd.stageId} options={d.pipelines.flatMap((p) => p.stages.map((s) => ({ value: String(s.id), label: `${p.name} · ${s.name} (${s.id})` })))} />
            <SelectField label="User ID" field={pd.ownerId} options={d.users.map((u) => ({ value: String(u.id), label: `${u.name} (${u.id})` }))} placeholder="The token's user" />
            <Field label="Expected close date" field={pd.closeDate} type="date" />
            <Field label="Value" field={pd.value} hint="In the company's default currency (optional)" />
            <SelectField label="Visible to" field={pd.visibleTo} options={PIPEDRIVE_VISIBILITY.map((o) => ({ value: o.value, label: o.label }))} placeholder="The company's default" />
            <p className="muted">Person ID and organization ID are the conversation contact's Pipedrive person and organization, found or created.</p>
        </DealCard>
      ) : d.view === 'hubspot-deal' ? (
        <DealCard form={dealForm} intent="hubspot-deal">
            <Field label="Deal name" field={deal.dealName} />
            <SelectField label="Pipeline" field={deal.pipeline} options={d.pipelines.map((p) => ({ value: p.id, label: p.label }))} />
            <SelectField
              label="Deal stage"
              field={deal.dealStage}
              options={d.pipelines.flatMap((p) => p.stages.map((s) => ({ value: s.id, label: d.pipelines.length > 1 ? `${p.label} · ${s.label}` : s.label })))}
            />
            <Field label="Close date" field={deal.closeDate} type="date" />
            <SelectField label="Owner" field={deal.ownerId} options={d.owners.map((o) => ({ value: o.id, label: o.label }))} placeholder="No owner" />
            <Field label="Amount" field={deal.amount} hint="In the HubSpot account's currency (optional)" />
        </DealCard>
      ) : d.view === 'bigcommerce-order' ? (
        <OrderConfirm conversationId={d.conversationId} orderId={d.order.id} act="cancel" intent="bigcommerce-order-action" label="Cancel order">
          Cancel BigCommerce order <strong>#{d.order.id}</strong>, {d.order.total} {d.order.currency} ({d.order.status})? Its status becomes Cancelled in the store.
          This cannot be undone here.
        </OrderConfirm>
      ) : d.view === 'bigcommerce-refund' ? (
        <OrderConfirm
          conversationId={d.conversationId}
          orderId={d.order.id}
          act="refund"
          intent="bigcommerce-order-action"
          label="Refund order"
          fields={
            <fieldset className="stack">
              <legend>Refund method</legend>
              {d.quote.methods.map((m, i) => (
                <label key={i} className="check">
                  <input type="radio" name="method" value={i} defaultChecked={i === 0} />{' '}
                  {m.map((p) => `${p.description}: ${p.amount.toFixed(2)} ${d.order.currency}${p.offline ? ` (offline${p.offlineReason ? `: ${p.offlineReason}` : ''})` : ''}`).join(' + ')}
                </label>
              ))}
            </fieldset>
          }
        >
          Refund <strong>{d.amount.toFixed(2)} {d.order.currency}</strong> of BigCommerce order <strong>#{d.order.id}</strong> ({d.order.status}, total{' '}
          {d.order.total} {d.order.currency})? BigCommerce quoted this refund; it cannot be undone here.
        </OrderConfirm>
      ) : (
        <>
          <div className="card">
            <h2>Create an issue</h2>
            <Form method="post" {...getFormProps(createForm)}>
              <Field label="Repository" field={c.repo} hint="owner/name" />
              <Field label="Title" field={c.title} />
              <TextareaField label="Description" field={c.body} rows={5} />
              <Field label="Assignee" field={c.assignee} hint="A GitHub user name (optional)" />
              <CheckboxField label="Reopen this conversation when the issue closes" field={c.reopenOnClose} />
              <ErrorList errors={createForm.errors} />
              <button type="submit" className="btn primary" name="intent" value="github-create">
                Create issue
              </button>
            </Form>
          </div>
          <div className="card">
            <h2>Link an existing issue</h2>
            <Form method="post" {...getFormProps(linkForm)}>
              <Field label="Issue" field={l.ref} hint="owner/repo#123 or the issue's address" />
              <CheckboxField label="Reopen this conversation when the issue closes" field={l.reopenOnClose} />
              <ErrorList errors={linkForm.errors} />
              <button type="submit" className="btn" name="intent" value="github-link">
                Link issue
              </button>
            </Form>
          </div>
        </>
      )}
    </section>
  );
}

/** An order action's confirmation: what will happen, the action, and a way back that keeps the order. */
function OrderConfirm(p: { conversationId: number; orderId: number; act: string; intent: string; label: string; fields?: ReactNode; children: ReactNode }) {
  return (
    <div className="card" data-testid="order-confirm">
      <p>{p.children}</p>
      <Form method="post">
        <input type="hidden" name="orderId" value={p.orderId} />
        <input type="hidden" name="action" value={p.act} />
        {p.fields}
        <button type="submit" className="btn danger" name="intent" value={p.intent}>
          {p.label}
        </button>{' '}
        <Link to={`/inbox/${p.conversationId}`} className="btn">
          Keep the order
        </Link>
      </Form>
    </div>
  );
}

/** A CRM's deal form (HubSpot, Pipedrive): its fields, the form's errors and the one submit button. */
function DealCard<T extends Record<string, unknown>>({ form, intent, children }: { form: FormMetadata<T, string[]>; intent: string; children: ReactNode }) {
  return (
    <div className="card">
      <h2>Create a deal</h2>
      <Form method="post" {...getFormProps(form)}>
        {children}
        <ErrorList errors={form.errors} />
        <button type="submit" className="btn primary" name="intent" value={intent}>
          Create deal
        </button>
      </Form>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Integrations', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
