import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useLocation } from '@remix-run/react';
import { Plus } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ListTable } from '~/components/ui/list-table';
import { readPage } from '~/components/ui/pager';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { deleteArticle, pageArticles, restoreArticle, trashArticle } from '~/models/knowledge-base/articles.server';
import { listCategories } from '~/models/knowledge-base/categories.server';
import { ARTICLE_FILTERS, ARTICLE_SORTS, type ArticleFilter, type ArticleSort } from '~/models/knowledge-base/constants';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDate, pageTitle } from '~/utils/format';
import { parseRouteId, parseRowId } from '~/utils/route-id';
import { can, publicUser, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'view_articles') && !can(ctx, 'manage_articles')) await roleDenied(request);
  const url = new URL(request.url);
  const filterParam = url.searchParams.get('filter');
  const sortParam = url.searchParams.get('sort');
  const filter = (ARTICLE_FILTERS.find((f) => f.value === filterParam)?.value ?? 'all') as ArticleFilter;
  const sort = (ARTICLE_SORTS.find((s) => s.value === sortParam)?.value ?? 'dateModify') as ArticleSort;
  const q = url.searchParams.get('q')?.trim().slice(0, 100) ?? '';
  const categoryId = parseRouteId(url.searchParams.get('category') ?? undefined);
  const [list, categories] = await Promise.all([pageArticles({ ...scope, filter, sort, q, categoryId, page: readPage(url) }), listCategories(scope)]);
  return {
    user: publicUser(ctx),
    kbId: kb.id,
    filter,
    sort,
    q,
    categoryId,
    categories: categories.map((c) => ({ id: c.id, name: c.name })),
    list,
    locked: !can(ctx, 'manage_articles'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'manage_articles')) await roleDenied(request);
  const formData = await request.formData();
  const id = parseRowId(formData.get('id'));
  if (!id) throw new Response('Not Found', { status: 404 });
  const back = `/knowledgebase/${kb.id}/articles${new URL(request.url).search}`;
  switch (formData.get('intent')) {
    case 'trash':
      if (!(await trashArticle({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, { type: 'info', text: 'Article moved to trash' });
    case 'restore':
      if (!(await restoreArticle({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, { type: 'info', text: 'Article Restored' });
    case 'delete':
      if (!(await deleteArticle({ ...who, id }))) throw new Response('Not Found', { status: 404 });
      return redirectWithToast(back, { type: 'info', text: 'Article Deleted' });
    default:
      throw new Response('Unknown intent', { status: 400 });
  }
}

export const handle = { breadcrumb: 'Articles' };

export default function Articles() {
  const { user, kbId, filter, sort, q, categoryId, categories, list, locked } = useLoaderData<typeof loader>();
  const location = useLocation();
  const base = `/knowledgebase/${kbId}/articles`;
  const withFilter = (value: string) => {
    const params = new URLSearchParams(location.search);
    if (value === 'all') params.delete('filter');
    else params.set('filter', value);
    params.delete('page');
    const qs = params.toString();
    return `${base}${qs ? `?${qs}` : ''}`;
  };
  return (
    <section className="settings-page">
      <header className="row">
        <h1>Articles {locked ? <DeniedBadge kind="role" /> : null}</h1>
        <div className="spacer" />
        {locked ? (
          <button type="button" className="btn btn-primary" disabled title={ROLE_LOCKED_MESSAGE}>
            <Plus aria-hidden="true" size={14} /> New Article
          </button>
        ) : (
          <Link to={`${base}/new`} className="btn btn-primary">
            <Plus aria-hidden="true" size={14} /> New Article
          </Link>
        )}
      </header>
      <nav className="kb-tabs" aria-label="Filter articles">
        {ARTICLE_FILTERS.map((f) => (
          <Link key={f.value} to={withFilter(f.value)} aria-current={f.value === filter ? 'page' : undefined}>
            {f.label}
          </Link>
        ))}
      </nav>
      <Form method="get" action={base} className="kb-toolbar" role="search" aria-label="Search articles">
        {filter !== 'all' ? <input type="hidden" name="filter" value={filter} /> : null}
        <label>
          Search
          <input type="search" name="q" defaultValue={q} maxLength={100} placeholder="Title" />
        </label>
        <label>
          Category
          <select name="category" defaultValue={categoryId ?? ''}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by
          <select name="sort" defaultValue={sort}>
            {ARTICLE_SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn">
          Apply
        </button>
      </Form>
      <ListTable
        list={list}
        testId="articles"
        empty={q || categoryId || filter !== 'all' ? 'No articles match.' : 'No articles yet.'}
        columns={[
          { header: 'Title', cell: (r) => <Link to={`${base}/${r.id}`}>{r.title}</Link> },
          { header: 'Category', cell: (r) => r.categoryName ?? '—' },
          {
            header: 'Status',
            cell: (r) => (
              <span className="kb-status" data-status={r.trashedAt ? 'trash' : r.status}>
                {r.trashedAt ? 'Trash' : r.status === 'published' ? 'Published' : 'Draft'}
              </span>
            ),
          },
          { header: 'Rating', cell: (r) => `${r.helpfulCount} helpful · ${r.unhelpfulCount} not` },
          { header: 'Modified', cell: (r) => formatDate(r.updatedAt, user) },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (r) =>
              locked ? null : (
                <div className="kb-row-actions">
                  {r.trashedAt ? (
                    <>
                      <Form method="post">
                        <input type="hidden" name="id" value={r.id} />
                        <button type="submit" name="intent" value="restore" className="btn">
                          Restore
                        </button>
                      </Form>
                      <DeleteConfirm id={`article-${r.id}`} fields={{ id: String(r.id) }} label="Delete forever" />
                    </>
                  ) : (
                    <Form method="post">
                      <input type="hidden" name="id" value={r.id} />
                      <button type="submit" name="intent" value="trash" className="btn" aria-label={`Move ${r.title} to trash`}>
                        Trash
                      </button>
                    </Form>
                  )}
                </div>
              ),
          },
        ]}
      />
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Articles', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
