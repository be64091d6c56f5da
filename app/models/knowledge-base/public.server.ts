import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { RELATED_ARTICLES_MAX, searchConfigOf, type HelpArticleOrder } from './constants';
import { emitEvent } from '../events/events.server';
import { correctSearch } from './search-words.server';

/**
 * What the public help centre reads (ADR 050): only published, untrashed articles, only their published copy,
 * always scoped by account and knowledge base.
 */

const a = schema.kbArticles;
const c = schema.kbCategories;
const kb = schema.knowledgeBases;
const f = schema.kbArticleFeedback;
const s = schema.kbSearches;

type Scope = { accountId: number; knowledgeBaseId: number };

/** The ORDER BY of the help centre's article lists: Advanced → "Order of articles" (ADR 058). */
function listOrder(order: HelpArticleOrder | string | undefined) {
  switch (order) {
    case 'titleAZ':
      return [sql`lower(${a.publishedTitle})`, asc(a.id)];
    case 'newest':
      return [desc(a.publishedAt), desc(a.id)];
    case 'popular':
      return [desc(a.viewCount), asc(a.position), asc(a.id)];
    default:
      return [asc(a.position), asc(a.id)];
  }
}

const live = (scope: Scope) =>
  and(eq(a.accountId, scope.accountId), eq(a.knowledgeBaseId, scope.knowledgeBaseId), eq(a.status, 'published'), isNull(a.trashedAt));

/** The help centre of the account at /hc/{slug}, unless it is switched off (docsVisible). */
export async function findPublicKnowledgeBase(opts: { accountId: number; slug: string }) {
  const [row] = await getDb()
    .select()
    .from(kb)
    .where(and(eq(kb.accountId, opts.accountId), eq(kb.slug, opts.slug), eq(kb.docsVisible, true)));
  return row;
}

/** Home page: categories in order with their published articles (titles only), and articles without a category. */
export async function publicHome(scope: Scope & { order?: string }) {
  const db = getDb();
  const [categories, articles] = await Promise.all([
    db
      .select({ id: c.id, name: c.name, slug: c.slug, description: c.description })
      .from(c)
      .where(and(eq(c.accountId, scope.accountId), eq(c.knowledgeBaseId, scope.knowledgeBaseId)))
      .orderBy(asc(c.position), asc(c.id)),
    db
      .select({ id: a.id, title: a.publishedTitle, slug: a.publishedSlug, categoryId: a.categoryId })
      .from(a)
      .where(live(scope))
      .orderBy(...listOrder(scope.order))
      .limit(2000),
  ]);
  return {
    categories: categories.map((cat) => ({ ...cat, articles: articles.filter((x) => x.categoryId === cat.id) })).filter((cat) => cat.articles.length > 0),
    uncategorised: articles.filter((x) => !x.categoryId || !categories.some((cat) => cat.id === x.categoryId)),
  };
}

export async function publicCategory(scope: Scope & { id: number; order?: string }) {
  const db = getDb();
  const [category] = await db
    .select()
    .from(c)
    .where(and(eq(c.accountId, scope.accountId), eq(c.knowledgeBaseId, scope.knowledgeBaseId), eq(c.id, scope.id)));
  if (!category) return undefined;
  const articles = await db
    .select({ id: a.id, title: a.publishedTitle, slug: a.publishedSlug, text: sql<string>`left(${a.publishedText}, 200)` })
    .from(a)
    .where(and(live(scope), eq(a.categoryId, category.id)))
    .orderBy(...listOrder(scope.order));
  return { category, articles };
}

/** A published article (its published copy) and its category; counts the view. */
export async function publicArticle(scope: Scope & { id: number; countView?: boolean }) {
  const db = getDb();
  const [row] = await db
    .select({
      id: a.id,
      title: a.publishedTitle,
      slug: a.publishedSlug,
      html: a.publishedHtml,
      text: a.publishedText,
      seoTitle: a.seoTitle,
      seoDescription: a.seoDescription,
      publishedAt: a.publishedAt,
      viewCount: a.viewCount,
      categoryId: a.categoryId,
      categoryName: c.name,
      categorySlug: c.slug,
    })
    .from(a)
    .leftJoin(c, and(eq(c.id, a.categoryId), eq(c.accountId, a.accountId)))
    .where(and(live(scope), eq(a.id, scope.id)));
  if (!row) return undefined;
  if (scope.countView) {
    // The counter and the event the docs reports count (ADR 102) in one transaction.
    await db.transaction(async (tx) => {
      await tx
        .update(a)
        .set({ viewCount: sql`${a.viewCount} + 1` })
        .where(and(eq(a.accountId, scope.accountId), eq(a.id, row.id)));
      await emitEvent(tx, {
        accountId: scope.accountId,
        type: 'kb_article_viewed',
        subjectType: 'kb_article',
        subjectId: row.id,
        payload: { articleId: row.id, knowledgeBaseId: scope.knowledgeBaseId },
      });
    });
  }
  return row;
}

/** Other live articles of the same category, in the help centre's list order (Advanced → related articles). */
export async function relatedArticles(scope: Scope & { articleId: number; categoryId: number | null; order?: string }) {
  if (!scope.categoryId) return [];
  return getDb()
    .select({ id: a.id, title: a.publishedTitle, slug: a.publishedSlug })
    .from(a)
    .where(and(live(scope), eq(a.categoryId, scope.categoryId), sql`${a.id} <> ${scope.articleId}`))
    .orderBy(...listOrder(scope.order))
    .limit(RELATED_ARTICLES_MAX);
}

/** Every public address of the help centre, for sitemap.xml. */
export async function publicSitemap(scope: Scope) {
  const db = getDb();
  const [categories, articles] = await Promise.all([
    db
      .select({ id: c.id, slug: c.slug, updatedAt: c.updatedAt })
      .from(c)
      .where(and(eq(c.accountId, scope.accountId), eq(c.knowledgeBaseId, scope.knowledgeBaseId))),
    db.select({ id: a.id, slug: a.publishedSlug, publishedAt: a.publishedAt }).from(a).where(live(scope)).orderBy(desc(a.publishedAt)).limit(50_000),
  ]);
  return { categories, articles };
}

/** Marks in a snippet: control characters that cannot occur in the stored text, turned into <mark> by the page. */
export const MARK_START = '\u0002';
export const MARK_END = '\u0003';

export type SearchHit = { id: number; title: string; slug: string; snippet: string };

/**
 * Full-text search over the stored weighted document (title above body) with the knowledge base's language,
 * ranked, with highlighted snippets; when that finds nothing, misspelt words are corrected from the knowledge base's
 * own words (pg_trgm) and the search runs again.
 * Records the search for the docs reports.
 */
export async function searchPublicArticles(scope: Scope & { q: string; language: string; limit?: number; record?: boolean; replaces?: number | null; visitorId?: string | null }) {
  const q = scope.q
    .replace(/[\u0000-\u001f]/g, ' ')
    .trim()
    .slice(0, 200);
  if (!q) return { hits: [] as SearchHit[], fuzzy: false, searchId: null as number | null };
  const config = searchConfigOf(scope.language);
  const limit = scope.limit ?? 20;
  const db = getDb();
  // Rank and limit first, then build the snippets of the page's hits only (ts_headline is the costly part).
  const fullText = (words: string) =>
    db.execute<{ id: number; title: string; slug: string; snippet: string }>(sql`
    select t.id, t.title, t.slug,
      ts_headline(${config}::regconfig, t.text, t.query,
        ${`StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`}) as snippet
    from (
      select ${a.id} as id, ${a.publishedTitle} as title, ${a.publishedSlug} as slug, coalesce(${a.publishedText}, '') as text, query,
        ts_rank_cd(${a.search}, query, 1) as rank
      from ${a}, websearch_to_tsquery(${config}::regconfig, ${words}) query
      where ${live(scope)} and ${a.search} @@ query
      order by rank desc, ${a.id}
      limit ${limit}
    ) t
    order by t.rank desc, t.id`);
  let hits: SearchHit[] = [...(await fullText(q))];
  let fuzzy = false;
  if (hits.length === 0) {
    // Typo tolerance: each unknown word is corrected against the knowledge base's dictionary of published words
    // (pg_trgm over a few thousand short rows, not every article's text), then searched again (ADR 050 addendum).
    const corrected = await correctSearch(db, scope, q);
    if (corrected) {
      hits = [...(await fullText(corrected))];
      fuzzy = hits.length > 0;
    }
  }
  let searchId: number | null = null;
  const searched = (tx: Tx, id: number, previous?: { query: string; resultCount: number }) =>
    emitEvent(tx, {
      accountId: scope.accountId,
      type: 'kb_searched',
      subjectType: 'kb_search',
      subjectId: id,
      payload: { searchId: id, knowledgeBaseId: scope.knowledgeBaseId, query: q.slice(0, 200), resultCount: hits.length, ...(scope.visitorId ? { visitorId: scope.visitorId } : {}), ...(previous ? { previousQuery: previous.query, previousResultCount: previous.resultCount } : {}) },
    });
  if (scope.record !== false && scope.replaces) {
    // A search typed letter by letter (the messenger's search as you type) is one search, not one per pause: the
    // same typing session's row takes the newer query, while it is fresh and nothing was opened from it. Its event
    // names the query it replaces, so the reports count the session once (ADR 102).
    const replaced = await db.transaction(async (tx) => {
      const [before] = await tx
        .select({ query: s.query, resultCount: s.resultCount })
        .from(s)
        .where(and(eq(s.accountId, scope.accountId), eq(s.knowledgeBaseId, scope.knowledgeBaseId), eq(s.id, scope.replaces!)))
        .for('update');
      const [row] = await tx
      .update(s)
      .set({ query: q.slice(0, 200), resultCount: hits.length })
      .where(
        and(
          eq(s.accountId, scope.accountId),
          eq(s.knowledgeBaseId, scope.knowledgeBaseId),
          eq(s.id, scope.replaces!),
          isNull(s.clickedArticleId),
          sql`${s.createdAt} > now() - interval '2 minutes'`,
        ),
      )
      .returning({ id: s.id });
      if (row && before) await searched(tx, row.id, before);
      return row;
    });
    if (replaced) return { hits, fuzzy, searchId: replaced.id };
  }
  if (scope.record !== false) {
    searchId = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(s)
        .values({ accountId: scope.accountId, knowledgeBaseId: scope.knowledgeBaseId, query: q.slice(0, 200), resultCount: hits.length })
        .returning({ id: s.id });
      await searched(tx, row.id);
      return row.id;
    });
  }
  return { hits, fuzzy, searchId };
}

/** The result a visitor opened from a search (for the reports); ignores ids of other help centres. */
export async function recordSearchClick(scope: Scope & { searchId: number; articleId: number }) {
  await getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(s)
      .set({ clickedArticleId: scope.articleId })
      .where(and(eq(s.accountId, scope.accountId), eq(s.knowledgeBaseId, scope.knowledgeBaseId), eq(s.id, scope.searchId), isNull(s.clickedArticleId)))
      .returning({ id: s.id, query: s.query });
    if (row)
      await emitEvent(tx, {
        accountId: scope.accountId,
        type: 'kb_search_clicked',
        subjectType: 'kb_search',
        subjectId: row.id,
        payload: { searchId: row.id, knowledgeBaseId: scope.knowledgeBaseId, query: row.query, articleId: scope.articleId },
      });
  });
}

/** "Was this helpful?": one answer per visitor and article; answering again changes the answer. */
export async function recordFeedback(scope: Scope & { articleId: number; visitorKey: string; helpful: boolean }) {
  return getDb().transaction(async (tx) => {
    const [article] = await tx
      .select({ id: a.id })
      .from(a)
      .where(and(live(scope), eq(a.id, scope.articleId)))
      .for('update');
    if (!article) return false;
    const [before] = await tx
      .select()
      .from(f)
      .where(and(eq(f.accountId, scope.accountId), eq(f.articleId, article.id), eq(f.visitorKey, scope.visitorKey)));
    if (before?.helpful === scope.helpful) return true;
    if (before) {
      await tx.update(f).set({ helpful: scope.helpful }).where(eq(f.id, before.id));
    } else {
      await tx.insert(f).values({ accountId: scope.accountId, articleId: article.id, visitorKey: scope.visitorKey, helpful: scope.helpful });
    }
    await emitEvent(tx, {
      accountId: scope.accountId,
      type: 'kb_article_rated',
      subjectType: 'kb_article',
      subjectId: article.id,
      payload: { articleId: article.id, knowledgeBaseId: scope.knowledgeBaseId, helpful: scope.helpful, previous: before ? before.helpful : null },
    });
    const delta = (yes: boolean) => (scope.helpful === yes ? 1 : 0) - (before && before.helpful === yes ? 1 : 0);
    await tx
      .update(a)
      .set({ helpfulCount: sql`${a.helpfulCount} + ${delta(true)}`, unhelpfulCount: sql`${a.unhelpfulCount} + ${delta(false)}` })
      .where(and(eq(a.accountId, scope.accountId), eq(a.id, article.id)));
    return true;
  });
}
