import { sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { articlePath } from '../knowledge-base/constants';

const a = schema.kbArticles;
const kb = schema.knowledgeBases;
const c = schema.cannedResponses;

export type RelevantArticle = { id: number; title: string; path: string; snippet: string; excerpt: string };
export type RelevantCanned = { id: number; name: string; message: string };

/**
 * The words to search by, as a websearch query of alternatives ("refund or parcel or late"): a reply's context
 * rarely holds every word of an article, so any word counts and the rank orders them.
 */
export function searchWords(text: string, max = 24) {
  const words = new Set<string>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    if (words.size >= max) break;
    if (w === 'or' || w === 'and') continue;
    words.add(w);
  }
  return [...words].join(' or ');
}

/**
 * The published articles of the account's visible help centres that best match, by the help centre's own
 * full-text index (each article's language configuration), with a snippet for the agent and an excerpt for the prompt.
 */
export async function findRelevantArticles(opts: { accountId: number; text: string; limit?: number }): Promise<RelevantArticle[]> {
  const words = searchWords(opts.text);
  if (!words) return [];
  const rows = await getDb().execute<{ id: number; title: string; slug: string; kb_slug: string; snippet: string; excerpt: string }>(sql`
    select t.id, t.title, t.slug, t.kb_slug,
      ts_headline(t.config, t.text, t.query, 'StartSel="", StopSel="", MaxWords=35, MinWords=15, MaxFragments=1') as snippet,
      left(t.text, 1500) as excerpt
    from (
      select ${a.id} as id, ${a.publishedTitle} as title, ${a.publishedSlug} as slug, ${kb.slug} as kb_slug,
        coalesce(${a.publishedText}, '') as text, ${a.searchConfig} as config, query,
        ts_rank_cd(${a.search}, query, 1) as rank
      from ${a}
      join ${kb} on ${kb.id} = ${a.knowledgeBaseId} and ${kb.accountId} = ${opts.accountId} and ${kb.docsVisible}
      cross join lateral websearch_to_tsquery(${a.searchConfig}, ${words}) query
      where ${a.accountId} = ${opts.accountId} and ${a.status} = 'published' and ${a.trashedAt} is null and ${a.search} @@ query
      order by rank desc, ${a.id}
      limit ${opts.limit ?? 3}
    ) t
    order by t.rank desc, t.id`);
  return [...rows].map((r) => ({
    id: r.id,
    title: r.title ?? '',
    path: articlePath(r.kb_slug, { id: r.id, slug: r.slug ?? '' }),
    snippet: r.snippet,
    excerpt: r.excerpt,
  }));
}

/** Canned responses ranked by their name and text against the same words (a handful per account: no index needed). */
export async function findRelevantCanned(opts: { accountId: number; text: string; limit?: number }): Promise<RelevantCanned[]> {
  const words = searchWords(opts.text);
  if (!words) return [];
  const doc = sql`to_tsvector('simple', ${c.name} || ' ' || ${c.message})`;
  const rows = await getDb().execute<{ id: number; name: string; message: string }>(sql`
    select ${c.id} as id, ${c.name} as name, ${c.message} as message
    from ${c}, websearch_to_tsquery('simple', ${words}) query
    where ${c.accountId} = ${opts.accountId} and ${doc} @@ query
    order by ts_rank(${doc}, query) desc, ${c.id}
    limit ${opts.limit ?? 3}`);
  return [...rows];
}
