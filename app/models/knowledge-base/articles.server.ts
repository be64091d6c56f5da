import { and, asc, count, desc, eq, ilike, isNotNull, isNull, max, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { cleanQuery, FieldInputError, likePattern, recordChange } from '../productivity/shared.server';
import { reorder } from './categories.server';
import { KB_PAGE_SIZE, searchConfigOf, slugify, type ArticleFilter, type ArticleSort } from './constants';
import { addSearchWords } from './search-words.server';
import { plainTextOf, sanitizeArticleHtml } from './sanitize.server';

export type KbArticle = typeof schema.kbArticles.$inferSelect;
export type KbArticleVersion = typeof schema.kbArticleVersions.$inferSelect;

const a = schema.kbArticles;
const v = schema.kbArticleVersions;
const c = schema.kbCategories;
const kb = schema.knowledgeBases;

type Scope = { accountId: number; knowledgeBaseId: number };
type Who = Scope & { actorId: number | null };

function filterWhere(filter: ArticleFilter): SQL | undefined {
  switch (filter) {
    case 'trash':
      return isNotNull(a.trashedAt);
    case 'publish':
      return and(isNull(a.trashedAt), eq(a.status, 'published'));
    case 'draft':
      return and(isNull(a.trashedAt), eq(a.status, 'draft'));
    default:
      return isNull(a.trashedAt);
  }
}

/** Helpful answers over all answers, with one of each assumed, so that one "yes" does not beat forty yeses and a no. */
const rating = sql`((${a.helpfulCount} + 1)::float / (${a.helpfulCount} + ${a.unhelpfulCount} + 2))`;

/** The list's order as (expression, direction) pairs; `reversed` flips every direction (see pageArticles). */
function sortOrder(sort: ArticleSort, reversed = false) {
  const keys: [SQL | AnyColumn, 'asc' | 'desc'][] =
    sort === 'titleAZ'
      ? [[sql`lower(${a.title})`, 'asc'], [a.id, 'asc']]
      : sort === 'titleZA'
        ? [[sql`lower(${a.title})`, 'desc'], [a.id, 'desc']]
        : sort === 'ratingHigh'
          ? [[rating, 'desc'], [a.updatedAt, 'desc'], [a.id, 'asc']]
          : sort === 'ratingLow'
            ? [[rating, 'asc'], [a.updatedAt, 'desc'], [a.id, 'asc']]
            : [[a.updatedAt, 'desc'], [a.id, 'asc']];
  return keys.map(([key, dir]) => ((dir === 'asc') !== reversed ? asc(key) : desc(key)));
}

/** One page of a knowledge base's articles for the agent list: filter, sort, title search, category. */
export async function pageArticles(
  opts: Scope & { filter?: ArticleFilter; sort?: ArticleSort; q?: string | null; categoryId?: number | null; page?: number; pageSize?: number },
) {
  const pageSize = opts.pageSize ?? KB_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const q = cleanQuery(opts.q);
  const where = and(
    eq(a.accountId, opts.accountId),
    eq(a.knowledgeBaseId, opts.knowledgeBaseId),
    filterWhere(opts.filter ?? 'all'),
    q ? ilike(a.title, likePattern(q)) : undefined,
    opts.categoryId ? eq(a.categoryId, opts.categoryId) : undefined,
  );
  const db = getDb();
  const [{ total }] = await db.select({ total: count() }).from(a).where(where);
  // Pages past the middle are read from the other end, so that no page skips more than half the list (the last
  // page of 50,000 articles reads 50 rows instead of skipping 49,950), and put back in order.
  const offset = (page - 1) * pageSize;
  const fromEnd = offset > total / 2;
  if (offset >= total) return { rows: [], total, page, pageSize };
  const rows = await db
    .select({
      id: a.id,
      title: a.title,
      slug: a.slug,
      status: a.status,
      trashedAt: a.trashedAt,
      updatedAt: a.updatedAt,
      helpfulCount: a.helpfulCount,
      unhelpfulCount: a.unhelpfulCount,
      viewCount: a.viewCount,
      categoryId: a.categoryId,
      categoryName: c.name,
    })
    .from(a)
    .leftJoin(c, and(eq(c.id, a.categoryId), eq(c.accountId, a.accountId)))
    .where(where)
    .orderBy(...sortOrder(opts.sort ?? 'dateModify', fromEnd))
    .limit(fromEnd ? Math.min(pageSize, total - offset) : pageSize)
    .offset(fromEnd ? Math.max(0, total - offset - pageSize) : offset);
  if (fromEnd) rows.reverse();
  return { rows, total, page, pageSize };
}

export async function getArticle(opts: Scope & { id: number }, db: DbOrTx = getDb()): Promise<KbArticle | undefined> {
  const [row] = await db
    .select()
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.id, opts.id)));
  return row;
}

/** The articles of one category in their order (for reordering and the public category page). */
export async function listCategoryArticles(opts: Scope & { categoryId: number }, db: DbOrTx = getDb()) {
  return db
    .select({ id: a.id, title: a.title, status: a.status })
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.categoryId, opts.categoryId), isNull(a.trashedAt)))
    .orderBy(asc(a.position), asc(a.id));
}

export type ArticleContent = {
  title: string;
  categoryId?: number | null;
  slug?: string | null;
  body: string;
  seoTitle?: string | null;
  seoDescription?: string | null;
};

async function checkCategory(tx: Tx, scope: Scope, categoryId: number | null | undefined) {
  if (!categoryId) return null;
  const [row] = await tx
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.accountId, scope.accountId), eq(c.knowledgeBaseId, scope.knowledgeBaseId), eq(c.id, categoryId)));
  if (!row) throw new FieldInputError('Choose a category of this knowledge base', 'categoryId');
  return row.id;
}

async function searchConfig(tx: Tx, scope: Scope) {
  const [row] = await tx
    .select({ language: kb.language })
    .from(kb)
    .where(and(eq(kb.accountId, scope.accountId), eq(kb.id, scope.knowledgeBaseId)));
  if (!row) throw new Response('Not Found', { status: 404 });
  return searchConfigOf(row.language);
}

/** The content as stored: sanitised body and its text, a slug (the title's when none is given). */
function cleanContent(input: ArticleContent) {
  const bodyHtml = sanitizeArticleHtml(input.body ?? '');
  return {
    title: input.title.trim(),
    slug: input.slug?.trim() || slugify(input.title),
    bodyHtml,
    bodyText: plainTextOf(bodyHtml),
    seoTitle: input.seoTitle?.trim() || null,
    seoDescription: input.seoDescription?.trim() || null,
  };
}

/**
 * Writes the next version of an article from its working copy (the caller holds the article's row lock), then
 * drops the oldest ones beyond the knowledge base's Version Control limit, if it has one (ADR 058).
 */
export async function addVersion(tx: Tx, article: KbArticle, actorId: number | null) {
  const [{ last }] = await tx
    .select({ last: max(v.number) })
    .from(v)
    .where(and(eq(v.accountId, article.accountId), eq(v.articleId, article.id)));
  const [version] = await tx
    .insert(v)
    .values({
      accountId: article.accountId,
      articleId: article.id,
      number: (last ?? 0) + 1,
      title: article.title,
      slug: article.slug,
      categoryId: article.categoryId,
      bodyHtml: article.bodyHtml,
      bodyText: article.bodyText,
      seoTitle: article.seoTitle,
      seoDescription: article.seoDescription,
      authorId: actorId,
    })
    .returning();
  const [kbRow] = await tx
    .select({ keep: schema.knowledgeBases.versionsKept })
    .from(schema.knowledgeBases)
    .where(and(eq(schema.knowledgeBases.accountId, article.accountId), eq(schema.knowledgeBases.id, article.knowledgeBaseId)));
  if (kbRow?.keep) await pruneVersions(tx, { accountId: article.accountId, articleIds: [article.id], keep: kbRow.keep });
  return version;
}

/** Makes a version the one the public sees. */
export async function publishVersionRow(tx: Tx, article: KbArticle, version: KbArticleVersion) {
  const [row] = await tx
    .update(a)
    .set({
      status: 'published',
      publishedVersionId: version.id,
      publishedTitle: version.title,
      publishedSlug: version.slug,
      publishedHtml: version.bodyHtml,
      publishedText: version.bodyText,
      publishedAt: new Date(),
    })
    .where(and(eq(a.accountId, article.accountId), eq(a.id, article.id)))
    .returning();
  await addSearchWords(tx, { accountId: article.accountId, knowledgeBaseId: article.knowledgeBaseId }, `${version.title} ${version.bodyText}`);
  return row;
}

/** Creates an article and its first version; `publish` makes that version public at once. */
export async function createArticle(opts: Who & ArticleContent & { publish?: boolean }) {
  return getDb().transaction(async (tx) => {
    const categoryId = await checkCategory(tx, opts, opts.categoryId);
    const config = await searchConfig(tx, opts);
    const [{ next }] = await tx
      .select({ next: sql<number>`coalesce(max(${a.position}), 0)::int + 1` })
      .from(a)
      .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId)));
    const [row] = await tx
      .insert(a)
      .values({
        accountId: opts.accountId,
        knowledgeBaseId: opts.knowledgeBaseId,
        categoryId,
        ...cleanContent(opts),
        position: next,
        searchConfig: config,
        authorId: opts.actorId,
      })
      .returning();
    const version = await addVersion(tx, row, opts.actorId);
    const article = opts.publish ? await publishVersionRow(tx, row, version) : row;
    await recordChange(tx, {
      ...opts,
      type: 'kb_article_created',
      subjectType: 'kb_article',
      subjectId: row.id,
      payload: { title: row.title, published: Boolean(opts.publish) },
    });
    return article;
  });
}

async function lockArticle(tx: Tx, opts: Scope & { id: number }) {
  const [row] = await tx
    .select()
    .from(a)
    .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.id, opts.id)))
    .for('update');
  return row;
}

/**
 * Saves the working copy as a new version. Without `publish` a published article keeps showing its published
 * version; with it the new version goes live. Returns undefined when the article is not this knowledge base's.
 */
export async function updateArticle(opts: Who & ArticleContent & { id: number; publish?: boolean }) {
  return getDb().transaction(async (tx) => {
    const before = await lockArticle(tx, opts);
    if (!before) return undefined;
    const categoryId = await checkCategory(tx, opts, opts.categoryId);
    const [row] = await tx
      .update(a)
      .set({ ...cleanContent(opts), categoryId, updatedAt: new Date() })
      .where(and(eq(a.accountId, opts.accountId), eq(a.id, before.id)))
      .returning();
    const version = await addVersion(tx, row, opts.actorId);
    const article = opts.publish ? await publishVersionRow(tx, row, version) : row;
    await recordChange(tx, {
      ...opts,
      type: opts.publish ? 'kb_article_published' : 'kb_article_updated',
      subjectType: 'kb_article',
      subjectId: row.id,
      payload: { title: row.title, version: version.number },
    });
    return article;
  });
}

/** Takes an article off the public help centre; its versions stay. */
export async function unpublishArticle(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const before = await lockArticle(tx, opts);
    if (!before) return undefined;
    const [row] = await tx
      .update(a)
      .set({
        status: 'draft',
        publishedVersionId: null,
        publishedTitle: null,
        publishedSlug: null,
        publishedHtml: null,
        publishedText: null,
        publishedAt: null,
        updatedAt: new Date(),
      })
      .where(and(eq(a.accountId, opts.accountId), eq(a.id, before.id)))
      .returning();
    await recordChange(tx, {
      ...opts,
      type: 'kb_article_updated',
      subjectType: 'kb_article',
      subjectId: row.id,
      payload: { title: row.title, unpublished: true },
    });
    return row;
  });
}

/** Moves an article to the trash (off the public site, out of the All/Published/Draft lists). */
export async function trashArticle(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(a)
      .set({ trashedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.id, opts.id), isNull(a.trashedAt)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'kb_article_trashed', subjectType: 'kb_article', subjectId: row.id, payload: { title: row.title } });
    return row;
  });
}

/** Section 4: restoring moves the article out of the trash, with the status it had. */
export async function restoreArticle(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(a)
      .set({ trashedAt: null, updatedAt: new Date() })
      .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.id, opts.id), isNotNull(a.trashedAt)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'kb_article_restored', subjectType: 'kb_article', subjectId: row.id, payload: { title: row.title } });
    return row;
  });
}

/** Deletes for good an article that is in the trash (with its versions and feedback). */
export async function deleteArticle(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(a)
      .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(a.id, opts.id), isNotNull(a.trashedAt)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'kb_article_deleted', subjectType: 'kb_article', subjectId: row.id, payload: { title: row.title } });
    return true;
  });
}

/** Section 7's updateArticleSequence: places the article between prevId and nextId inside its category. */
export async function setArticleSequence(opts: Who & { id: number; prevId?: number | null; nextId?: number | null }) {
  return getDb().transaction(async (tx) => {
    const article = await lockArticle(tx, opts);
    if (!article || article.trashedAt) return false;
    const rows = await tx
      .select({ id: a.id })
      .from(a)
      .where(
        and(
          eq(a.accountId, opts.accountId),
          eq(a.knowledgeBaseId, opts.knowledgeBaseId),
          article.categoryId ? eq(a.categoryId, article.categoryId) : isNull(a.categoryId),
          isNull(a.trashedAt),
        ),
      )
      .orderBy(asc(a.position), asc(a.id));
    return reorder(
      tx,
      rows.map((r) => r.id),
      opts,
      (order) =>
        tx.execute(
          sql`update ${a} set position = o.ord from unnest(${sql.raw(`array[${order.join(',')}]::int[]`)}) with ordinality as o(id, ord) where ${
            a.id
          } = o.id and ${a.accountId} = ${opts.accountId}`,
        ),
    );
  });
}

export async function moveArticle(opts: Who & { id: number; direction: 'up' | 'down' }) {
  const article = await getArticle(opts);
  if (!article) return false;
  const ids = article.categoryId ? (await listCategoryArticles({ ...opts, categoryId: article.categoryId })).map((r) => r.id) : [];
  const i = ids.indexOf(opts.id);
  if (i < 0) return false;
  if (opts.direction === 'up') return i === 0 ? true : setArticleSequence({ ...opts, prevId: ids[i - 2] ?? null, nextId: ids[i - 1] });
  return i === ids.length - 1 ? true : setArticleSequence({ ...opts, prevId: ids[i + 1], nextId: ids[i + 2] ?? null });
}

// ---------------------------------------------------------------------------------------------------------
// Versions (ADR 049)

/** An article's versions, newest first, with their authors' names. */
export async function listVersions(opts: Scope & { articleId: number }) {
  const article = await getArticle({ ...opts, id: opts.articleId });
  if (!article) return undefined;
  const rows = await getDb()
    .select({
      id: v.id,
      number: v.number,
      title: v.title,
      createdAt: v.createdAt,
      authorFirstName: schema.users.firstName,
      authorLastName: schema.users.lastName,
    })
    .from(v)
    .leftJoin(schema.users, and(eq(schema.users.id, v.authorId), eq(schema.users.accountId, v.accountId)))
    .where(and(eq(v.accountId, opts.accountId), eq(v.articleId, article.id)))
    .orderBy(desc(v.number));
  return { article, versions: rows };
}

export async function getVersion(opts: Scope & { articleId: number; versionId: number }) {
  const [row] = await getDb()
    .select({ version: v })
    .from(v)
    .innerJoin(a, and(eq(a.id, v.articleId), eq(a.accountId, v.accountId)))
    .where(and(eq(v.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId), eq(v.articleId, opts.articleId), eq(v.id, opts.versionId)));
  return row?.version;
}

/**
 * Restores an old version as the working copy: a new version with its content. What the public sees does not
 * change until it is published.
 */
export async function restoreVersion(opts: Who & { articleId: number; versionId: number }) {
  const version = await getVersion(opts);
  if (!version) return undefined;
  return getDb().transaction(async (tx) => {
    const before = await lockArticle(tx, { ...opts, id: opts.articleId });
    if (!before) return undefined;
    const [row] = await tx
      .update(a)
      .set({
        title: version.title,
        slug: version.slug,
        bodyHtml: version.bodyHtml,
        bodyText: version.bodyText,
        seoTitle: version.seoTitle,
        seoDescription: version.seoDescription,
        updatedAt: new Date(),
      })
      .where(and(eq(a.accountId, opts.accountId), eq(a.id, before.id)))
      .returning();
    const added = await addVersion(tx, row, opts.actorId);
    await recordChange(tx, {
      ...opts,
      type: 'kb_article_updated',
      subjectType: 'kb_article',
      subjectId: row.id,
      payload: { title: row.title, restoredVersion: version.number, version: added.number },
    });
    return { article: row, version: added };
  });
}

/** Publishes a chosen version (the working copy is left as it is). */
export async function publishVersion(opts: Who & { articleId: number; versionId: number }) {
  const version = await getVersion(opts);
  if (!version) return undefined;
  return getDb().transaction(async (tx) => {
    const before = await lockArticle(tx, { ...opts, id: opts.articleId });
    if (!before || before.trashedAt) return undefined;
    const row = await publishVersionRow(tx, before, version);
    await recordChange(tx, {
      ...opts,
      type: 'kb_article_published',
      subjectType: 'kb_article',
      subjectId: row.id,
      payload: { title: version.title, version: version.number },
    });
    return row;
  });
}

/**
 * Drops an article's versions beyond the newest `keep`, never the published one (ADR 058). Called with the
 * article's row held (a save) or for every article of a knowledge base when the limit is changed.
 */
export async function pruneVersions(tx: Tx, opts: { accountId: number; articleIds: number[]; keep: number }) {
  if (opts.articleIds.length === 0) return 0;
  const removed = await tx.execute<{ id: number }>(sql`
    delete from kb_article_versions d
    using (
      select ver.id, row_number() over (partition by ver.article_id order by ver.number desc) as rank, art.published_version_id
      from kb_article_versions ver
      join kb_articles art on art.id = ver.article_id and art.account_id = ver.account_id
      where ver.account_id = ${opts.accountId} and ver.article_id in (${sql.join(
    opts.articleIds.map((id) => sql`${id}`),
    sql`, `,
  )})
    ) ranked
    where d.id = ranked.id and ranked.rank > ${opts.keep} and d.id is distinct from ranked.published_version_id
    returning d.id`);
  return removed.length;
}
