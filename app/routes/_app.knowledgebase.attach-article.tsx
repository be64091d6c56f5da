import type { LoaderFunctionArgs } from '@remix-run/node';
import { searchAttachableArticles } from '~/models/knowledge-base/attach.server';
import { accountUrl } from '~/utils/tenant.server';
import { requireUser } from '~/utils/session.server';

/**
 * Section 7 `GET article/attachArticle?text=`: the reply box's search as you type (JavaScript). Only the
 * account's published articles, with their public URLs. Without JavaScript the conversation page answers `?aq=`.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const text = new URL(request.url).searchParams.get('text') ?? '';
  const found = await searchAttachableArticles({ accountId: ctx.account.id, text });
  return Response.json({ articles: found.map((r) => ({ ...r, url: accountUrl(request, ctx.account.domain, r.path) })) });
}
