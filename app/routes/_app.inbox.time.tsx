import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { TableHead } from '~/components/ui/list-table';
import { Form, Link, useLoaderData, useLocation } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { listAuditActors } from '~/models/audit/audit-logs.server';
import { readTimeFilters, TimeTrackingSettingsSchema } from '~/models/time-tracking/schemas';
import { setStopTimersOnResolve, timeReport } from '~/models/time-tracking/time-entries.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { formatHoursMinutes } from '~/utils/duration';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Logged time across the account: by agent, contact and company, with the CSV of every entry (ADR 071). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const filters = readTimeFilters(new URL(request.url));
  const [report, agents] = await Promise.all([timeReport({ accountId: ctx.account.id, filters }), listAuditActors({ accountId: ctx.account.id })]);
  return {
    filters,
    report,
    agents: agents.map((a) => ({ id: a.id, name: `${a.firstName} ${a.lastName}`.trim() || a.email })),
    stopTimersOnResolve: Boolean(ctx.account.settings.stopTimersOnResolve),
    canConfigure: can(ctx, 'manage_general_settings'),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_general_settings');
  const formData = await request.formData();
  if (formData.get('intent') !== 'settings') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: TimeTrackingSettingsSchema });
  if (submission.status !== 'success') throw new Response('Bad settings', { status: 400 });
  await setStopTimersOnResolve({ accountId: ctx.account.id, actorId: ctx.user.id, value: submission.value.stopTimersOnResolve });
  return redirectWithToast('/inbox/time', 'Settings Updated');
}

export const handle = { breadcrumb: 'Time tracking' };

export default function TimeReport() {
  const { filters, report, agents, stopTimersOnResolve, canConfigure } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  return (
    <section className="page stack" data-testid="time-report">
      <header className="row">
        <h1>Time tracking</h1>
        <div className="spacer" />
        <a className="btn" href={`/inbox/time/export${search}`} download data-testid="time-export">
          Export CSV
        </a>
      </header>
      <Form method="get" className="filters row wrap" role="search" aria-label="Filter logged time">
        <select name="agent" defaultValue={filters.userId ?? ''} aria-label="Agent">
          <option value="">All agents</option>
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
        <label>
          From <input type="date" name="from" defaultValue={filters.from ?? ''} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={filters.to ?? ''} />
        </label>
        <button className="btn" type="submit">
          Filter
        </button>
        {Object.keys(filters).length ? (
          <Link to="/inbox/time" className="btn btn-link">
            Clear
          </Link>
        ) : null}
      </Form>
      <p data-testid="time-report-total">
        Total logged: <strong>{formatHoursMinutes(report.totalSeconds)}</strong>
      </p>
      <div className="row wrap" style={{ alignItems: 'flex-start' }}>
        <Totals title="By agent" rows={report.byAgent} testId="time-by-agent" />
        <Totals title="By contact" rows={report.byContact} testId="time-by-contact" link={(id) => `/customers/${id}`} />
        <Totals title="By company" rows={report.byCompany} testId="time-by-company" link={(id) => `/customers/companies/${id}`} />
      </div>
      {canConfigure ? (
        <Form method="post" className="card row" aria-label="Time tracking settings">
          <label className="check">
            <input type="checkbox" name="stopTimersOnResolve" defaultChecked={stopTimersOnResolve} /> Stop running timers when a conversation is resolved
          </label>
          <button className="btn" name="intent" value="settings">
            Save
          </button>
        </Form>
      ) : (
        <p className="muted">Running timers {stopTimersOnResolve ? 'stop' : 'keep running'} when a conversation is resolved.</p>
      )}
    </section>
  );
}

function Totals({ title, rows, testId, link }: { title: string; rows: { id: number; name: string | null; seconds: number; billableSeconds: number }[]; testId: string; link?: (id: number) => string }) {
  return (
    <div className="card">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">Nothing logged.</p>
      ) : (
        <table className="table" data-testid={testId}>
          <TableHead headers={['Name', 'Time', 'Billable']} />
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{link ? <Link to={link(r.id)}>{r.name}</Link> : r.name}</td>
                <td>{formatHoursMinutes(r.seconds)}</td>
                <td>{formatHoursMinutes(r.billableSeconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Time tracking', 'Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
