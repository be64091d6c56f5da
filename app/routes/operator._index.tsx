import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { formatBytes, utc } from '~/components/operator/console';
import { TableHead } from '~/components/ui/list-table';
import { Pager, readPage } from '~/components/ui/pager';
import { listConsoleAccounts } from '~/models/operations/accounts.server';
import { pageTitle } from '~/utils/format';
import { requireOperator } from '~/utils/operator-session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request);
  const url = new URL(request.url);
  const q = (url.searchParams.get('q') ?? '').slice(0, 100);
  const s = url.searchParams.get('status');
  const status = s === 'suspended' || s === 'active' ? s : undefined;
  const list = await listConsoleAccounts({ q, status, page: readPage(url) });
  return { q, status: status ?? '', list };
}

export default function OperatorAccounts() {
  const { q, status, list } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page">
      <header>
        <div>
          <h1>Accounts</h1>
          <p className="muted">Every account of this installation: {list.total}.</p>
        </div>
      </header>
      <div className="card stack">
        <Form method="get" className="search-form row wrap" role="search" aria-label="Search accounts">
          <input type="search" name="q" defaultValue={q} aria-label="Domain or name" placeholder="Domain or name" maxLength={100} />
          <select name="status" defaultValue={status} aria-label="Status">
            <option value="">All accounts</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
          </select>
          <button type="submit" className="btn">
            Search
          </button>
          {q || status ? (
            <Link to="/operator" className="btn btn-link">
              Clear
            </Link>
          ) : null}
        </Form>
        {list.rows.length === 0 ? (
          <p className="muted" data-testid="accounts-empty">
            {q || status ? 'No account matches.' : 'No accounts yet.'}
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="operator-accounts">
              <TableHead headers={['Domain', 'Name', 'Plan', 'Users', 'Conversations', 'Storage', 'Last activity', 'Status']} />
              <tbody>
                {list.rows.map((a) => (
                  <tr key={a.id} data-domain={a.domain}>
                    <td>
                      <Link to={`/operator/accounts/${a.id}`}>{a.domain}</Link>
                    </td>
                    <td>{a.name}</td>
                    <td>{a.planName}</td>
                    <td>{a.users}</td>
                    <td>{a.conversations}</td>
                    <td>{formatBytes(a.storageBytes)}</td>
                    <td>{utc(a.lastActivityAt)}</td>
                    <td>{a.suspendedAt ? <strong className="badge badge-danger">Suspended</strong> : 'Active'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
      </div>
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Accounts', 'Operator') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
