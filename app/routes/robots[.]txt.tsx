import type { LoaderFunctionArgs } from '@remix-run/node';
import { listPublicHelpCentreSlugs } from '~/models/knowledge-base/public.server';
import { accountUrl, getTenant } from '~/utils/tenant.server';

/**
 * robots.txt. On an account's host only the public help centres (and their sitemaps) are for crawlers; the agent
 * app, contact forms and chat pages are not. The bare host offers its landing page only.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const tenant = await getTenant(request);
  let lines: string[];
  if (tenant.kind === 'account') {
    const slugs = await listPublicHelpCentreSlugs({ accountId: tenant.account.id });
    lines = [
      'User-agent: *',
      ...slugs.map((slug) => `Allow: /hc/${slug}`),
      'Disallow: /',
      '',
      ...slugs.map((slug) => `Sitemap: ${accountUrl(request, tenant.domain, `/hc/${slug}/sitemap.xml`)}`),
    ];
  } else if (tenant.kind === 'bare') {
    lines = ['User-agent: *', 'Allow: /$', 'Disallow: /'];
  } else {
    throw new Response('Not Found', { status: 404 });
  }
  return new Response(`${lines.join('\n')}\n`, { headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=300' } });
}
