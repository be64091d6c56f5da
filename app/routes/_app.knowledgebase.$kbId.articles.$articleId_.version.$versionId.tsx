import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { requireKnowledgeBase } from '~/models/knowledge-base/access.server';
import { getArticle, getVersion, publishVersion, restoreVersion } from '~/models/knowledge-base/articles.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { formatDateTime, pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { can, publicUser, requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const guard = await requireKnowledgeBase(request, params.kbId);
  await requireFeature(request, 'knowledgeBase/versionControl', guard.ctx);
  const articleId = parseRouteId(params.articleId);
  const versionId = parseRouteId(params.versionId);
  const article = articleId ? await getArticle({ ...guard.scope, id: articleId }) : undefined;
  const version = article && versionId ? await getVersion({ ...guard.scope, articleId: article.id, versionId }) : undefined;
  if (!article || !version) throw new Response('Not Found', { status: 404 });
  return { ...guard, article, version };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, kb, article, version } = await load(request, params);
  if (!can(ctx, 'view_articles') && !can(ctx, 'manage_articles')) await roleDenied(request);
  return {
    user: publicUser(ctx),
    kbId: kb.id,
    article: { id: article.id, title: article.title, publishedVersionId: article.publishedVersionId, trashed: Boolean(article.trashedAt) },
    version: { id: version.id, number: version.number, title: version.title, slug: version.slug, bodyHtml: version.bodyHtml, createdAt: version.createdAt },
    locked: !can(ctx, 'manage_articles'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { ctx, kb, who, article, version } = await load(request, params);
  if (!can(ctx, 'manage_articles')) await roleDenied(request);
  const intent = (await request.formData()).get('intent');
  const editor = `/knowledgebase/${kb.id}/articles/${article.id}`;
  if (intent === 'restore') {
    const restored = await restoreVersion({ ...who, articleId: article.id, versionId: version.id });
    if (!restored) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(editor, { type: 'info', text: `Version ${version.number} restored as version ${restored.version.number}` });
  }
  if (intent === 'publish') {
    if (!(await publishVersion({ ...who, articleId: article.id, versionId: version.id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(editor, { type: 'info', text: `Version ${version.number} published` });
  }
  throw new Response('Unknown intent', { status: 400 });
}

export const handle = {
  breadcrumb: (loaderData: { version: { number: number } } | undefined) => (loaderData ? `Version ${loaderData.version.number}` : null),
};

export default function VersionPage() {
  const { user, kbId, article, version, locked } = useLoaderData<typeof loader>();
  const published = article.publishedVersionId === version.id;
  return (
    <section className="settings-page">
      <header className="row">
        <h1>
          Version {version.number} of “{article.title}” {locked ? <DeniedBadge kind="role" /> : null}
        </h1>
        <div className="spacer" />
        <Link to={`/knowledgebase/${kbId}/articles/${article.id}`} className="btn">
          Back to the article
        </Link>
      </header>
      <p className="muted">
        Saved {formatDateTime(version.createdAt, user)}
        {published ? ' · this is the published version' : ''}
      </p>
      <Form method="post" className="row">
        <button
          type="submit"
          name="intent"
          value="restore"
          className="btn"
          disabled={locked || article.trashed}
          title={locked ? ROLE_LOCKED_MESSAGE : undefined}
        >
          Restore as new draft
        </button>
        <button
          type="submit"
          name="intent"
          value="publish"
          className="btn btn-primary"
          disabled={locked || published || article.trashed}
          title={locked ? ROLE_LOCKED_MESSAGE : undefined}
        >
          Publish this version
        </button>
      </Form>
      <article className="kb-preview" aria-label={`Version ${version.number}`}>
        <h2>{version.title}</h2>
        {/* Sanitised when it was saved (ADR 048). */}
        <div dangerouslySetInnerHTML={{ __html: version.bodyHtml }} />
      </article>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData ? `Version ${loaderData.version.number}` : 'Version', loaderData?.article.title, 'Knowledge Base') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
