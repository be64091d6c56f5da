import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { listRolesPage } from '~/models/roles/roles.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const roles = await listRolesPage({ accountId: ctx.account.id, page: readPage(new URL(request.url)) });
  return { user: publicUser(ctx), roles, canEdit: ctx.isOrgAdmin };
}


export default function Roles() {
  const { user, roles, canEdit } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Roles"
      subHeader="A role is the set of permissions its users have. Owner, Admin and Agent come with every account."
      learnMore="/help-center"
      actions={
        <Link to="/settings/roles/new" className="btn btn-primary">
          {canEdit ? null : <DeniedBadge kind="role" />} Create Role
        </Link>
      }
    >
      <table className="table" data-testid="roles">
        <thead>
          <tr>
            <th>Role</th>
            <th>Description</th>
            <th>Users</th>
            <th>Type</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {roles.rows.map((r) => (
            <tr key={r.id}>
              <td>
                <Link to={`/settings/roles/${r.id}`}>{r.name}</Link>
              </td>
              <td>{r.description}</td>
              <td>{r.userCount}</td>
              <td>{r.kind ? <span className="pill">Default</span> : <span className="pill pill-ok">Custom</span>}</td>
              <td>{formatDate(r.createdAt, user)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager page={roles.page} pageSize={roles.pageSize} total={roles.total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Roles', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
