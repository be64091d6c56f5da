import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { formatBytes, utc } from '~/components/operator/console';
import { TableHead } from '~/components/ui/list-table';
import { systemStatus } from '~/models/operations/status.server';
import { pageTitle } from '~/utils/format';
import { requireOperator } from '~/utils/operator-session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request);
  return { status: await systemStatus() };
}

const MIGRATION_WORDS = {
  current: 'up to date',
  behind: 'behind this build: migrations are pending (they run at the next start)',
  ahead: 'newer than this build: a newer version migrated this database',
  none: 'never migrated',
} as const;

export default function OperatorStatus() {
  const { status: s } = useLoaderData<typeof loader>();
  const alive = s.nodes.filter((n) => n.alive);
  return (
    <section className="settings-page">
      <header>
        <div>
          <h1>System status</h1>
          <p className="muted">Parley {s.version}</p>
        </div>
      </header>
      <div className="card stack">
        <h2>Database schema</h2>
        <dl className="facts" data-testid="status-migration">
          <dt>State</dt>
          <dd>{MIGRATION_WORDS[s.migration.state]}</dd>
          <dt>Expected</dt>
          <dd>
            {s.migration.expectedTag} ({utc(s.migration.expectedAt)})
          </dd>
          <dt>Applied</dt>
          <dd>
            {s.migration.appliedCount} migrations, newest {utc(s.migration.appliedAt)}
          </dd>
        </dl>
      </div>
      <div className="card stack">
        <h2>Nodes</h2>
        <p className="muted">
          {alive.length} running; each process writes a heartbeat once a minute.
        </p>
        <div className="table-wrap">
          <table className="table" data-testid="status-nodes">
            <TableHead headers={['Node', 'Role', 'Version', 'Started', 'Last seen', 'State']} />
            <tbody>
              {s.nodes.map((n) => (
                <tr key={n.nodeId}>
                  <td>
                    {n.name}
                    {n.self ? ' (this page)' : ''}
                  </td>
                  <td>{n.role}</td>
                  <td>{n.version}</td>
                  <td>{utc(n.startedAt)}</td>
                  <td>{utc(n.seenAt)}</td>
                  <td>{n.alive ? 'running' : <strong>not seen for over 3 minutes</strong>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <div className="card stack">
        <h2>Queues</h2>
        <p data-testid="status-lag">
          Engine lag:{' '}
          {!s.lag
            ? 'could not be read (the job tables of pg-boss are missing: has an engine ever started?)'
            : s.lag.oldestUnhandledSeconds === null
              ? 'no event waiting'
              : `the oldest waiting event has waited ${Math.round(s.lag.oldestUnhandledSeconds)} s`}
        </p>
        {!s.queues ? (
          <p className="form-error">The queues could not be read.</p>
        ) : s.queues.length === 0 ? (
          <p className="muted">No jobs.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="status-queues">
              <TableHead headers={['Queue', 'Queued', 'Active', 'Retrying', 'Failed']} />
              <tbody>
                {s.queues.map((q) => (
                  <tr key={q.queue}>
                    <td>{q.queue}</td>
                    <td>{q.queued}</td>
                    <td>{q.active}</td>
                    <td>{q.retrying}</td>
                    <td>{q.failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <div className="card stack">
        <h2>Channels failing</h2>
        {s.failingChannels.length === 0 ? (
          <p className="muted" data-testid="status-channels-ok">
            No channel of any account is failing.
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="status-channels">
              <TableHead headers={['Account', 'Inbox', 'Part', 'Since', 'Error']} />
              <tbody>
                {s.failingChannels.map((c, i) => (
                  <tr key={i}>
                    <td>{c.domain}</td>
                    <td>{c.inboxName}</td>
                    <td>{c.label}</td>
                    <td>{utc(c.failingSince)}</td>
                    <td>{c.lastError ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <div className="card stack">
        <h2>Mail delivery failures (7 days)</h2>
        {s.mailFailures.total === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <>
            <p>{s.mailFailures.total} failed; the newest:</p>
            <div className="table-wrap">
              <table className="table" data-testid="status-mail">
                <TableHead headers={['When', 'Account', 'Subject', 'Error']} />
                <tbody>
                  {s.mailFailures.rows.map((m) => (
                    <tr key={m.id}>
                      <td>{utc(m.createdAt)}</td>
                      <td>{m.domain ?? '—'}</td>
                      <td>{m.subject}</td>
                      <td>{m.error ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
      <div className="card stack">
        <h2>Backups</h2>
        {s.backups.length === 0 ? (
          <p className="muted" data-testid="status-backups-none">
            No backup has run on this installation.
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="status-backups">
              <TableHead headers={['Started', 'Finished', 'Status', 'Size', 'Archive', 'Error']} />
              <tbody>
                {s.backups.map((b) => (
                  <tr key={b.id}>
                    <td>{utc(b.startedAt)}</td>
                    <td>{utc(b.finishedAt)}</td>
                    <td>{b.status}</td>
                    <td>{formatBytes(b.sizeBytes)}</td>
                    <td>{b.path ?? '—'}</td>
                    <td>{b.error ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
      <div className="card stack">
        <h2>Disk</h2>
        {s.disk.error ? (
          <p className="form-error">
            The filesystem of {s.disk.path} could not be read ({s.disk.error}).
          </p>
        ) : (
          <p data-testid="status-disk">
            {s.disk.path}: {formatBytes(s.disk.freeBytes)} free of {formatBytes(s.disk.totalBytes)} ({Math.round((s.disk.usedBytes / Math.max(1, s.disk.totalBytes)) * 100)} % used)
          </p>
        )}
      </div>
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('System status', 'Operator') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
