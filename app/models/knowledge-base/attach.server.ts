import { and, asc, eq, ilike, isNull, or } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { likePattern } from '../productivity/shared.server';
import { accountUrl } from '../../utils/tenant.server';
import { articlePath } from './constants';

const a = schema.kbArticles;
const kb = schema.knowledgeBases;

export type AttachableArticle = { id: number; title: string; knowledgeBase: string; path: string };

/**
 * Section 7 `GET article/attachArticle`: published articles of the account's visible help centres whose
 * published title (or text) holds the words, for a link in a reply. Drafts, trashed articles and help centres
 * switched off never appear; `path` is the public article's path on the account host.
 */
export async function searchAttachableArticles(opts: { accountId: number; text: string; limit?: number; onlyId?: number }): Promise<AttachableArticle[]> {
  const text = opts.text.trim().slice(0, 100);
  const rows = await getDb()
    .select({ id: a.id, title: a.publishedTitle, slug: a.publishedSlug, kbName: kb.name, kbSlug: kb.slug })
    .from(a)
    .innerJoin(kb, and(eq(kb.id, a.knowledgeBaseId), eq(kb.accountId, opts.accountId)))
    .where(
      and(
        eq(a.accountId, opts.accountId),
        eq(a.status, 'published'),
        isNull(a.trashedAt),
        eq(kb.docsVisible, true),
        opts.onlyId ? eq(a.id, opts.onlyId) : undefined,
        text ? or(ilike(a.publishedTitle, likePattern(text)), ilike(a.publishedText, likePattern(text))) : undefined,
      ),
    )
    .orderBy(asc(a.publishedTitle), asc(a.id))
    .limit(opts.limit ?? 10);
  return rows.map((r) => ({ id: r.id, title: r.title ?? '', knowledgeBase: r.kbName, path: articlePath(r.kbSlug, { id: r.id, slug: r.slug ?? '' }) }));
}

/**
 * The conversation page's part without JavaScript: `?aq=` searches, `?attach=<id>` puts that published
 * article's public URL in the reply box. Nothing is searched until asked.
 */
export async function attachableArticlesFor(request: Request, account: { id: number; domain: string }, params: URLSearchParams) {
  const query = (params.get('aq') ?? '').trim().slice(0, 100);
  const attachId = Number(params.get('attach'));
  const found = query || params.has('aq') ? await searchAttachableArticles({ accountId: account.id, text: query }) : null;
  const withUrl = (r: AttachableArticle) => ({ ...r, url: accountUrl(request, account.domain, r.path) });
  let attached: string | undefined;
  if (Number.isSafeInteger(attachId) && attachId > 0) {
    const [one] = await searchAttachableArticles({ accountId: account.id, text: '', onlyId: attachId });
    if (one) attached = withUrl(one).url;
  }
  return { query, found: found ? found.map(withUrl) : null, attached, attachedId: attached ? attachId : undefined };
}
