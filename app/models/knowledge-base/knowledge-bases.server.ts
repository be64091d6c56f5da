import { and, asc, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { recordChange } from '../productivity/shared.server';
import { searchConfigOf, slugify } from './constants';

export type KnowledgeBase = typeof schema.knowledgeBases.$inferSelect;

const kb = schema.knowledgeBases;
const a = schema.kbArticles;
const c = schema.kbCategories;

/** The account's knowledge bases with their (not trashed) article and category counts, oldest first. */
export async function listKnowledgeBases(opts: { accountId: number }, db: DbOrTx = getDb()) {
  return db
    .select({
      id: kb.id,
      name: kb.name,
      detail: kb.detail,
      slug: kb.slug,
      cname: kb.cname,
      articleCount: sql<number>`(select count(*)::int from ${a} where ${a.accountId} = ${kb.accountId} and ${a.knowledgeBaseId} = ${kb.id} and ${a.trashedAt} is null)`,
      categoryCount: sql<number>`(select count(*)::int from ${c} where ${c.accountId} = ${kb.accountId} and ${c.knowledgeBaseId} = ${kb.id})`,
    })
    .from(kb)
    .where(eq(kb.accountId, opts.accountId))
    .orderBy(asc(kb.id));
}

export async function getKnowledgeBase(opts: { accountId: number; id: number }, db: DbOrTx = getDb()): Promise<KnowledgeBase | undefined> {
  const [row] = await db
    .select()
    .from(kb)
    .where(and(eq(kb.accountId, opts.accountId), eq(kb.id, opts.id)));
  return row;
}

/** The help centre at /hc/{slug} of the account's host. */
export async function findKnowledgeBaseBySlug(opts: { accountId: number; slug: string }, db: DbOrTx = getDb()): Promise<KnowledgeBase | undefined> {
  const [row] = await db
    .select()
    .from(kb)
    .where(and(eq(kb.accountId, opts.accountId), eq(kb.slug, opts.slug)));
  return row;
}

/**
 * A slug no other knowledge base uses, in any account: the name's, then name-2, name-3... Unique across the
 * installation because the help host is `{slug}.HELP_HOST` (ADR 056).
 */
export async function freeSlug(tx: Tx, name: string) {
  const base = slugify(name).slice(0, 40) || 'help';
  const taken = new Set(
    (
      await tx
        .select({ slug: kb.slug })
        .from(kb)
        .where(sql`${kb.slug} like ${`${base}%`}`)
    ).map((r) => r.slug),
  );
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  return slug;
}

export async function createKnowledgeBase(opts: { accountId: number; actorId: number | null; name: string; detail?: string }) {
  const name = opts.name.trim();
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('knowledge_bases'), ${opts.accountId})`);
    const slug = await freeSlug(tx, name);
    const [row] = await tx
      .insert(kb)
      .values({ accountId: opts.accountId, name, detail: opts.detail?.trim() ?? '', slug, helpName: name.length >= 3 ? name : null })
      .returning();
    await recordChange(tx, { ...opts, type: 'knowledge_base_created', subjectType: 'knowledge_base', subjectId: row.id, payload: { name } });
    return row;
  });
}

export async function updateKnowledgeBase(opts: { accountId: number; actorId: number | null; id: number; name: string; detail?: string }) {
  const name = opts.name.trim();
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(kb)
      .set({ name, detail: opts.detail?.trim() ?? '', updatedAt: new Date() })
      .where(and(eq(kb.accountId, opts.accountId), eq(kb.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'knowledge_base_updated', subjectType: 'knowledge_base', subjectId: row.id, payload: { name } });
    return row;
  });
}

/** Deletes the knowledge base with its categories, articles and versions (cascade). */
export async function deleteKnowledgeBase(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(kb)
      .where(and(eq(kb.accountId, opts.accountId), eq(kb.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'knowledge_base_deleted', subjectType: 'knowledge_base', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

type SettingsPatch = Partial<
  Pick<
    KnowledgeBase,
    | 'helpName'
    | 'cname'
    | 'language'
    | 'docsVisible'
    | 'gaKey'
    | 'anonymizedIp'
    | 'seoTitle'
    | 'seoDescription'
    | 'customCss'
    | 'customJs'
    | 'logoToken'
    | 'brandColor'
    | 'headerTextColor'
    | 'headerLinks'
    | 'articleFeedback'
    | 'showLastUpdated'
    | 'showViewCount'
    | 'relatedArticles'
    | 'articleOrder'
    | 'versionsKept'
  >
>;

/**
 * Saves one settings page of the help centre (General, SEO, Custom CSS & JS). A new language re-stems the
 * articles' search documents in the same transaction (ADR 050). Undefined when the knowledge base is not the account's.
 */
export async function updateKnowledgeBaseSettings(opts: { accountId: number; actorId: number | null; id: number; patch: SettingsPatch }, db?: Tx) {
  const run = <T>(fn: (tx: Tx) => Promise<T>) => (db ? fn(db) : getDb().transaction(fn));
  return run(async (tx) => {
    const [row] = await tx
      .update(kb)
      .set({ ...opts.patch, updatedAt: new Date() })
      .where(and(eq(kb.accountId, opts.accountId), eq(kb.id, opts.id)))
      .returning();
    if (!row) return undefined;
    if (opts.patch.language) {
      await tx
        .update(schema.kbArticles)
        .set({ searchConfig: searchConfigOf(opts.patch.language) })
        .where(and(eq(schema.kbArticles.accountId, opts.accountId), eq(schema.kbArticles.knowledgeBaseId, row.id)));
    }
    await recordChange(tx, {
      ...opts,
      type: 'knowledge_base_updated',
      subjectType: 'knowledge_base',
      subjectId: row.id,
      payload: { name: row.name, settings: Object.keys(opts.patch) },
    });
    return row;
  });
}

/** Another knowledge base (any account) already serves this custom domain. */
export async function isCnameTaken(opts: { id: number; cname: string }) {
  const [row] = await getDb()
    .select({ id: kb.id })
    .from(kb)
    .where(sql`lower(${kb.cname}) = ${opts.cname.toLowerCase()} and ${kb.id} <> ${opts.id}`)
    .limit(1);
  return Boolean(row);
}
