import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { articlePath, categoryPath } from '~/models/knowledge-base/constants';
import { findPublicKnowledgeBase, publicSitemap } from '~/models/knowledge-base/public.server';
import { helpUrl, requireHelpAccount } from '~/models/knowledge-base/help-host.server';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** sitemap.xml of one help centre: home, categories and published articles. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'knowledgeBase/enabled' });
  const { categories, articles } = await publicSitemap({ accountId: account.id, knowledgeBaseId: kb.id });
  const url = (path: string, lastmod?: Date | null) =>
    `<url><loc>${xml(helpUrl(request, account.domain, path))}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ''}</url>`;
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    url(`/hc/${kb.slug}`),
    ...categories.map((c) => url(categoryPath(kb.slug, c), c.updatedAt)),
    ...articles.map((a) => url(articlePath(kb.slug, { id: a.id, slug: a.slug ?? '' }), a.publishedAt)),
    '</urlset>',
  ].join('\n');
  return new Response(body, { headers: { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=300' } });
}
