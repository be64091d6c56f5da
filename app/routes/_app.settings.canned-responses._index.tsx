import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ListSearch } from '~/components/ui/list-search';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { pageCannedResponses } from '~/models/productivity/canned-responses.server';
import { formatDate, pageTitle, truncate } from '~/utils/format';
import { can, publicUser, requireUser } from '~/utils/session.server';

/** Everyone may read the account's canned responses; manage_canned_responses changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get('q')?.trim() ?? '';
  const list = await pageCannedResponses({ accountId: ctx.account.id, q, page: readPage(url) });
  return {
    user: publicUser(ctx),
    q,
    list: { ...list, rows: list.rows.map((r) => ({ id: r.id, name: r.name, message: r.message, updatedAt: r.updatedAt })) },
    locked: !can(ctx, 'manage_canned_responses'),
  };
}

export default function CannedResponses() {
  const { user, q, list, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Canned Responses"
      subHeader="Saved replies that agents insert into a conversation in one click."
      learnMore="/help-center"
      locked={locked}
      actions={
        <Link to="/settings/canned-responses/new" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Create Canned Response
        </Link>
      }
    >
      <ListSearch q={q} label="Search canned responses" action="/settings/canned-responses" />
      {list.total === 0 ? (
        <p className="muted" data-testid="empty">
          {q ? 'No canned responses match your search.' : 'No canned responses yet.'}
        </p>
      ) : (
        <table className="table" data-testid="canned-responses">
          <thead>
            <tr>
              <th>Name</th>
              <th>Message</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link to={`/settings/canned-responses/${r.id}`}>{r.name}</Link>
                </td>
                <td>{truncate(r.message, 80)}</td>
                <td>{formatDate(r.updatedAt, user)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Canned Responses', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
