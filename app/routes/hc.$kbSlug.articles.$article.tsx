import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { ThumbsDown, ThumbsUp } from 'lucide-react';
import { articlePath, categoryPath } from '~/models/knowledge-base/constants';
import { findPublicKnowledgeBase, publicArticle, recordFeedback, recordSearchClick, relatedArticles } from '~/models/knowledge-base/public.server';
import { HcArticleList } from '~/components/help-centre/article-list';
import { newVisitor, readVisitor } from '~/models/knowledge-base/visitor.server';
import { parseRouteId } from '~/utils/route-id';
import { helpUrl, isHelpHostRequest, requireHelpAccount } from '~/models/knowledge-base/help-host.server';

/** `{id}-{slug}`: the id finds the article, a slug that is not its current one answers 301 (ADR 050). */
function readIdSlug(param: string | undefined) {
  const m = /^(\d{1,10})(?:-(.*))?$/.exec(param ?? '');
  const id = m ? parseRouteId(m[1]) : null;
  if (!id) throw new Response('Not Found', { status: 404 });
  return { id, slug: m?.[2] ?? '' };
}

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  // Also here, not only in the layout: a data request may ask for this loader alone (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled', page: true });
  return { account, kb, scope: { accountId: account.id, knowledgeBaseId: kb.id }, ...readIdSlug(params.article) };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { account, kb, scope, id, slug } = await load(request, params);
  const url = new URL(request.url);
  const article = await publicArticle({ ...scope, id, countView: slug !== '' });
  if (!article) throw new Response('Not Found', { status: 404 });
  const path = articlePath(kb.slug, { id: article.id, slug: article.slug ?? '' });
  if (slug !== article.slug) throw redirect(path, 301);
  const searchId = parseRouteId(url.searchParams.get('s') ?? undefined);
  if (searchId) await recordSearchClick({ ...scope, searchId, articleId: article.id });
  const related = kb.relatedArticles ? await relatedArticles({ ...scope, articleId: article.id, categoryId: article.categoryId, order: kb.articleOrder }) : [];
  return {
    kb: { slug: kb.slug, name: kb.helpName || kb.name },
    // Advanced settings (ADR 058): what this page shows besides the article.
    show: { feedback: kb.articleFeedback, viewCount: kb.showViewCount, lastUpdated: kb.showLastUpdated },
    // The publication date in the help centre's language; the day is the same everywhere (UTC).
    updated: article.publishedAt ? new Intl.DateTimeFormat(kb.language, { dateStyle: 'long', timeZone: 'UTC' }).format(article.publishedAt) : null,
    views: article.viewCount + (slug !== '' ? 1 : 0),
    related,
    article: {
      ...article,
      categoryPath: article.categoryId && article.categorySlug ? categoryPath(kb.slug, { id: article.categoryId, slug: article.categorySlug }) : null,
    },
    canonical: helpUrl(request, account.domain, path),
    thanks: url.searchParams.get('feedback') === 'thanks',
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { kb, scope, id } = await load(request, params);
  if (!kb.articleFeedback) throw new Response('Feedback is switched off for this help centre', { status: 403 });
  const answer = (await request.formData()).get('helpful');
  if (answer !== 'yes' && answer !== 'no') return data({ error: 'Choose yes or no' }, { status: 400 });
  const existing = readVisitor(request);
  const visitor = existing ? { id: existing, setCookie: null } : newVisitor(isHelpHostRequest(request));
  const article = await publicArticle({ ...scope, id });
  if (!article || !(await recordFeedback({ ...scope, articleId: id, visitorKey: visitor.id, helpful: answer === 'yes' }))) {
    throw new Response('Not Found', { status: 404 });
  }
  const headers = new Headers();
  if (visitor.setCookie) headers.append('Set-Cookie', visitor.setCookie);
  return redirect(`${articlePath(kb.slug, { id, slug: article.slug ?? '' })}?feedback=thanks#feedback`, { status: 303, headers });
}

export const handle = { hydrate: false };

export default function PublicArticle() {
  const { kb, article, thanks, show, updated, views, related } = useLoaderData<typeof loader>();
  return (
    <>
      <nav className="hc-crumbs" aria-label="Breadcrumb">
        <Link to={`/hc/${kb.slug}`} reloadDocument>
          {kb.name}
        </Link>
        {article.categoryPath ? (
          <>
            {' › '}
            <Link to={article.categoryPath} reloadDocument>
              {article.categoryName}
            </Link>
          </>
        ) : null}
      </nav>
      <article className="hc-article">
        <h1>{article.title}</h1>
        {/* Sanitised when it was saved (ADR 048). */}
        <div dangerouslySetInnerHTML={{ __html: article.html ?? '' }} />
        {(show.lastUpdated && updated) || show.viewCount ? (
          <p className="hc-meta muted" data-testid="hc-article-meta">
            {show.lastUpdated && updated ? <span>Last updated {updated}</span> : null}
            {show.viewCount ? <span>{views === 1 ? 'Viewed once' : `Viewed ${views.toLocaleString('en')} times`}</span> : null}
          </p>
        ) : null}
      </article>
      {related.length ? (
        <section className="hc-related" aria-labelledby="hc-related">
          <h2 id="hc-related">Related articles</h2>
          <HcArticleList kbSlug={kb.slug} articles={related} />
        </section>
      ) : null}
      {show.feedback ? (
        <section id="feedback" className="hc-feedback" aria-label="Feedback">
          {thanks ? (
            <p role="status">Thanks for your feedback.</p>
          ) : (
            <Form method="post" className="row" reloadDocument>
              <span>Was this helpful?</span>
              <button type="submit" name="helpful" value="yes" className="btn">
                <ThumbsUp aria-hidden="true" size={16} /> Yes
              </button>
              <button type="submit" name="helpful" value="no" className="btn">
                <ThumbsDown aria-hidden="true" size={16} /> No
              </button>
            </Form>
          )}
        </section>
      ) : null}
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Not found' }];
  const title = `${data.article.seoTitle || data.article.title} | ${data.kb.name}`;
  const description = data.article.seoDescription || (data.article.text ?? '').slice(0, 160);
  return [
    { title },
    { name: 'description', content: description },
    { tagName: 'link', rel: 'canonical', href: data.canonical },
    { property: 'og:type', content: 'article' },
    { property: 'og:title', content: data.article.seoTitle || data.article.title },
    { property: 'og:description', content: description },
    { property: 'og:url', content: data.canonical },
    { property: 'og:site_name', content: data.kb.name },
  ];
};
