import type { LoaderFunctionArgs } from '@remix-run/node';
import { articlesToAttach } from '~/models/knowledge-base/public.server';
import { requireFeature } from '~/utils/session.server';
import { accountUrl } from '~/utils/tenant.server';

/**
 * `GET article/attachArticle` of section 7, as `/article/attach-article?text=`: the published articles an agent can
 * link from a reply, each with its public address. The reply box calls it as the agent types (with JavaScript);
 * without JavaScript the conversation page runs the same search from its `?aq=` parameter.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'knowledgeBase/enabled');
  const text = new URL(request.url).searchParams.get('text') ?? '';
  const articles = await articlesToAttach({ accountId: ctx.account.id, q: text });
  return Response.json(
    { articles: articles.map((x) => ({ id: x.id, title: x.title, knowledgeBase: x.kbName, url: accountUrl(request, ctx.account.domain, x.path) })) },
    { headers: { 'Cache-Control': 'private, no-store' } },
  );
}
