import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useLocation } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { readResponseFilters } from '~/models/forms/filters';
import { answerLabel, getForm, listResponses } from '~/models/forms/forms.server';
import { formatDateTime, pageTitle, truncate } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requirePermission } from '~/utils/session.server';

/** A form's responses: contact data, so manage_contacts reads them (ADR 067). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerManagement/enabled', await requirePermission(request, 'manage_contacts'));
  const id = parseRouteId(params.id);
  const form = id ? await getForm({ accountId: ctx.account.id, id }) : undefined;
  if (!form) throw new Response('Not Found', { status: 404 });
  const url = new URL(request.url);
  const filters = readResponseFilters(url);
  const list = await listResponses({ accountId: ctx.account.id, formId: form.id, page: readPage(url), ...filters });
  const summary = form.fields.filter((f) => f.type !== 'email' && f.type !== 'file').slice(0, 2);
  return {
    form: { id: form.id, name: form.name },
    filters: { q: filters.q ?? '', from: filters.fromText, to: filters.toText },
    summary,
    list: {
      ...list,
      rows: list.rows.map((row) => ({
        id: row.id,
        email: row.email,
        name: [row.firstName, row.lastName].filter(Boolean).join(' '),
        contactId: row.contactId,
        conversationId: row.conversationId,
        pending: row.pending,
        createdAt: row.createdAt,
        summary: summary.map((f) => truncate(answerLabel(f, row.answers[f.key]), 60)),
      })),
    },
    canExport: can(ctx, 'export_contacts'),
    user: publicUser(ctx),
  };
}

export const handle = { breadcrumb: (d: { form: { name: string } } | undefined) => (d ? `${d.form.name} · Responses` : null) };

export default function FormResponses() {
  const { form, filters, summary, list, canExport, user } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  const filtered = Boolean(filters.q || filters.from || filters.to);
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Responses: {form.name}</h1>
        <span className="muted" data-testid="response-count">
          {list.total}
        </span>
        <div className="spacer" />
        <Link to={`/forms/edit/${form.id}`} className="btn">
          Edit form
        </Link>
        {canExport ? (
          <a href={`/forms/responses/${form.id}/export${search}`} className="btn" download>
            Export CSV
          </a>
        ) : null}
      </header>
      <Form method="get" className="filters row wrap" role="search" aria-label="Filter responses">
        <input type="search" name="q" defaultValue={filters.q} aria-label="Search responses" placeholder="Search responses" maxLength={100} />
        <label>
          From <input type="date" name="from" defaultValue={filters.from} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={filters.to} />
        </label>
        <button type="submit" className="btn">
          Filter
        </button>
        {filtered ? (
          <Link to={`/forms/responses/${form.id}`} className="btn btn-link">
            Clear
          </Link>
        ) : null}
      </Form>
      <ListTable
        list={list}
        testId="responses-table"
        rowTestId={(r) => `response-${r.email}`}
        empty={filtered ? 'No response matches these filters.' : 'No responses yet. Publish the form and share its address.'}
        columns={[
          { header: 'Submitted', cell: (r) => <Link to={`/forms/responses/${form.id}/${r.id}`}>{formatDateTime(r.createdAt, user)}</Link> },
          {
            header: 'Contact',
            cell: (r) =>
              r.contactId ? (
                <Link to={`/customers/${r.contactId}`}>{r.name || r.email}</Link>
              ) : r.pending ? (
                <span className="muted" data-testid="response-pending">
                  Being filed…
                </span>
              ) : (
                (r.email ?? '—')
              ),
          },
          { header: 'Email', cell: (r) => r.email ?? '' },
          ...summary.map((f, i) => ({ header: f.label, cell: (r: (typeof list.rows)[number]) => r.summary[i] })),
          { header: 'Conversation', cell: (r) => (r.conversationId ? <Link to={`/inbox/${r.conversationId}`}>Open</Link> : r.pending ? <span className="muted">Being filed…</span> : '—') },
        ]}
      />
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle('Responses', d?.form.name ?? 'Form') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
