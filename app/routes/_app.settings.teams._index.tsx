import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { readSort, SortHeader } from '~/components/ui/sort-header';
import { listTeams, TEAM_SORTS } from '~/models/teams/teams.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser, requireFeature } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'teamManagement/teams');
  const url = new URL(request.url);
  const { sort, dir } = readSort(url, TEAM_SORTS, 'name');
  const teams = await listTeams({ accountId: ctx.account.id, page: readPage(url), sort, dir });
  return { user: publicUser(ctx), teams, canEdit: ctx.isOrgAdmin };
}


export default function Teams() {
  const { user, teams, canEdit } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Teams"
      subHeader="Group users into teams to route and report on conversations together."
      learnMore="/help-center"
      actions={
        <Link to="/settings/teams/new" className="btn btn-primary">
          {canEdit ? null : <DeniedBadge kind="role" />} Create Team
        </Link>
      }
    >
      {teams.total === 0 ? (
        <p className="muted" data-testid="empty">
          No teams yet.
        </p>
      ) : (
        <table className="table" data-testid="teams">
          <thead>
            <tr>
              <SortHeader column="name" label="Name" />
              <th>Description</th>
              <th>Members</th>
              <SortHeader column="createdAt" label="Created" />
            </tr>
          </thead>
          <tbody>
            {teams.rows.map((t) => (
              <tr key={t.id}>
                <td>
                  <Link to={`/settings/teams/${t.id}`}>{t.name}</Link>
                </td>
                <td>{t.description}</td>
                <td>{t.memberCount}</td>
                <td>{formatDate(t.createdAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={teams.page} pageSize={teams.pageSize} total={teams.total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Teams', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
