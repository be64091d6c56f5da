import { and, count, eq, ilike, isNull, or, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { likePattern, type SearchProvider } from '../search/provider.server';

const a = schema.kbArticles;
const kb = schema.knowledgeBases;

function where(accountId: number, q: string) {
  const pattern = likePattern(q);
  return and(eq(a.accountId, accountId), isNull(a.trashedAt), or(ilike(a.title, pattern), ilike(a.bodyText, pattern)));
}

/**
 * The global search's "Articles" group (section 7: docId, plainContent): the working copy's title and plain
 * text, drafts included (agents look for what they wrote), trash excluded. Title matches first.
 */
export const articlesSearch: SearchProvider = {
  group: 'Articles',
  async search({ accountId, q, limit, offset }) {
    const rows = await getDb()
      .select({ id: a.id, title: a.title, kbId: a.knowledgeBaseId, kbName: kb.name })
      .from(a)
      .innerJoin(kb, and(eq(kb.id, a.knowledgeBaseId), eq(kb.accountId, a.accountId)))
      .where(where(accountId, q))
      .orderBy(sql`${a.title} ilike ${likePattern(q)} desc`, sql`lower(${a.title})`, a.id)
      .limit(limit)
      .offset(offset);
    return rows.map((r) => ({ id: r.id, title: r.title, subtitle: r.kbName, to: `/knowledgebase/${r.kbId}/articles/${r.id}` }));
  },
  async count({ accountId, q, cap }) {
    const [row] = await getDb().select({ n: count() }).from(a).where(where(accountId, q));
    return Math.min(cap, row.n);
  },
};
