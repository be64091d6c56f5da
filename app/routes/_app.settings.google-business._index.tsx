import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
// The notice comes from a plain module: a value from a .server module is undefined in the browser (hydration error #418).
import { GOOGLE_BUSINESS_SHUTDOWN } from '~/models/channels/google-business';
import { createGoogleBusinessInbox, deleteGoogleBusinessInbox, GoogleBusinessSchema, listGoogleBusinessInboxes } from '~/models/channels/google-business.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDate, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireOrgAdmin, requireUser } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/google-business';

/** No permission of section 6 covers this channel: owners and admins change it (ADR 020). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inboxes = await listGoogleBusinessInboxes({ accountId: ctx.account.id });
  const locked = !ctx.isOrgAdmin;
  return { user: publicUser(ctx), inboxes: locked ? inboxes.map((i) => ({ ...i, endpoint: '' })) : inboxes, locked };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete') {
    const id = parseRouteId(String(formData.get('id') ?? ''));
    if (id === null || !(await deleteGoogleBusinessInbox({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(PATH, { type: 'info', text: 'Google Channel Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: GoogleBusinessSchema });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['clientToken'] }), { status: 400 });
  try {
    await createGoogleBusinessInbox({ ...who, input: submission.value, publicBase: bareUrl(request, '') });
  } catch (err) {
    if (err instanceof InboxNameTakenError) return data(submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] }, hideFields: ['clientToken'] }), { status: 400 });
    throw err;
  }
  return redirectWithToast(PATH, 'Google Channel Created');
}

export default function GoogleBusinessPage() {
  const { user, inboxes, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'google-business',
    lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage title="Google Business" subHeader="Google Business Messages conversations." learnMore="/help-center" locked={locked}>
      <p className="locked-note" role="note" data-testid="shutdown-notice">
        {GOOGLE_BUSINESS_SHUTDOWN}
      </p>
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No Google Business inboxes.
        </p>
      ) : (
        <table className="table" data-testid="google-business-inboxes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Ingestion endpoint</th>
              <th>Client token</th>
              <th>Created</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link to={`${PATH}/${i.id}`}>{i.name}</Link>
                </td>
                <td>{i.endpoint ? <code>{i.endpoint}</code> : null}</td>
                <td>{i.clientTokenHint}</td>
                <td>{formatDate(i.createdAt, user)}</td>
                <td>
                  <DeleteConfirm id={`google-business-${i.id}`} fields={{ id: String(i.id) }} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Add an ingestion inbox</h2>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Inbox Name" field={fields.name} autoComplete="off" maxLength={20} />
          <Field label="Client Token" field={fields.clientToken} type="password" autoComplete="off" maxLength={200} hint="Payloads are verified with X-Goog-Signature, the HMAC-SHA512 of the body with this token." />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings" submitLabel="Create" intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Google Business', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
