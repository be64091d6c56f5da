import { getFormProps, useForm } from '@conform-to/react';
import { CopyField } from '~/components/ui/copy-button';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { ApiKeySchema } from '~/models/api/forms';
import { createApiKey, listApiKeys, revokeApiKey } from '~/models/api/keys.server';
import { API_AREAS, type ApiScope } from '~/models/api/scopes';
import { parseWithZod } from '~/utils/conform.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PAGE = '/settings/developer-api';

/** Settings → Developer API (ADR 076): API keys of the account. manage_integrations, on plans with integrations. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  return { keys: await listApiKeys({ accountId: ctx.account.id }), user: publicUser(ctx) };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'revoke') {
    const id = parseRowId(formData.get('id'));
    if (id === null || !(await revokeApiKey({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(PAGE, { type: 'info', text: 'API Key Revoked' });
  }
  if (intent !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ApiKeySchema });
  if (submission.status !== 'success') return data({ result: submission.reply(), created: null }, { status: 400 });
  const { key, token } = await createApiKey({ ...who, name: submission.value.name, scopes: submission.value.scopes as ApiScope[] });
  // The token is shown in this answer only (no redirect: it must not sit in a URL, a flash cookie or the history).
  return data({ result: submission.reply({ resetForm: true }), created: { name: key.name, token } }, { headers: { 'Cache-Control': 'no-store' } });
}

export const handle = { breadcrumb: 'Developer API' };

export default function DeveloperApi() {
  const { keys, user } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'api-key',
    lastResult: actionData?.result,
    defaultValue: { name: '', scopes: ['conversations:read'] },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const chosen = new Set(([] as unknown[]).concat(fields.scopes.value ?? []).map(String));
  const created = actionData?.created;
  return (
    <SettingsPage
      title="Developer API"
      subHeader="API keys let your own programs read and change this account's data through the REST API."
      learnMore="/help-center"
      actions={
        <a href="/api/v1/reference" className="btn">
          API Reference
        </a>
      }
    >
      {created ? (
        <div role="status" data-testid="new-key" className="stack" style={{ border: '1px solid var(--border)', borderRadius: 'var(--radius)', padding: '.75rem', marginBottom: '1rem' }}>
          <h2>Key “{created.name}” created</h2>
          <p>Copy it now: it is shown only this once and Parley keeps only a fingerprint of it.</p>
          <CopyField id="new-key-token" label="API key" value={created.token} />
        </div>
      ) : null}
      <h2>API Keys</h2>
      {keys.length === 0 ? (
        <p className="muted" data-testid="empty">
          No API keys yet.
        </p>
      ) : (
        <table className="table" data-testid="api-keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scopes</th>
              <th>Last used</th>
              <th>Status</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt, user) : 'Never'}</td>
                <td>{k.revokedAt ? `Revoked ${formatDateTime(k.revokedAt, user)}` : 'Active'}</td>
                <td>
                  {k.revokedAt ? null : (
                    <DeleteConfirm
                      id={`key-${k.id}`}
                      intent="revoke"
                      fields={{ id: String(k.id) }}
                      label={`Revoke ${k.name}`}
                      title="Revoke API key"
                      text={`Programs using “${k.name}” will be refused from now on. Revoke it?`}
                      confirmLabel="Revoke"
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Create API Key</h2>
      <Form method="post" {...getFormProps(form)} className="stack">
        <Field label="Key Name" field={fields.name} autoComplete="off" maxLength={60} />
        <fieldset>
          <legend>Scopes</legend>
          <table className="table" data-testid="scopes">
            <thead>
              <tr>
                <th>Area</th>
                <th>Read</th>
                <th>Write</th>
              </tr>
            </thead>
            <tbody>
              {API_AREAS.map((a) => (
                <tr key={a.area}>
                  <td>{a.label}</td>
                  <td>
                    <label className="check">
                      <input type="checkbox" name={fields.scopes.name} value={`${a.area}:read`} defaultChecked={chosen.has(`${a.area}:read`)} /> Read
                      <span className="visually-hidden"> {a.label}</span>
                    </label>
                  </td>
                  <td>
                    {a.write ? (
                      <label className="check">
                        <input type="checkbox" name={fields.scopes.name} value={`${a.area}:write`} defaultChecked={chosen.has(`${a.area}:write`)} /> Write
                        <span className="visually-hidden"> {a.label}</span>
                      </label>
                    ) : (
                      <span className="muted">Read only</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <ErrorList id={fields.scopes.errorId} errors={fields.scopes.errors} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" className="btn btn-primary" name="intent" value="create">
            Create Key
          </button>
        </div>
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Developer API', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
