import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { getArticle, getVersion } from '~/models/knowledge-base/articles.server';
import { sideBySide, type DiffPart } from '~/models/knowledge-base/compare.server';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, roleDenied } from '~/utils/session.server';

/** Section 2's articles/{articleId}/version-control/{versionIds}: two version ids joined by a hyphen, older first. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, scope } = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/versionControl', ctx);
  if (!can(ctx, 'view_articles') && !can(ctx, 'manage_articles')) await roleDenied(request);
  const articleId = parseRouteId(params.articleId);
  const article = articleId ? await getArticle({ ...scope, id: articleId }) : undefined;
  if (!article) throw new Response('Not Found', { status: 404 });
  const base = `/knowledgebase/${kb.id}/articles/${article.id}/version-control`;
  if (params.versionIds === 'compare') {
    // The no-JavaScript compare form submits ?a=&b=: answer with the canonical address.
    const url = new URL(request.url);
    const a = parseRouteId(url.searchParams.get('a') ?? undefined);
    const b = parseRouteId(url.searchParams.get('b') ?? undefined);
    if (!a || !b) throw new Response('Choose two versions', { status: 400 });
    throw redirect(`${base}/${a}-${b}`);
  }
  const m = /^(\d{1,10})-(\d{1,10})$/.exec(params.versionIds ?? '');
  const ids = m ? [parseRouteId(m[1]), parseRouteId(m[2])] : [];
  const [va, vb] = await Promise.all(ids.map((id) => (id ? getVersion({ ...scope, articleId: article.id, versionId: id }) : undefined)));
  if (!va || !vb) throw new Response('Not Found', { status: 404 });
  const [older, newer] = va.number <= vb.number ? [va, vb] : [vb, va];
  const title = sideBySide(older.title, newer.title);
  const body = sideBySide(older.bodyText, newer.bodyText);
  const side = (v: typeof older) => ({ id: v.id, number: v.number, createdAt: v.createdAt });
  return {
    user: publicUser(ctx),
    kbId: kb.id,
    article: { id: article.id, title: article.title },
    older: side(older),
    newer: side(newer),
    title,
    body,
  };
}

export const handle = { breadcrumb: 'Compare versions' };

function Parts({ parts }: { parts: DiffPart[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.kind === 'added' ? <ins key={i}>{p.text}</ins> : p.kind === 'removed' ? <del key={i}>{p.text}</del> : <span key={i}>{p.text}</span>,
      )}
    </>
  );
}

export default function CompareVersions() {
  const { user, kbId, article, older, newer, title, body } = useLoaderData<typeof loader>();
  const versionLink = (v: { id: number; number: number }) => (
    <Link to={`/knowledgebase/${kbId}/articles/${article.id}/version/${v.id}`}>Version {v.number}</Link>
  );
  return (
    <section className="settings-page">
      <header className="row">
        <h1>Compare versions of “{article.title}”</h1>
        <div className="spacer" />
        <Link to={`/knowledgebase/${kbId}/articles/${article.id}`} className="btn">
          Back to the article
        </Link>
      </header>
      {!title.changed && !body.changed ? <p data-testid="no-changes">These versions have the same title and text.</p> : null}
      <div className="kb-diff" data-testid="diff">
        <div>
          <h2>
            {versionLink(older)} <small className="muted">{formatDateTime(older.createdAt, user)}</small>
          </h2>
          <pre aria-label={`Title in version ${older.number}`}>
            <Parts parts={title.left} />
          </pre>
          <pre aria-label={`Text in version ${older.number}`}>
            <Parts parts={body.left} />
          </pre>
        </div>
        <div>
          <h2>
            {versionLink(newer)} <small className="muted">{formatDateTime(newer.createdAt, user)}</small>
          </h2>
          <pre aria-label={`Title in version ${newer.number}`}>
            <Parts parts={title.right} />
          </pre>
          <pre aria-label={`Text in version ${newer.number}`}>
            <Parts parts={body.right} />
          </pre>
        </div>
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle('Compare versions', loaderData?.article.title, 'Knowledge Base') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
