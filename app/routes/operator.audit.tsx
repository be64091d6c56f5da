import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { utc } from '~/components/operator/console';
import { TableHead } from '~/components/ui/list-table';
import { Pager, readPage } from '~/components/ui/pager';
import { listOperatorAudit } from '~/models/operations/audit.server';
import { ACTION_LABELS, type OperatorAction } from '~/models/operations/audit-labels';
import { pageTitle } from '~/utils/format';
import { requireOperator } from '~/utils/operator-session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request);
  return { list: await listOperatorAudit({ page: readPage(new URL(request.url)) }) };
}

export default function OperatorAudit() {
  const { list } = useLoaderData<typeof loader>();
  return (
    <section className="settings-page">
      <header>
        <div>
          <h1>Audit log</h1>
          <p className="muted">What operators and the command line did on this installation, newest first.</p>
        </div>
      </header>
      <div className="card stack">
        {list.rows.length === 0 ? (
          <p className="muted">Nothing has been recorded yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="operator-audit">
              <TableHead headers={['When', 'Who', 'What', 'Account', 'Details', 'From']} />
              <tbody>
                {list.rows.map((e) => (
                  <tr key={e.id}>
                    <td>{utc(e.createdAt)}</td>
                    <td>{e.actor}</td>
                    <td>{ACTION_LABELS[e.action as OperatorAction] ?? e.action}</td>
                    <td>{e.accountDomain ? e.accountId && e.action !== 'account.delete' ? <Link to={`/operator/accounts/${e.accountId}`}>{e.accountDomain}</Link> : e.accountDomain : '—'}</td>
                    <td>
                      {Object.entries(e.details).length
                        ? Object.entries(e.details)
                            .map(([k, v]) => `${k}: ${v}`)
                            .join(', ')
                        : '—'}
                    </td>
                    <td>{e.ip ?? '—'}</td>
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

export const meta: MetaFunction = () => [{ title: pageTitle('Audit log', 'Operator') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
