import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { SOURCE_KIND_LABELS, type ReviewSourceKind } from '~/models/reviews/constants';
import { listReviews, listSources } from '~/models/reviews/reviews.server';
import { formatDate, pageTitle, truncate } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, publicUser, requireFeature, requireUser } from '~/utils/session.server';

function day(v: string | null) {
  const d = v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requireUser(request));
  const url = new URL(request.url);
  const p = url.searchParams;
  const rating = Number(p.get('rating'));
  const replied = p.get('replied');
  const to = day(p.get('to'));
  const filters = {
    sourceId: parseRowId(p.get('source')),
    rating: Number.isInteger(rating) && rating >= 1 && rating <= 5 ? rating : null,
    replied: replied === 'yes' || replied === 'no' ? (replied as 'yes' | 'no') : null,
    from: day(p.get('from')),
    to: to ? new Date(to.getTime() + 86_400_000) : null,
    sort: p.get('sort') === 'rating' ? ('rating' as const) : ('date' as const),
    // survey-builder.md section 9: order asc unless asked otherwise.
    dir: p.get('dir') === 'desc' ? ('desc' as const) : ('asc' as const),
  };
  const [list, sources] = await Promise.all([listReviews({ accountId: ctx.account.id, filters, page: readPage(url) }), listSources({ accountId: ctx.account.id })]);
  return {
    list,
    sources: sources.map((x) => ({ id: x.id, name: x.name })),
    params: { source: p.get('source') ?? '', rating: filters.rating ? String(filters.rating) : '', replied: filters.replied ?? '', from: p.get('from') ?? '', to: p.get('to') ?? '', sort: filters.sort, dir: filters.dir },
    canManage: can(ctx, 'manage_surveys'),
    user: publicUser(ctx),
  };
}

export default function ReviewsList() {
  const { list, sources, params, canManage, user } = useLoaderData<typeof loader>();
  const filtered = Boolean(params.source || params.rating || params.replied || params.from || params.to);
  return (
    <section className="page stack">
      <header className="row wrap">
        <h1>Reviews</h1>
        <span className="muted" data-testid="review-count">
          {list.total}
        </span>
        <div className="spacer" />
        {canManage ? (
          <Link to="/settings/sources" className="btn">
            Sources
          </Link>
        ) : null}
      </header>
      {sources.length === 0 ? (
        <p className="muted">
          No review sources yet. {canManage ? <Link to="/settings/sources?source=new&kind=parley">Add your review page</Link> : 'Ask an administrator to add one.'}
        </p>
      ) : null}
      <Form method="get" className="filters row wrap" role="search" aria-label="Filter reviews">
        <select name="source" defaultValue={params.source} aria-label="Source">
          <option value="">All sources</option>
          {sources.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
        <select name="rating" defaultValue={params.rating} aria-label="Rating">
          <option value="">All ratings</option>
          {[5, 4, 3, 2, 1].map((n) => (
            <option key={n} value={n}>
              {n} star{n === 1 ? '' : 's'}
            </option>
          ))}
        </select>
        <select name="replied" defaultValue={params.replied} aria-label="Replied">
          <option value="">Replied or not</option>
          <option value="no">Not replied</option>
          <option value="yes">Replied</option>
        </select>
        <label>
          From <input type="date" name="from" defaultValue={params.from} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={params.to} />
        </label>
        <select name="sort" defaultValue={params.sort} aria-label="Sort by">
          <option value="date">Date</option>
          <option value="rating">Rating</option>
        </select>
        <select name="dir" defaultValue={params.dir} aria-label="Order">
          <option value="asc">Oldest / lowest first</option>
          <option value="desc">Newest / highest first</option>
        </select>
        <button type="submit" className="btn">
          Filter
        </button>
        {filtered ? (
          <Link to="/reviews" className="btn btn-link">
            Clear
          </Link>
        ) : null}
      </Form>
      <ListTable
        list={list}
        testId="reviews-table"
        rowTestId={(r) => `review-${r.id}`}
        empty={filtered ? 'No review matches these filters.' : 'No reviews yet.'}
        columns={[
          { header: 'Rating', cell: (r) => <span aria-label={`${r.rating} out of 5 stars`}>{'★'.repeat(r.rating)}</span> },
          {
            header: 'Review',
            cell: (r) => (
              <Link to={`/reviews/${r.id}`}>
                <strong>{r.reviewerName || 'Anonymous'}</strong> {r.text ? `— ${truncate(r.text, 80)}` : ''}
              </Link>
            ),
          },
          { header: 'Source', cell: (r) => `${r.sourceName} (${SOURCE_KIND_LABELS[r.sourceKind as ReviewSourceKind] ?? r.sourceKind})` },
          { header: 'Date', cell: (r) => formatDate(r.reviewedAt, user) },
          { header: 'Replied', cell: (r) => (r.replyText ? 'Replied' : <span className="pill pill-off">Not replied</span>) },
        ]}
      />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Reviews') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
