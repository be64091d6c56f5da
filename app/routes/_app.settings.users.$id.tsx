import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Avatar } from '~/components/shell/shell';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { resendInvitation } from '~/models/users/invitations.server';
import { EditUserSchema, UserAccessSchema } from '~/models/users/schemas';
import { deleteUser, getUser, listAssignableRoles, setUserAccess, updateUser, USER_RULE_MESSAGES, type UserChangeResult } from '~/models/users/users.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireOrgAdmin } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { accountUrl } from '~/utils/tenant.server';
import { parseRouteId } from '~/utils/route-id';

const USERS_PATH = '/settings/users';

function readUserId(params: { id?: string }) {
  const id = parseRouteId(params.id);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const userId = readUserId(params);
  const user = await getUser({ accountId: ctx.account.id, userId });
  if (!user) throw new Response('Not Found', { status: 404 });
  const actorIsOwner = ctx.role.kind === 'owner';
  const isSelf = user.id === ctx.user.id;
  const isOwner = user.roleKind === 'owner';
  const roles = await listAssignableRoles({ accountId: ctx.account.id, actor: { id: ctx.user.id, roleKind: ctx.role.kind } });
  return {
    me: publicUser(ctx),
    user: {
      id: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      roleId: user.roleId,
      roleName: user.roleName,
      statusLabel: user.statusLabel,
      hasAccess: user.hasAccess,
      invitePending: user.status === 'pending' && Boolean(user.invitedAt),
      lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
      avatarColor: user.avatarColor,
      hasAvatar: user.hasAvatar,
    },
    // The owner keeps their role; the select then only shows it.
    roles: isOwner ? [{ id: user.roleId, name: user.roleName, kind: user.roleKind }] : roles,
    canEdit: !isOwner || actorIsOwner,
    canRefuseOrDelete: !isSelf && !isOwner,
    ownerNote: isOwner ? (actorIsOwner ? USER_RULE_MESSAGES.ownerRoleFixed : USER_RULE_MESSAGES.ownerOnlyByOwner) : null,
  };
}

type ActionResult = { intent: 'update'; result: SubmissionResult<string[]> } | { intent: 'access' | 'delete' | 'resend'; error: string };

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const userId = readUserId(params);
  const scope = { accountId: ctx.account.id, actor: { id: ctx.user.id, roleKind: ctx.role.kind }, userId };
  const formData = await request.formData();
  const intent = formData.get('intent');
  const refused = (result: Exclude<UserChangeResult, { ok: true }>, i: 'access' | 'delete') => {
    if (result.reason === 'forbidden') return data<ActionResult>({ intent: i, error: result.message }, { status: 403 });
    throw new Response('Not Found', { status: 404 });
  };
  switch (intent) {
    case 'update': {
      const submission = parseWithZod(formData, { schema: EditUserSchema });
      if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
      const result = await updateUser({ ...scope, ...submission.value });
      if (!result.ok) {
        if (result.reason === 'not_found') throw new Response('Not Found', { status: 404 });
        if (result.reason === 'invalid_role') return data<ActionResult>({ intent, result: submission.reply({ fieldErrors: { roleId: ['Choose a role'] } }) }, { status: 400 });
        return data<ActionResult>({ intent, result: submission.reply({ formErrors: [result.message] }) }, { status: 403 });
      }
      return redirectWithToast(USERS_PATH, 'User Updated');
    }
    case 'access': {
      const submission = parseWithZod(formData, { schema: UserAccessSchema });
      if (submission.status !== 'success') throw new Response('Bad request', { status: 400 });
      const result = await setUserAccess({ ...scope, hasAccess: submission.value.access === 'give' });
      if (!result.ok) return refused(result, intent);
      return redirectWithToast(USERS_PATH, 'User Updated');
    }
    case 'delete': {
      const result = await deleteUser(scope);
      if (!result.ok) return refused(result, intent);
      return redirectWithToast(USERS_PATH, 'User Deleted');
    }
    case 'resend': {
      if (!(await getUser({ accountId: ctx.account.id, userId }))) throw new Response('Not Found', { status: 404 });
      const sent = await resendInvitation({ accountId: ctx.account.id, userId, actorId: ctx.user.id, baseUrl: accountUrl(request, ctx.account.domain, '') });
      if (!sent) return data<ActionResult>({ intent, error: 'This user has already accepted the invitation' }, { status: 400 });
      return redirectWithToast(`${USERS_PATH}/${userId}`, 'Invitation sent');
    }
    default:
      throw new Response('Unknown intent', { status: 400 });
  }
}

export const handle = {
  breadcrumb: (d: { user?: { firstName: string; lastName: string } } | undefined) => (d?.user ? `${d.user.firstName} ${d.user.lastName}`.trim() : 'User'),
};

export default function EditUser() {
  const { me, user, roles, canEdit, canRefuseOrDelete, ownerNote } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'edit-user',
    lastResult: actionData?.intent === 'update' ? actionData.result : undefined,
    defaultValue: { firstName: user.firstName, lastName: user.lastName, roleId: String(user.roleId) },
    shouldValidate: 'onSubmit',
  });
  const locked = !canEdit;
  return (
    <div className="stack">
      <SettingsPage
        title={`${user.firstName} ${user.lastName}`.trim()}
        subHeader={
          <>
            {user.email} · <span className="pill">{user.statusLabel}</span> · Last sign-in:{' '}
            {user.lastSignInAt ? formatDateTime(user.lastSignInAt, me) : 'Never'}
          </>
        }
        actions={<Avatar user={user} size={48} />}
        locked={locked}
      >
        {actionData && 'error' in actionData ? (
          <p className="form-error" role="alert" data-testid="action-error">
            {actionData.error}
          </p>
        ) : null}
        {ownerNote ? <p className="muted">{ownerNote}</p> : null}
        <Form method="post" {...getFormProps(form)}>
          <div className="row">
            <Field label="First name" field={fields.firstName} disabled={locked} />
            <Field label="Last name" field={fields.lastName} disabled={locked} />
          </div>
          <SelectField label="Role" field={fields.roleId} options={roles.map((r) => ({ value: String(r.id), label: r.name }))} disabled={locked} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={USERS_PATH} intent="update" locked={locked} />
        </Form>
      </SettingsPage>

      <SettingsPage title="Access" subHeader="Someone refused access is signed out at once and cannot sign in until access is given back.">
        <div className="row">
          {user.invitePending && user.hasAccess ? (
            <Form method="post">
              <button type="submit" className="btn" name="intent" value="resend">
                Resend invitation
              </button>
            </Form>
          ) : null}
          {canRefuseOrDelete ? (
            <>
              <Form method="post">
                <input type="hidden" name="access" value={user.hasAccess ? 'refuse' : 'give'} />
                <button type="submit" className="btn" name="intent" value="access">
                  {user.hasAccess ? 'Refuse access' : 'Give access'}
                </button>
              </Form>
              <DeleteConfirm id={`user-${user.id}`} />
            </>
          ) : (
            <p className="muted">{user.id === me.id ? 'You cannot refuse your own access or delete yourself.' : 'The account owner cannot be refused or deleted.'}</p>
          )}
        </div>
      </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: pageTitle(data ? `${data.user.firstName} ${data.user.lastName}`.trim() : 'User', 'Users', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
