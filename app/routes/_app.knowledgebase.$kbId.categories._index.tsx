import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { ArrowDown, ArrowUp, Plus } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { listCategories, moveCategory, setCategorySequence } from '~/models/knowledge-base/categories.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDate, pageTitle, truncate } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { can, publicUser, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  const rows = await listCategories(scope);
  return { user: publicUser(ctx), kbId: kb.id, rows, locked: !can(ctx, 'manage_categories') };
}

/** Reordering: move up / move down without JavaScript; `prevId`/`nextId` (section 7) for a drag. */
export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who } = await requireKnowledgeBase(request, params.kbId);
  if (!can(ctx, 'manage_categories')) await roleDenied(request);
  const formData = await request.formData();
  const id = parseRowId(formData.get('id'));
  if (!id) throw new Response('Not Found', { status: 404 });
  const intent = formData.get('intent');
  let ok: boolean;
  if (intent === 'move-up' || intent === 'move-down') ok = await moveCategory({ ...who, id, direction: intent === 'move-up' ? 'up' : 'down' });
  else if (intent === 'sequence')
    ok = await setCategorySequence({ ...who, id, prevId: parseRowId(formData.get('prevId')), nextId: parseRowId(formData.get('nextId')) });
  else throw new Response('Unknown intent', { status: 400 });
  if (!ok) throw new Response('Not Found', { status: 404 });
  return redirectWithToast(`/knowledgebase/${kb.id}/categories`, { type: 'info', text: 'Category Order Updated' });
}

export const handle = { breadcrumb: 'Categories' };

export default function Categories() {
  const { user, kbId, rows, locked } = useLoaderData<typeof loader>();
  const base = `/knowledgebase/${kbId}/categories`;
  return (
    <section className="settings-page">
      <header className="row">
        <h1>Categories {locked ? <DeniedBadge kind="role" /> : null}</h1>
        <div className="spacer" />
        {locked ? (
          <button type="button" className="btn btn-primary" disabled title={ROLE_LOCKED_MESSAGE}>
            <Plus aria-hidden="true" size={14} /> New Category
          </button>
        ) : (
          <Link to={`${base}/new`} className="btn btn-primary">
            <Plus aria-hidden="true" size={14} /> New Category
          </Link>
        )}
      </header>
      {rows.length === 0 ? (
        <p className="muted" data-testid="empty">
          No categories yet.
        </p>
      ) : (
        <table className="table" data-testid="categories">
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>Articles</th>
              <th>Modified</th>
              <th>
                <span className="visually-hidden">Order</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={r.id}>
                <td>
                  <Link to={`${base}/${r.id}`}>{r.name}</Link>
                </td>
                <td>{truncate(r.description, 80)}</td>
                <td>{r.articleCount}</td>
                <td>{formatDate(r.updatedAt, user)}</td>
                <td>
                  {locked ? null : (
                    <Form method="post" className="kb-row-actions">
                      <input type="hidden" name="id" value={r.id} />
                      <button type="submit" name="intent" value="move-up" className="btn" disabled={i === 0} aria-label={`Move ${r.name} up`}>
                        <ArrowUp aria-hidden="true" size={14} />
                      </button>
                      <button type="submit" name="intent" value="move-down" className="btn" disabled={i === rows.length - 1} aria-label={`Move ${r.name} down`}>
                        <ArrowDown aria-hidden="true" size={14} />
                      </button>
                    </Form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Categories', 'Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
