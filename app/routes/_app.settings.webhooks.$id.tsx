import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { ShownOnceSecret, WebhookEventFields } from '~/components/webhook-fields';
import { FieldInputError } from '~/models/productivity/shared.server';
import { WEBHOOK_ROTATION_HOURS } from '~/models/webhooks/constants';
import { WebhookSchema } from '~/models/webhooks/forms';
import { deleteWebhook, getWebhook, listDeliveries, publicEndpoint, redeliverWebhook, rotateWebhookSecret, updateWebhook } from '~/models/webhooks/webhooks.server';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId, parseRowId } from '~/utils/route-id';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/webhooks';

/** One webhook: its settings, secret rotation and its delivery log with redelivery (ADR 077). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const id = parseRouteId(params.id);
  const row = id === null ? undefined : await getWebhook({ accountId: ctx.account.id, id });
  if (!row) throw new Response('Not Found', { status: 404 });
  const deliveries = await listDeliveries({ accountId: ctx.account.id, endpointId: row.id, limit: 25 });
  return {
    webhook: { ...publicEndpoint(row), previousSecretExpiresAt: row.previousSecretExpiresAt },
    deliveries: deliveries.map((d) => ({
      id: d.id,
      messageId: d.messageId,
      eventType: d.eventType,
      status: d.status,
      createdAt: d.createdAt,
      nextAttemptAt: d.nextAttemptAt,
      attempts: d.attempts.map((a) => ({
        id: a.id,
        createdAt: a.createdAt,
        trigger: a.trigger,
        requestHeaders: a.requestHeaders,
        requestBody: a.requestBody,
        responseStatus: a.responseStatus,
        responseBody: a.responseBody,
        error: a.error,
        durationMs: a.durationMs,
      })),
    })),
    user: publicUser(ctx),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const id = parseRouteId(params.id);
  if (id === null) throw new Response('Not Found', { status: 404 });
  const who = { accountId: ctx.account.id, actorId: ctx.user.id, id };
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'delete') {
    if (!(await deleteWebhook(who))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Webhook Deleted' });
  }
  if (intent === 'rotate') {
    const row = await rotateWebhookSecret(who);
    if (!row) throw new Response('Not Found', { status: 404 });
    return data({ result: undefined, secret: row.secret }, { headers: { 'Cache-Control': 'no-store' } });
  }
  if (intent === 'redeliver') {
    const deliveryId = parseRowId(formData.get('deliveryId'));
    if (deliveryId === null || !(await redeliverWebhook({ accountId: ctx.account.id, deliveryId }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(`${LIST}/${id}`, 'Redelivery Queued');
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: WebhookSchema });
  if (submission.status !== 'success') return data({ result: submission.reply(), secret: null }, { status: 400 });
  try {
    if (!(await updateWebhook({ ...who, input: { ...submission.value, active: submission.value.active ?? false } }))) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof FieldInputError) return data({ result: submission.reply({ fieldErrors: { [err.field]: [err.message] } }), secret: null }, { status: 400 });
    throw err;
  }
  return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Webhook Updated' });
}

export const handle = { breadcrumb: (d: { webhook: { url: string } } | undefined) => d?.webhook.url ?? null };

export default function WebhookPage() {
  const { webhook, deliveries, user } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `webhook-${webhook.id}`,
    lastResult: actionData?.result,
    defaultValue: { url: webhook.url, description: webhook.description, eventTypes: webhook.eventTypes, active: webhook.active ? 'on' : undefined },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="Webhook"
      subHeader={webhook.url}
      learnMore="/help-center"
      actions={<DeleteConfirm id={`webhook-${webhook.id}`} label="Delete" />}
    >
      {actionData?.secret ? <ShownOnceSecret title="Secret rotated" secret={actionData.secret} /> : null}
      <Form method="post" {...getFormProps(form)} className="stack">
        <Field label="Endpoint URL" field={fields.url} type="url" autoComplete="off" />
        <Field label="Description" field={fields.description} autoComplete="off" maxLength={200} />
        <WebhookEventFields field={fields.eventTypes} />
        <CheckboxField label="Active (send deliveries)" field={fields.active} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel="Update" intent="save" />
      </Form>
      <h2>Signing Secret</h2>
      <p>
        {webhook.rotating && webhook.previousSecretExpiresAt
          ? `Rotating: the previous secret also signs until ${formatDateTime(webhook.previousSecretExpiresAt, user)}.`
          : `Rotating makes a new secret; the old one keeps signing alongside it for ${WEBHOOK_ROTATION_HOURS} hours so that you can switch without losing a delivery.`}
      </p>
      <Form method="post">
        <button type="submit" className="btn" name="intent" value="rotate">
          Rotate Secret
        </button>
      </Form>
      <h2>Deliveries</h2>
      {deliveries.length === 0 ? (
        <p className="muted" data-testid="no-deliveries">
          No deliveries yet.
        </p>
      ) : (
        <ul className="stack" data-testid="deliveries" style={{ listStyle: 'none', padding: 0 }}>
          {deliveries.map((d) => (
            <li key={d.id}>
              <details>
                <summary>
                  <code>{d.eventType.replace(/_(?=[a-z]+$)/, '.')}</code> · {formatDateTime(d.createdAt, user)} · <strong data-testid="delivery-status">{d.status}</strong> ·{' '}
                  {d.attempts.length} attempt{d.attempts.length === 1 ? '' : 's'}
                  {d.nextAttemptAt && d.status === 'failed' ? ` · next try ${formatDateTime(d.nextAttemptAt, user)}` : ''}
                </summary>
                <p className="muted">
                  webhook-id <code>{d.messageId}</code>
                </p>
                <Form method="post">
                  <input type="hidden" name="deliveryId" value={d.id} />
                  <button type="submit" className="btn" name="intent" value="redeliver">
                    Redeliver
                  </button>
                </Form>
                {d.attempts.map((a) => (
                  <div key={a.id} className="stack" style={{ borderTop: '1px solid var(--border)', paddingTop: '.5rem' }}>
                    <p>
                      {formatDateTime(a.createdAt, user)} ({a.trigger}, {a.durationMs} ms):{' '}
                      <strong>{a.responseStatus !== null ? `HTTP ${a.responseStatus}` : (a.error ?? 'No answer')}</strong>
                    </p>
                    <p>Request</p>
                    <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                      {Object.entries(a.requestHeaders)
                        .map(([k, v]) => `${k}: ${v}`)
                        .join('\n')}
                      {'\n\n'}
                      {a.requestBody}
                    </pre>
                    {a.responseBody !== null ? (
                      <>
                        <p>Response</p>
                        <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{a.responseBody}</pre>
                      </>
                    ) : null}
                  </div>
                ))}
              </details>
            </li>
          ))}
        </ul>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.webhook.url, 'Webhooks', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
