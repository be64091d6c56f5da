import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState, type MouseEvent } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { PERMISSION_GROUPS, ROLE_LOCKED_MESSAGE, type PermissionGroup } from '~/models/roles/permissions';
import { createRole, deleteRole, getRole, listRoleUsers, RoleInputError, updateRole } from '~/models/roles/roles.server';
import { isPermissionGroup, PERMISSION_GROUP_NAMES, toggleGroup } from '~/models/roles/constants';
import { RoleSchema } from '~/models/roles/schemas';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, requireUser, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** `new` is create mode, a number is edit mode, anything else is not a page. */
function readRoleId(param: string | undefined): 'new' | number {
  if (param === 'new') return 'new';
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readRoleId(params.roleId);
  // Custom roles are the plan feature teamManagement/customRoles (ADR 022): without it the defaults stay as they are.
  if (id === 'new') await requireFeature(request, 'teamManagement/customRoles', ctx);
  const role = id === 'new' ? null : await getRole({ accountId: ctx.account.id, id });
  if (role === undefined) throw new Response('Not Found', { status: 404 });
  const users = role ? await listRoleUsers({ accountId: ctx.account.id, roleId: role.id }) : [];
  return {
    role: role ? { id: role.id, name: role.name, description: role.description, kind: role.kind, permissions: role.permissions } : null,
    users,
    locked: !ctx.isOrgAdmin,
  };
}

const text = (v: FormDataEntryValue | null) => (typeof v === 'string' ? v : '');

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  if (!ctx.isOrgAdmin) await roleDenied(request);
  const id = readRoleId(params.roleId);
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (id !== 'new' && !(await getRole({ accountId: ctx.account.id, id }))) throw new Response('Not Found', { status: 404 });
  const formData = await request.formData();
  const intent = formData.get('intent');
  // Creating a role or changing one needs the plan feature; deleting stays possible after a downgrade (ADR 022).
  if (id === 'new' || intent === 'save') await requireFeature(request, 'teamManagement/customRoles', ctx);

  // Without JavaScript, "Select all" and "Clear" come here: the form is shown again with that group changed.
  if (intent === 'select-group' || intent === 'clear-group') {
    const group = formData.get('group') ?? new URL(request.url).searchParams.get('group');
    if (!isPermissionGroup(group)) throw new Response('Unknown permission group', { status: 400 });
    const current = formData.getAll('permissions').filter((p): p is string => typeof p === 'string');
    const result: SubmissionResult<string[]> = {
      initialValue: { role: text(formData.get('role')), description: text(formData.get('description')), permissions: toggleGroup(current, group, intent === 'select-group') },
    };
    return data(result, { status: 200 });
  }

  if (intent === 'delete' && id !== 'new') {
    try {
      if (!(await deleteRole({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    } catch (err) {
      if (err instanceof RoleInputError) return data<SubmissionResult<string[]>>({ status: 'error', error: { '': [err.message] } }, { status: 400 });
      throw err;
    }
    return redirectWithToast('/settings/roles', { type: 'info', text: 'Role Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: RoleSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const input = { ...who, name: submission.value.role, description: submission.value.description ?? null, permissions: submission.value.permissions };
  try {
    if (id === 'new') {
      await createRole(input);
      return redirectWithToast('/settings/roles', 'Role Created');
    }
    if (!(await updateRole({ ...input, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/settings/roles', { type: 'info', text: 'Role Updated' });
  } catch (err) {
    if (err instanceof RoleInputError) {
      return data(submission.reply(err.field ? { fieldErrors: { [err.field]: [err.message] } } : { formErrors: [err.message] }), { status: 400 });
    }
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { role: { name: string } | null } | undefined) => (loaderData ? (loaderData.role?.name ?? 'Create Role') : null),
};

export default function RolePage() {
  const loaderData = useLoaderData<typeof loader>();
  // A fresh form per role, so that moving from one role to another does not carry choices over.
  return <RoleEditor key={loaderData.role?.id ?? 'new'} {...loaderData} />;
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

// Keeps the default (Enter key) submission on Save rather than on the first group's "Select all".
const offscreen = { position: 'absolute', left: '-10000px', width: 1, height: 1, overflow: 'hidden' } as const;

function RoleEditor({ role, users, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `role-${role?.id ?? 'new'}`,
    lastResult,
    defaultValue: role ? { role: role.name, description: role.description ?? '', permissions: role.permissions } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const [selected, setSelected] = useState(() => new Set(asList(fields.permissions.initialValue)));
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  const isOwner = role?.kind === 'owner';
  const frozen = locked || isOwner;
  const noneChosen = hydrated && selected.size === 0;
  const permissionErrors = [...new Set(Object.values(fields.permissions.allErrors).flat())];
  const showingPermissionError = permissionErrors.length > 0;

  useEffect(() => {
    // Once the permissions message is showing, keep it in step with the boxes.
    if (hydrated && showingPermissionError) form.validate({ name: 'permissions' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected]);

  // With JavaScript the group buttons change the boxes here instead of asking the server.
  const toggle = (group: PermissionGroup, select: boolean) => (event: MouseEvent<HTMLButtonElement>) => {
    event.preventDefault();
    setSelected((prev) => new Set(toggleGroup([...prev], group, select)));
    event.currentTarget.form?.dispatchEvent(new Event('change', { bubbles: true }));
  };
  const check = (permission: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(permission);
      else next.delete(permission);
      return next;
    });

  return (
    <SettingsPage
      title={role ? 'Edit Role' : 'Create Role'}
      subHeader={isOwner ? 'The Owner role has every permission and cannot be changed.' : 'Choose what the users with this role may do.'}
      learnMore="/help-center"
      locked={locked}
      actions={
        role && !role.kind ? (
          <DeleteConfirm id={`role-${role.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
        ) : null
      }
    >
      <Form method="post" {...getFormProps(form)}>
        <button type="submit" name="intent" value="save" style={offscreen} tabIndex={-1} aria-hidden="true" disabled={frozen || noneChosen} />
        <Field label="Role Name" field={fields.role} disabled={frozen} autoComplete="off" />
        <TextareaField label="Description" field={fields.description} disabled={frozen} />
        <fieldset aria-describedby={fields.permissions.errorId} data-testid="permissions">
          <legend>Permissions</legend>
          <div className="perm-grid">
            {PERMISSION_GROUP_NAMES.map((group) => (
              <fieldset key={group} data-group={group}>
                <legend>{group}</legend>
                <div className="row">
                  <button
                    type="submit"
                    className="btn btn-link"
                    name="intent"
                    value="select-group"
                    formAction={`?group=${group}`}
                    aria-label={`Select all ${group}`}
                    disabled={frozen}
                    onClick={toggle(group, true)}
                  >
                    Select all
                  </button>
                  <button
                    type="submit"
                    className="btn btn-link"
                    name="intent"
                    value="clear-group"
                    formAction={`?group=${group}`}
                    aria-label={`Clear ${group}`}
                    disabled={frozen}
                    onClick={toggle(group, false)}
                  >
                    Clear
                  </button>
                </div>
                {PERMISSION_GROUPS[group].map((permission) => (
                  <label key={permission} className="check">
                    <input
                      type="checkbox"
                      name="permissions"
                      value={permission}
                      checked={selected.has(permission)}
                      onChange={(e) => check(permission, e.currentTarget.checked)}
                      disabled={frozen}
                    />
                    {permission}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
          <ErrorList id={fields.permissions.errorId} errors={permissionErrors} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings/roles" submitLabel={role ? 'Update' : 'Create'} intent="save" locked={locked} disabled={isOwner || noneChosen} />
      </Form>
      {role ? (
        <section data-testid="role-users">
          <h2>Users with this role</h2>
          {users.length === 0 ? (
            <p className="muted">No user has this role.</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Email</th>
                  <th>Status</th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <tr key={u.id}>
                    <td>
                      <Link to={`/settings/users/${u.id}`}>{`${u.firstName} ${u.lastName}`.trim()}</Link>
                    </td>
                    <td>{u.email}</td>
                    <td>{!u.hasAccess ? 'No access' : u.status === 'pending' ? 'Invited' : 'Active'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ) : null}
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.role?.name ?? 'Create Role', 'Roles', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
