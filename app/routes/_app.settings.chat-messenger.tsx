import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CopyField } from '~/components/ui/copy-button';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { SettingsPage } from '~/components/ui/settings-page';
import { MessengerInboxSchema, RenameMessengerInboxSchema } from '~/models/channels/messenger-settings';
import { createWebInbox, deleteWebInbox, listWebInboxesWithCounts, renameWebInbox, rotateIdentitySecret } from '~/models/channels/messenger-settings.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDate, pageTitle } from '~/utils/format';
import { can, publicUser, requireFeature, requirePermission, requireUser } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';
import { parseRowId } from '~/utils/route-id';

const PATH = '/settings/chat-messenger';

/** The messenger inboxes with their snippet; manage_chat_messenger_and_pages creates, renames and deletes them and rotates secrets. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'chatMessenger/enabled', await requireUser(request));
  const inboxes = await listWebInboxesWithCounts({ accountId: ctx.account.id });
  const locked = !can(ctx, 'manage_chat_messenger_and_pages');
  return {
    user: publicUser(ctx),
    scriptUrl: bareUrl(request, '/public/widget.js'),
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name, createdAt: i.createdAt, conversationCount: i.conversationCount, secret: locked ? null : i.secret })),
    locked,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_chat_messenger_and_pages');
  await requireFeature(request, 'chatMessenger/enabled', ctx);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'rotate') {
    if (!(await rotateIdentitySecret({ ...who, inboxId: parseRowId(formData.get('inboxId')) ?? 0 }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(PATH, { type: 'info', text: 'Channel Updated' });
  }
  if (intent === 'delete') {
    if (!(await deleteWebInbox({ ...who, id: parseRowId(formData.get('inboxId')) ?? 0 }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(PATH, { type: 'info', text: 'Inbox Deleted' });
  }
  if (intent === 'rename') {
    const submission = parseWithZod(formData, { schema: RenameMessengerInboxSchema });
    const inboxId = parseRowId(formData.get('inboxId'));
    if (submission.status !== 'success') return data({ form: 'rename' as const, inboxId, reply: submission.reply() }, { status: 400 });
    try {
      if (!(await renameWebInbox({ ...who, id: submission.value.inboxId, name: submission.value.name }))) throw new Response('Not Found', { status: 404 });
    } catch (err) {
      if (err instanceof InboxNameTakenError)
        return data({ form: 'rename' as const, inboxId, reply: submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] } }) }, { status: 400 });
      throw err;
    }
    return redirectWithToast(PATH, { type: 'info', text: 'Inbox Updated' });
  }
  if (intent !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: MessengerInboxSchema });
  if (submission.status !== 'success') return data({ form: 'create' as const, inboxId: null, reply: submission.reply() }, { status: 400 });
  try {
    await createWebInbox({ ...who, name: submission.value.name });
  } catch (err) {
    if (err instanceof InboxNameTakenError)
      return data({ form: 'create' as const, inboxId: null, reply: submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] } }) }, { status: 400 });
    throw err;
  }
  return redirectWithToast(PATH, 'Inbox Created');
}

export const handle = { breadcrumb: 'Chat Messenger' };

export default function ChatMessengerSettings() {
  const { user, scriptUrl, inboxes, locked } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'messenger-inbox',
    lastResult: actionData?.form === 'create' ? actionData.reply : undefined,
    shouldValidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title="Chat Messenger"
      subHeader="A chat widget on your website: paste the snippet of an inbox before </body>. Style it under Messenger → Appearance."
      learnMore="/help-center"
      locked={locked}
    >
      {inboxes.length === 0 ? (
        <p className="muted" data-testid="empty">
          No messenger inboxes yet.
        </p>
      ) : (
        <div className="stack" data-testid="messenger-inboxes">
          {inboxes.map((i) => (
            <section key={i.id} className="stack" data-testid={`messenger-inbox-${i.id}`}>
              <h2>
                {i.name} <small className="muted">created {formatDate(i.createdAt, user)}</small>
              </h2>
              {locked ? null : (
                <div className="row wrap">
                  <RenameInbox inbox={i} result={actionData?.form === 'rename' && actionData.inboxId === i.id ? actionData.reply : undefined} />
                  <DeleteConfirm
                    id={`messenger-inbox-${i.id}`}
                    fields={{ inboxId: String(i.id) }}
                    label={<span aria-label={`Delete ${i.name}`}>Delete</span>}
                    text={`Are you sure you want to delete ? ${deleteConsequence(i.conversationCount)}`}
                  />
                </div>
              )}
              <CopyField id={`snippet-${i.id}`} label="Snippet" rows={2} value={`<script src="${scriptUrl}" data-inbox="${i.id}" async></script>`} copyLabel="Copy code" ms={1000} />
              <p className="muted">
                Identity verification: to match logged-in customers to contacts, add <code>data-user-id</code> and <code>data-user-hash</code> (the hex
                HMAC-SHA256 of the user id with this secret, computed on your server), optionally <code>data-user-name</code> and{' '}
                <code>data-user-email</code>.
              </p>
              {i.secret ? (
                <Form method="post" className="row">
                  <code data-testid="identity-secret">{i.secret}</code>
                  <input type="hidden" name="inboxId" value={i.id} />
                  <button type="submit" name="intent" value="rotate" className="btn">
                    New secret
                  </button>
                </Form>
              ) : null}
              <p className="row">
                <Link to={`/settings/appearance?inbox=${i.id}`}>Appearance</Link> · <Link to={`/settings/configure?inbox=${i.id}`}>Configure</Link> ·{' '}
                <Link to={`/settings/advanced?inbox=${i.id}`}>Advanced</Link> · <Link to={`/settings/offline-experience?inbox=${i.id}`}>Offline experience</Link> ·{' '}
                <Link to={`/settings/chat-pages?inbox=${i.id}`}>Chat page</Link>
              </p>
            </section>
          ))}
        </div>
      )}
      <Form method="post" {...getFormProps(form)} className="stack">
        <h2>Create a messenger inbox</h2>
        <fieldset disabled={locked} className="stack">
          <Field label="Inbox name" field={fields.name} autoComplete="off" maxLength={40} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" name="intent" value="create" className="btn btn-primary" disabled={locked} title={locked ? ROLE_LOCKED_MESSAGE : undefined}>
            {locked ? '🔒 ' : ''}Create Inbox
          </button>
        </div>
      </Form>
    </SettingsPage>
  );
}

/** What deleting takes with it, said in the confirmation: an inbox's conversations go with it, as for every inbox type. */
function deleteConsequence(n: number) {
  if (n === 0) return 'The inbox has no conversations; its snippet stops working on your website.';
  return `Its ${n} conversation${n === 1 ? '' : 's'} will be deleted with it, and its snippet stops working on your website.`;
}

function RenameInbox({ inbox, result }: { inbox: { id: number; name: string }; result?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm({
    id: `rename-inbox-${inbox.id}`,
    lastResult: result,
    defaultValue: { name: inbox.name },
    shouldValidate: 'onSubmit',
  });
  return (
    <details className="rename-inbox" open={result ? true : undefined}>
      <summary className="btn">Rename</summary>
      <Form method="post" {...getFormProps(form)} className="stack">
        <input type="hidden" name="inboxId" value={inbox.id} />
        <Field label="Inbox name" field={fields.name} autoComplete="off" maxLength={40} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="actions">
          <button type="submit" name="intent" value="rename" className="btn btn-primary">
            Save
          </button>
        </div>
      </Form>
    </details>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Chat Messenger', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
