import type { z } from 'zod';
import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Avatar } from '~/components/shell/shell';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { SortHeader, readSort } from '~/components/ui/sort-header';
import { inviteUser, resendInvitation, UserExistsError } from '~/models/users/invitations.server';
import { seatRefusal } from '~/models/billing/billing.server';
import { USER_EXISTS_MESSAGE, USERS_PAGE_SIZE } from '~/models/users/constants';
import { InviteUserSchema, UserAccessSchema, UserIdSchema } from '~/models/users/schemas';
import { checkRoleAssignable, getUser, listAssignableRoles, listUsers, setUserAccess, USER_SORT_COLUMNS } from '~/models/users/users.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireOrgAdmin } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { accountUrl } from '~/utils/tenant.server';

const USERS_PATH = '/settings/users';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const url = new URL(request.url);
  const page = readPage(url);
  const { sort, dir } = readSort(url, USER_SORT_COLUMNS, 'name');
  const actor = { id: ctx.user.id, roleKind: ctx.role.kind };
  const [{ rows, total }, roles] = await Promise.all([
    listUsers({ accountId: ctx.account.id, page, pageSize: USERS_PAGE_SIZE, sort, dir }),
    listAssignableRoles({ accountId: ctx.account.id, actor }),
  ]);
  return {
    me: publicUser(ctx),
    actorIsOwner: ctx.role.kind === 'owner',
    users: rows.map((u) => ({
      id: u.id,
      name: `${u.firstName} ${u.lastName}`.trim(),
      firstName: u.firstName,
      lastName: u.lastName,
      email: u.email,
      roleName: u.roleName,
      roleKind: u.roleKind,
      statusLabel: u.statusLabel,
      hasAccess: u.hasAccess,
      invitePending: u.status === 'pending' && Boolean(u.invitedAt),
      lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
      avatarColor: u.avatarColor,
      hasAvatar: u.hasAvatar,
    })),
    total,
    page,
    roles,
  };
}

type ActionResult = { intent: 'invite'; result: SubmissionResult<string[]> } | { intent: 'access' | 'resend' | 'invite'; error: string };

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireOrgAdmin(request);
  const actor = { id: ctx.user.id, roleKind: ctx.role.kind };
  const accountId = ctx.account.id;
  const formData = await request.formData();
  const intent = formData.get('intent');
  switch (intent) {
    case 'invite': {
      const submission = parseWithZod(formData, { schema: InviteUserSchema });
      if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
      const role = await checkRoleAssignable({ accountId, actor, roleId: submission.value.roleId });
      if (!role.ok) {
        const message = role.reason === 'forbidden' ? role.message : 'Choose a role';
        return data<ActionResult>({ intent, result: submission.reply({ fieldErrors: { roleId: [message] } }) }, { status: role.reason === 'forbidden' ? 403 : 400 });
      }
      // Billing on with a subscription: only as many agents as paid seats (ADR 074).
      const seats = await seatRefusal(accountId);
      if (seats) return data<ActionResult>({ intent, error: seats }, { status: 409 });
      try {
        await inviteUser({ accountId, invitedById: ctx.user.id, ...submission.value, baseUrl: accountUrl(request, ctx.account.domain, '') });
      } catch (err) {
        if (!(err instanceof UserExistsError)) throw err;
        return data<ActionResult>({ intent, result: submission.reply({ fieldErrors: { email: [USER_EXISTS_MESSAGE] } }) }, { status: 400 });
      }
      return redirectWithToast(USERS_PATH, 'Invitation sent');
    }
    case 'resend': {
      const submission = parseWithZod(formData, { schema: UserIdSchema });
      if (submission.status !== 'success') throw new Response('Unknown user', { status: 400 });
      const { userId } = submission.value;
      if (!(await getUser({ accountId, userId }))) throw new Response('Not Found', { status: 404 });
      const sent = await resendInvitation({ accountId, userId, actorId: ctx.user.id, baseUrl: accountUrl(request, ctx.account.domain, '') });
      if (!sent) return data<ActionResult>({ intent, error: 'This user has already accepted the invitation' }, { status: 400 });
      return redirectWithToast(USERS_PATH, 'Invitation sent');
    }
    case 'access': {
      const submission = parseWithZod(formData, { schema: UserAccessSchema });
      if (submission.status !== 'success' || !submission.value.userId) throw new Response('Bad request', { status: 400 });
      const seats = submission.value.access === 'give' ? await seatRefusal(accountId) : null;
      if (seats) return data<ActionResult>({ intent, error: seats }, { status: 409 });
      const result = await setUserAccess({ accountId, actor, userId: submission.value.userId, hasAccess: submission.value.access === 'give' });
      if (!result.ok) {
        if (result.reason === 'forbidden') return data<ActionResult>({ intent, error: result.message }, { status: 403 });
        throw new Response('Not Found', { status: 404 });
      }
      return redirectWithToast(USERS_PATH, 'User Updated');
    }
    default:
      throw new Response('Unknown intent', { status: 400 });
  }
}


export default function Users() {
  const { me, users, total, page, roles } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const agentRole = roles.find((r) => r.kind === 'agent');
  const [form, fields] = useForm<z.input<typeof InviteUserSchema>>({
    id: 'invite',
    defaultValue: { roleId: agentRole ? String(agentRole.id) : '' },
    lastResult: actionData && 'result' in actionData ? actionData.result : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <div className="stack">
      <SettingsPage title="Users" subHeader="Invite people to your organisation, choose their role, and give or refuse access.">
        {actionData && 'error' in actionData ? (
          <p className="form-error" role="alert" data-testid="action-error">
            {actionData.error}
          </p>
        ) : null}
        <table className="table" data-testid="users-table">
          <thead>
            <tr>
              <SortHeader column="name" label="Name" />
              <SortHeader column="email" label="Email" />
              <SortHeader column="role" label="Role" />
              <SortHeader column="status" label="Status" />
              <SortHeader column="lastSignIn" label="Last sign-in" />
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} data-user-id={u.id}>
                <td>
                  <Link to={`${USERS_PATH}/${u.id}`} className="row">
                    <Avatar user={u} size={24} /> {u.name}
                    {u.id === me.id ? <span className="muted"> (you)</span> : null}
                  </Link>
                </td>
                <td>{u.email}</td>
                <td>{u.roleName}</td>
                <td>
                  <span className={`pill${u.statusLabel === 'Active' ? ' pill-ok' : ''}`}>{u.statusLabel}</span>
                </td>
                <td>{u.lastSignInAt ? formatDateTime(u.lastSignInAt, me) : <span className="muted">Never</span>}</td>
                <td>
                  <div className="row">
                    {u.invitePending && u.hasAccess ? (
                      <Form method="post">
                        <input type="hidden" name="userId" value={u.id} />
                        <button type="submit" className="btn" name="intent" value="resend">
                          Resend invitation
                        </button>
                      </Form>
                    ) : null}
                    {u.id !== me.id && u.roleKind !== 'owner' ? (
                      <Form method="post">
                        <input type="hidden" name="userId" value={u.id} />
                        <input type="hidden" name="access" value={u.hasAccess ? 'refuse' : 'give'} />
                        <button type="submit" className="btn" name="intent" value="access">
                          {u.hasAccess ? 'Refuse access' : 'Give access'}
                        </button>
                      </Form>
                    ) : null}
                    <Link to={`${USERS_PATH}/${u.id}`} className="btn">
                      Edit
                    </Link>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager page={page} pageSize={USERS_PAGE_SIZE} total={total} />
      </SettingsPage>

      <SettingsPage title="Invite a user" subHeader="They receive an email with a link to set their password.">
        <Form method="post" {...getFormProps(form)}>
          <Field label="Email" field={fields.email} type="email" autoComplete="off" />
          <div className="row">
            <Field label="First name" field={fields.firstName} autoComplete="off" />
            <Field label="Last name" field={fields.lastName} autoComplete="off" />
          </div>
          <SelectField
            label="Role"
            field={fields.roleId}
            options={roles.map((r) => ({ value: String(r.id), label: r.name }))}
            placeholder="Choose a role"
          />
          <ErrorList id={form.errorId} errors={form.errors} />
          <div className="actions">
            <button type="submit" className="btn btn-primary" name="intent" value="invite">
              Send invitation
            </button>
          </div>
        </Form>
      </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Users', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
