import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { HcArticleList } from '~/components/help-centre/article-list';
import { categoryPath } from '~/models/knowledge-base/constants';
import { findPublicKnowledgeBase, publicCategory } from '~/models/knowledge-base/public.server';
import { parseRouteId } from '~/utils/route-id';
import { helpUrl, requireHelpAccount } from '~/models/knowledge-base/help-host.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  const m = /^(\d{1,10})(?:-(.*))?$/.exec(params.category ?? '');
  const id = m ? parseRouteId(m[1]) : null;
  if (!kb || !id) throw new Response('Not Found', { status: 404 });
  // Also here, not only in the layout: a data request may ask for this loader alone (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled', page: true });
  const found = await publicCategory({ accountId: account.id, knowledgeBaseId: kb.id, id, order: kb.articleOrder });
  if (!found) throw new Response('Not Found', { status: 404 });
  const path = categoryPath(kb.slug, found.category);
  if ((m?.[2] ?? '') !== found.category.slug) throw redirect(path, 301);
  return {
    kb: { slug: kb.slug, name: kb.helpName || kb.name },
    category: { name: found.category.name, description: found.category.description },
    articles: found.articles,
    canonical: helpUrl(request, account.domain, path),
  };
}

export const handle = { hydrate: false };

export default function PublicCategory() {
  const { kb, category, articles } = useLoaderData<typeof loader>();
  return (
    <>
      <nav className="hc-crumbs" aria-label="Breadcrumb">
        <Link to={`/hc/${kb.slug}`} reloadDocument>
          {kb.name}
        </Link>
      </nav>
      <h1>{category.name}</h1>
      {category.description ? <p className="muted">{category.description}</p> : null}
      {articles.length === 0 ? <p>No articles in this category yet.</p> : null}
      <HcArticleList kbSlug={kb.slug} articles={articles} className="hc-list hc-results" />
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Not found' }];
  const title = `${data.category.name} | ${data.kb.name}`;
  const description = data.category.description || `${data.category.name}: articles from ${data.kb.name}`;
  return [
    { title },
    { name: 'description', content: description },
    { tagName: 'link', rel: 'canonical', href: data.canonical },
    { property: 'og:type', content: 'website' },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:url', content: data.canonical },
  ];
};
