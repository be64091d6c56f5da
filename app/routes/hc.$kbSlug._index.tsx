import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { HcArticleList } from '~/components/help-centre/article-list';
import { categoryPath } from '~/models/knowledge-base/constants';
import { findPublicKnowledgeBase, publicHome } from '~/models/knowledge-base/public.server';
import { helpUrl, requireHelpAccount } from '~/models/knowledge-base/help-host.server';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  // Also here, not only in the layout: a data request may ask for this loader alone (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled', page: true });
  const home = await publicHome({ accountId: account.id, knowledgeBaseId: kb.id, order: kb.articleOrder });
  return {
    kb: { slug: kb.slug, name: kb.helpName || kb.name, detail: kb.detail, seoTitle: kb.seoTitle, seoDescription: kb.seoDescription },
    canonical: helpUrl(request, account.domain, `/hc/${kb.slug}`),
    ...home,
  };
}

export const handle = { hydrate: false };

export default function HelpCentreHome() {
  const { kb, categories, uncategorised } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>How can we help?</h1>
      {kb.detail ? <p className="muted">{kb.detail}</p> : null}
      {categories.length === 0 && uncategorised.length === 0 ? <p>No articles have been published yet.</p> : null}
      <ul className="hc-grid" data-testid="hc-categories">
        {categories.map((c) => (
          <li key={c.id}>
            <h2>
              <Link to={categoryPath(kb.slug, c)} reloadDocument>
                {c.name}
              </Link>
            </h2>
            <HcArticleList kbSlug={kb.slug} articles={c.articles.slice(0, 6)} />
            {c.articles.length > 6 ? (
              <Link to={categoryPath(kb.slug, c)} reloadDocument>
                All {c.articles.length} articles
              </Link>
            ) : null}
          </li>
        ))}
      </ul>
      {uncategorised.length ? (
        <section aria-labelledby="hc-more">
          <h2 id="hc-more">More articles</h2>
          <HcArticleList kbSlug={kb.slug} articles={uncategorised} />
        </section>
      ) : null}
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Not found' }];
  const title = data.kb.seoTitle || data.kb.name;
  const description = data.kb.seoDescription || data.kb.detail || `Answers from ${data.kb.name}`;
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
