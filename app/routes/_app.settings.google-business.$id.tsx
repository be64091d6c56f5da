import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
// The notice comes from a plain module: a value from a .server module is undefined in the browser (hydration error #418).
import { GOOGLE_BUSINESS_REPLIES, GOOGLE_BUSINESS_SHUTDOWN } from '~/models/channels/google-business';
import { deleteGoogleBusinessInbox, getGoogleBusinessInbox, GoogleBusinessUpdateSchema, updateGoogleBusinessInbox } from '~/models/channels/google-business.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDate, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { publicUser, requireOrgAdmin, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/google-business';

function readId(param: string | undefined) {
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

/** One Google Business inbox: its name and client token (PUT {id}); owners and admins change it (ADR 020). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const inbox = await getGoogleBusinessInbox({ accountId: ctx.account.id, id: readId(params.id) });
  if (!inbox) throw new Response('Not Found', { status: 404 });
  const locked = !ctx.isOrgAdmin;
  return { user: publicUser(ctx), inbox: locked ? { ...inbox, endpoint: '' } : inbox, locked };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const id = readId(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete') {
    if (!(await deleteGoogleBusinessInbox({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Google Channel Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: GoogleBusinessUpdateSchema });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['clientToken'] }), { status: 400 });
  try {
    if (!(await updateGoogleBusinessInbox({ ...who, id, input: submission.value }))) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof InboxNameTakenError) return data(submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] }, hideFields: ['clientToken'] }), { status: 400 });
    throw err;
  }
  return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Google Channel Updated' });
}

export const handle = { breadcrumb: (loaderData: { inbox: { name: string } } | undefined) => loaderData?.inbox.name ?? null };

export default function GoogleBusinessInboxPage() {
  const { user, inbox, locked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `google-business-${inbox.id}`,
    lastResult,
    defaultValue: { name: inbox.name, clientToken: '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="Edit Google Business Inbox"
      subHeader={`Created ${formatDate(inbox.createdAt, user)}.`}
      learnMore="/help-center"
      locked={locked}
      actions={<DeleteConfirm id={`google-business-${inbox.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />}
    >
      <p className="locked-note" role="note" data-testid="shutdown-notice">
        {GOOGLE_BUSINESS_SHUTDOWN}
      </p>
      <p data-testid="no-replies">{GOOGLE_BUSINESS_REPLIES}</p>
      {inbox.endpoint ? (
        <p>
          Ingestion endpoint: <code data-testid="endpoint">{inbox.endpoint}</code>
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Inbox Name" field={fields.name} autoComplete="off" maxLength={20} />
          <Field
            label="Client Token"
            field={fields.clientToken}
            type="password"
            autoComplete="off"
            maxLength={200}
            hint={`Now ${inbox.clientTokenHint}. Leave it empty to keep it; payloads are verified with X-Goog-Signature, the HMAC-SHA512 of the body with this token.`}
          />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel="Update" intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.inbox.name ?? 'Google Business', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
