import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { TableHead } from '~/components/ui/list-table';
import { Form, Link, useLoaderData, useLocation } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Pager, readPage } from '~/components/ui/pager';
import { SettingsPage } from '~/components/ui/settings-page';
import { auditRetentionDays, listAuditActors, listAuditEntries, readAuditFilters } from '~/models/audit/audit-logs.server';
import { AUDIT_OBJECT_TYPES, AUDITED_TYPES, describeType } from '~/models/audit/constants';
import { formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';

/** Who did what, when and from where: a read-only view over the account's domain events (ADR 070). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'view_audit_logs');
  await requireFeature(request, 'support/auditLogs', ctx);
  const url = new URL(request.url);
  const filters = readAuditFilters(url);
  const [list, actors] = await Promise.all([
    listAuditEntries({ accountId: ctx.account.id, filters, page: readPage(url) }),
    listAuditActors({ accountId: ctx.account.id }),
  ]);
  return {
    user: publicUser(ctx),
    filters,
    actors: actors.map((a) => ({ id: a.id, name: `${a.firstName} ${a.lastName}`.trim() || a.email })),
    retentionDays: auditRetentionDays(),
    list: {
      ...list,
      rows: list.rows.map((r) => ({
        id: r.id,
        action: r.action,
        subjectType: r.subjectType,
        subjectId: r.subjectId,
        actor: r.actorType === 'user' ? (r.actorName ?? r.actorEmail ?? `User ${r.actorId}`) : r.actorType === 'engine' ? 'Automation' : r.actorType === 'contact' ? 'Customer' : 'System',
        changes: r.changes.map((c) => ({ field: c.field, before: show(c.before), after: show(c.after) })),
        ip: r.ip,
        userAgent: r.userAgent,
        occurredAt: r.occurredAt,
      })),
    },
  };
}

function show(v: unknown) {
  if (v === null || v === undefined || v === '') return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export const handle = { breadcrumb: 'Audit Logs' };

export default function AuditLogs() {
  const { user, filters, actors, list, retentionDays } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  const filtered = Object.keys(filters).length > 0;
  const exportQuery = new URLSearchParams(search);
  exportQuery.delete('page');
  return (
    <SettingsPage
      title="Audit Logs"
      subHeader={`Who changed what, when and from where. Entries cannot be edited or deleted; they are kept for ${retentionDays} days.`}
      learnMore="/help-center"
      actions={
        <a className="btn" href={`/settings/audit-logs/export${exportQuery.size ? `?${exportQuery}` : ''}`} download data-testid="audit-export">
          Export CSV
        </a>
      }
    >
      <div className="stack">
        <Form method="get" className="filters row wrap" role="search" aria-label="Filter the audit log">
          <select name="actor" defaultValue={filters.actor ?? ''} aria-label="Actor">
            <option value="">Everyone</option>
            {actors.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
            <option value="engine">Automation</option>
            <option value="system">System</option>
          </select>
          <select name="type" defaultValue={filters.type ?? ''} aria-label="Event type">
            <option value="">All events</option>
            {AUDITED_TYPES.map((t) => (
              <option key={t} value={t}>
                {describeType(t)}
              </option>
            ))}
          </select>
          <select name="object" defaultValue={filters.subjectType ?? ''} aria-label="Object">
            <option value="">All objects</option>
            {AUDIT_OBJECT_TYPES.map((t) => (
              <option key={t} value={t}>
                {describeType(t)}
              </option>
            ))}
          </select>
          <input name="objectId" defaultValue={filters.subjectId ?? ''} aria-label="Object id" placeholder="Object id" maxLength={64} size={8} />
          <label>
            From <input type="date" name="from" defaultValue={filters.from ?? ''} />
          </label>
          <label>
            To <input type="date" name="to" defaultValue={filters.to ?? ''} />
          </label>
          <button type="submit" className="btn">
            Filter
          </button>
          {filtered ? (
            <Link to="/settings/audit-logs" className="btn btn-link">
              Clear
            </Link>
          ) : null}
        </Form>
        {list.rows.length === 0 ? (
          <p className="muted" data-testid="audit-empty">
            {filtered ? 'No entries match these filters.' : 'Nothing has been recorded yet.'}
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="audit-log">
              <TableHead headers={['When', 'Who', 'What', 'Object', 'Changes', 'From']} />
              <tbody>
                {list.rows.map((r) => (
                  <tr key={r.id} data-testid={`audit-${r.id}`}>
                    <td>{formatDateTime(r.occurredAt, user)}</td>
                    <td>{r.actor}</td>
                    <td>{r.action}</td>
                    <td>
                      {describeType(r.subjectType)} #{r.subjectId}
                    </td>
                    <td>
                      {r.changes.length ? (
                        <ul style={{ margin: 0, paddingLeft: "1rem" }}>
                          {r.changes.map((c) => (
                            <li key={c.field}>
                              <strong>{c.field}</strong>: <del>{c.before}</del> → <ins>{c.after}</ins>
                            </li>
                          ))}
                        </ul>
                      ) : null}
                    </td>
                    <td>
                      {r.ip ?? '—'}
                      {r.userAgent ? <div className="muted" title={r.userAgent}>{r.userAgent.slice(0, 40)}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {list.capped ? <p className="muted">More than {list.total.toLocaleString('en')} entries match: narrow the filters or export them.</p> : null}
        <Pager page={list.page} pageSize={list.pageSize} total={list.total} />
      </div>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Audit Logs', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
