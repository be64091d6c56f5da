import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { ShownOnceSecret, WebhookEventFields } from '~/components/webhook-fields';
import { FieldInputError } from '~/models/productivity/shared.server';
import { WebhookSchema } from '~/models/webhooks/forms';
import { createWebhook, listWebhooks, publicEndpoint } from '~/models/webhooks/webhooks.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** Settings → Webhooks (ADR 077): the account's subscriptions and a form to add one. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const rows = await listWebhooks({ accountId: ctx.account.id });
  return { webhooks: rows.map(publicEndpoint) };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const formData = await request.formData();
  if (formData.get('intent') !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: WebhookSchema });
  if (submission.status !== 'success') return data({ result: submission.reply(), created: null }, { status: 400 });
  try {
    const row = await createWebhook({ accountId: ctx.account.id, actorId: ctx.user.id, input: { ...submission.value, active: true } });
    // The secret is in this answer only (no redirect: never in a URL or a cookie).
    return data({ result: submission.reply({ resetForm: true }), created: { id: row.id, url: row.url, secret: row.secret } }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    if (err instanceof FieldInputError) return data({ result: submission.reply({ fieldErrors: { [err.field]: [err.message] } }), created: null }, { status: 400 });
    throw err;
  }
}

export default function Webhooks() {
  const { webhooks } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'webhook-new',
    lastResult: actionData?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const created = actionData?.created;
  return (
    <SettingsPage title="Webhooks" subHeader="Parley posts the events you choose to your URL, signed per the Standard Webhooks specification." learnMore="/help-center">
      {created ? <ShownOnceSecret title={`Webhook to ${created.url} created`} secret={created.secret} /> : null}
      {webhooks.length === 0 ? (
        <p className="muted" data-testid="empty">
          No webhooks yet.
        </p>
      ) : (
        <table className="table" data-testid="webhooks">
          <thead>
            <tr>
              <th>Endpoint URL</th>
              <th>Events</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {webhooks.map((w) => (
              <tr key={w.id}>
                <td style={{ overflowWrap: 'anywhere' }}>
                  <Link to={`/settings/webhooks/${w.id}`}>{w.url}</Link>
                  {w.description ? <div className="muted">{w.description}</div> : null}
                </td>
                <td>{w.eventTypes.length}</td>
                <td>{w.active ? 'Active' : 'Paused'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Add Webhook</h2>
      <Form method="post" {...getFormProps(form)} className="stack">
        <Field label="Endpoint URL" field={fields.url} type="url" autoComplete="off" placeholder="https://example.com/parley-events" />
        <Field label="Description" field={fields.description} autoComplete="off" maxLength={200} />
        <WebhookEventFields field={fields.eventTypes} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" className="btn btn-primary" name="intent" value="create">
            Add Webhook
          </button>
        </div>
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Webhooks', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
