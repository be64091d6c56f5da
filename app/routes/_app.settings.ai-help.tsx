import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { AiSettingsSchema } from '~/models/ai/forms';
import { AiSettingsError, getAiSettings, listAiRequests, monthlyUsage, saveAiSettings } from '~/models/ai/settings.server';
import { Pager, readPage } from '~/components/ui/pager';
import { TableHead } from '~/components/ui/list-table';
import { formatDateTime } from '~/utils/format';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, publicUser, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * Settings → AI Help (ADR 081): the account's own OpenAI-compatible server, over the installation's. The key is
 * write-only: the page says whether one is stored, never what it is. Everyone may read; manage_integrations saves.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const page = readPage(new URL(request.url));
  const [settings, usage, requests] = await Promise.all([getAiSettings({ accountId: ctx.account.id }), monthlyUsage({ accountId: ctx.account.id }), listAiRequests({ accountId: ctx.account.id, page })]);
  return { locked: !can(ctx, 'manage_integrations'), planAllows: canUseFeature(ctx, 'conversation/aiHelp'), user: publicUser(ctx), settings, usage, requests };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: AiSettingsSchema });
  // The key is never sent back to the page, not even after an error.
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['apiKey'] }), { status: 400 });
  try {
    await saveAiSettings({ accountId: ctx.account.id, input: submission.value });
  } catch (err) {
    if (err instanceof AiSettingsError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] }, hideFields: ['apiKey'] }), { status: 400 });
    throw err;
  }
  return redirectWithToast('/settings/ai-help', 'Settings Updated');
}

export const handle = { breadcrumb: 'AI Help' };

export default function AiHelpSettings() {
  const { locked, planAllows, user, settings, usage, requests } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: { baseUrl: settings.baseUrl, model: settings.model, apiKey: '', removeKey: '', monthlyTokenCap: settings.monthlyTokenCap === null ? '' : String(settings.monthlyTokenCap) },
    shouldValidate: 'onSubmit',
  });
  const cap = usage.cap.toLocaleString('en');
  return (
    <SettingsPage
      title="AI Help"
      subHeader="Write and rewrite replies in the inbox with any OpenAI-compatible chat-completions server. The AI never sends: agents review every suggestion."
      locked={locked}
    >
      <p data-testid="ai-usage">
        This month: {usage.requests.toLocaleString('en')} requests, {usage.tokens.toLocaleString('en')} of {cap} tokens.
      </p>
      {planAllows ? null : (
        <p className="muted" data-testid="ai-plan">
          Your plan does not include AI help: the inbox buttons suggest matching canned responses and articles, and no AI server is called.
        </p>
      )}
      <p className="muted">
        {settings.installation
          ? `This installation provides ${settings.installation.model} at ${settings.installation.baseUrl}; set a server below to use your own instead.`
          : 'This installation provides no AI server. Without one, the inbox buttons suggest matching canned responses and articles instead.'}
      </p>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Server base URL" field={fields.baseUrl} type="url" placeholder="https://api.openai.com/v1" hint="Requests go to this address followed by /chat/completions. Leave empty to use the installation's server." />
          <Field label="Model" field={fields.model} placeholder={settings.defaultModel} />
          <Field
            label="API key"
            field={fields.apiKey}
            type="password"
            autoComplete="off"
            hint={settings.hasKey ? 'A key is stored (encrypted). Leave this empty to keep it.' : 'No key is stored. Some local servers need none.'}
          />
          {settings.hasKey ? <CheckboxField label="Remove the stored key" field={fields.removeKey} /> : null}
          <Field label="Monthly token cap" field={fields.monthlyTokenCap} type="number" min={0} hint={`Prompt and answer tokens a calendar month. Empty: the installation's ${settings.defaultCap.toLocaleString('en')}.`} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings/ai-help" intent="save" locked={locked} />
      </Form>
      <h2 id="requests">Requests</h2>
      <p className="muted">Each AI request of this account: who asked, the call, the model, the outcome and the tokens. Prompts and answers are not stored.</p>
      {requests.total === 0 ? (
        <p className="muted" data-testid="ai-requests-empty">
          No AI requests yet.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="ai-requests">
            <TableHead headers={['Time', 'Call', 'Agent', 'Conversation', 'Model', 'Outcome', 'Prompt tokens', 'Answer tokens', 'Duration']} />
            <tbody>
              {requests.rows.map((q) => (
                <tr key={q.id}>
                  <td>{formatDateTime(q.createdAt, user)}</td>
                  <td>{q.call}</td>
                  <td>{q.userFirstName ? `${q.userFirstName} ${q.userLastName ?? ''}`.trim() : '—'}</td>
                  <td>{q.conversationId ? `#${q.conversationId}` : '—'}</td>
                  <td>{q.model}</td>
                  <td>
                    <span className={q.status === 'ok' ? 'pill pill-ok' : 'pill'}>{q.status}</span>
                    {q.error ? ` ${q.error}` : ''}
                  </td>
                  <td>{q.promptTokens.toLocaleString('en')}</td>
                  <td>{q.completionTokens.toLocaleString('en')}</td>
                  <td>{`${(q.durationMs / 1000).toFixed(1)} s`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={requests.page} pageSize={requests.pageSize} total={requests.total} hash="requests" />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('AI Help', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
