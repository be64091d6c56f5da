import type { LoaderFunctionArgs } from '@remix-run/node';
import { helpUrl, requireHelpAccount } from '~/models/knowledge-base/help-host.server';
import { findPublicKnowledgeBase } from '~/models/knowledge-base/public.server';

/** robots.txt of a help host (ADR 056): everything but search result pages, and where the sitemap is. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const account = await requireHelpAccount(request);
  const kb = await findPublicKnowledgeBase({ accountId: account.id, slug: params.kbSlug ?? '' });
  if (!kb) throw new Response('Not Found', { status: 404 });
  const search = new URL(helpUrl(request, account.domain, `/hc/${kb.slug}/search`)).pathname;
  const body = ['User-agent: *', `Disallow: ${search}`, `Sitemap: ${helpUrl(request, account.domain, `/hc/${kb.slug}/sitemap.xml`)}`, ''].join('\n');
  return new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=300' } });
}
