import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { recordChange } from '../productivity/shared.server';
import { ARCHIVE_MESSAGES, ArchiveError, checkManifest, parseRecord, readArchiveLines, RECORD_ORDER } from './archive.server';
import { addVersion, publishVersionRow, type KbArticle } from './articles.server';
import { ImageRestorer } from './backup-images.server';
import { searchConfigOf, slugify } from './constants';
import { plainTextOf, sanitizeArticleHtml } from './sanitize.server';

type Scope = { accountId: number; knowledgeBaseId: number };

export type ImportCounts = {
  categoriesCreated: number;
  categoriesUpdated: number;
  articlesCreated: number;
  articlesUpdated: number;
  articlesUnchanged: number;
  articlesSkipped: number;
  imagesAdded: number;
};
export type ImportResult = { ok: true; counts: ImportCounts } | { ok: false; error: string };

const a = schema.kbArticles;
const c = schema.kbCategories;

/** An article slug as the editor accepts it (lower-case words and single hyphens, at most 80). */
function cleanSlug(value: string | null | undefined, title: string) {
  const s = (value ?? '').trim();
  return /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s) && s.length <= 80 ? s : slugify(s || title);
}

/**
 * Imports an export file (or a backup: its versions, feedback, redirects and images are not imported) into a
 * knowledge base, MERGING by slug (ADR 059, docs/knowledge-base-format.md): a category whose slug exists is
 * renamed, another is added at the end; an article whose slug matches one that is not in the trash gets the file's
 * content as a new version (nothing when the content is the same), another is created. Published articles are
 * published with the file's published copy; drafts are saved as drafts (an article already live stays live).
 * Articles the file marks as trashed are skipped; nothing is deleted. All or nothing: one transaction.
 */
export async function importArchive(opts: Scope & { actorId: number | null; file: string; source?: string }): Promise<ImportResult> {
  const images = new ImageRestorer(opts.accountId);
  images.knowledgeBaseId = opts.knowledgeBaseId;
  try {
    const counts = await getDb().transaction((tx) => importInTx(tx, opts, images));
    return { ok: true, counts };
  } catch (err) {
    await images.rolledBack();
    if (err instanceof ArchiveError) return { ok: false, error: err.message };
    if (err instanceof Response) throw err;
    getLogger().error({ err: err instanceof Error ? err.message : String(err), accountId: opts.accountId }, 'knowledge base import failed');
    return { ok: false, error: 'The file could not be imported; nothing was changed' };
  }
}

async function importInTx(tx: Tx, opts: Scope & { actorId: number | null; file: string; source?: string }, images: ImageRestorer): Promise<ImportCounts> {
  const { accountId, knowledgeBaseId } = opts;
  const [kb] = await tx
    .select()
    .from(schema.knowledgeBases)
    .where(and(eq(schema.knowledgeBases.accountId, accountId), eq(schema.knowledgeBases.id, knowledgeBaseId)))
    .for('update');
  if (!kb) throw new Response('Not Found', { status: 404 });
  const config = searchConfigOf(kb.language);
  const counts: ImportCounts = {
    categoriesCreated: 0,
    categoriesUpdated: 0,
    articlesCreated: 0,
    articlesUpdated: 0,
    articlesUnchanged: 0,
    articlesSkipped: 0,
    imagesAdded: 0,
  };
  const categoryIds = new Map<number, number>();
  const existingCategories = new Map<string, number>();
  for (const row of await tx
    .select({ id: c.id, slug: c.slug })
    .from(c)
    .where(and(eq(c.accountId, accountId), eq(c.knowledgeBaseId, knowledgeBaseId)))
    .orderBy(asc(c.position), asc(c.id))) {
    if (!existingCategories.has(row.slug)) existingCategories.set(row.slug, row.id);
  }
  const [{ nextCategory }] = await tx
    .select({ nextCategory: sql<number>`coalesce(max(${c.position}), 0)::int + 1` })
    .from(c)
    .where(and(eq(c.accountId, accountId), eq(c.knowledgeBaseId, knowledgeBaseId)));
  const [{ nextArticle }] = await tx
    .select({ nextArticle: sql<number>`coalesce(max(${a.position}), 0)::int + 1` })
    .from(a)
    .where(and(eq(a.accountId, accountId), eq(a.knowledgeBaseId, knowledgeBaseId)));
  let categoryPosition = nextCategory;
  let articlePosition = nextArticle;
  const seenArticleSlugs = new Set<string>();

  let stage = -1;
  let ended = false;
  const seen: Record<string, number> = {};
  for await (const { line, value } of readArchiveLines(opts.file)) {
    if (stage < 0) {
      checkManifest(value);
      stage = 0;
      continue;
    }
    if (ended) throw new ArchiveError(`Line ${line} comes after the closing record`);
    const { type, record: r } = parseRecord(line, value);
    const at = RECORD_ORDER.indexOf(type);
    if (at < stage || type === 'manifest') throw new ArchiveError(`Line ${line} is out of order: a ${type} record after the ${RECORD_ORDER[stage]} records`);
    stage = at;
    seen[type] = (seen[type] ?? 0) + 1;
    if (type === 'category') {
      const slug = slugify(String(r.slug));
      const found = existingCategories.get(slug);
      if (found) {
        await tx
          .update(c)
          .set({ name: r.name as string, description: r.description as string, updatedAt: new Date() })
          .where(and(eq(c.accountId, accountId), eq(c.knowledgeBaseId, knowledgeBaseId), eq(c.id, found)));
        categoryIds.set(r.id as number, found);
        counts.categoriesUpdated += 1;
      } else {
        const [row] = await tx
          .insert(c)
          .values({ accountId, knowledgeBaseId, name: r.name as string, description: r.description as string, slug, position: categoryPosition++ })
          .returning({ id: c.id });
        existingCategories.set(slug, row.id);
        categoryIds.set(r.id as number, row.id);
        counts.categoriesCreated += 1;
      }
    } else if (type === 'article') {
      if (r.trashedAt) {
        counts.articlesSkipped += 1;
        continue;
      }
      const slug = cleanSlug(r.slug as string, r.title as string);
      if (seenArticleSlugs.has(slug)) throw new ArchiveError(`Line ${line}: a second article with the slug "${slug}"`);
      seenArticleSlugs.add(slug);
      let categoryId: number | null = null;
      if (r.categoryId !== null) {
        categoryId = categoryIds.get(r.categoryId as number) ?? null;
        if (!categoryId) throw new ArchiveError(`Line ${line}: the article's category ${String(r.categoryId)} is not in the file`);
      }
      const working = content(r.title as string, slug, r.bodyHtml as string, r.seoTitle as string | null, r.seoDescription as string | null);
      const publish = r.status === 'published';
      const live = publish
        ? content(
            (r.publishedTitle as string | null) ?? (r.title as string),
            cleanSlug((r.publishedSlug as string | null) ?? slug, r.title as string),
            (r.publishedHtml as string | null) ?? (r.bodyHtml as string),
            working.seoTitle,
            working.seoDescription,
          )
        : null;
      const outcome = await mergeArticle(tx, { ...opts, actorId: opts.actorId, slug, categoryId, working, live, config, position: () => articlePosition++ });
      counts[outcome] += 1;
    } else if (type === 'image') {
      // Images of a backup, or fetched by an import from another help centre: kept under their tokens.
      if (await images.restore(tx, line, r, { skipExisting: true })) counts.imagesAdded += 1;
    } else if (type === 'end') {
      for (const [kind, n] of Object.entries(r.counts as Record<string, number>)) {
        if ((seen[kind] ?? 0) !== n)
          throw new ArchiveError(`The file is incomplete or altered: it announces ${n} ${kind} records and holds ${seen[kind] ?? 0}`);
      }
      ended = true;
    }
    // settings, versions, feedback and redirects: not part of an import.
  }
  if (stage < 0) throw new ArchiveError(ARCHIVE_MESSAGES.empty);
  if (!ended) throw new ArchiveError(ARCHIVE_MESSAGES.incomplete);
  await recordChange(tx, {
    accountId,
    actorId: opts.actorId,
    type: 'knowledge_base_updated',
    subjectType: 'knowledge_base',
    subjectId: knowledgeBaseId,
    payload: { name: kb.name, imported: counts, source: opts.source ?? 'file' },
  });
  return counts;
}

type Content = { title: string; slug: string; bodyHtml: string; bodyText: string; seoTitle: string | null; seoDescription: string | null };

function content(title: string, slug: string, html: string, seoTitle: string | null, seoDescription: string | null): Content {
  const bodyHtml = sanitizeArticleHtml(html);
  return {
    title: title.trim(),
    slug,
    bodyHtml,
    bodyText: plainTextOf(bodyHtml),
    seoTitle: seoTitle?.trim() || null,
    seoDescription: seoDescription?.trim() || null,
  };
}

const same = (x: Content, y: { title: string; slug: string; bodyHtml: string; seoTitle: string | null; seoDescription: string | null }) =>
  x.title === y.title && x.slug === y.slug && x.bodyHtml === y.bodyHtml && x.seoTitle === y.seoTitle && x.seoDescription === y.seoDescription;

/**
 * One article of the file into the knowledge base: created, or updated through new versions. With a published copy
 * that differs from the working copy, the published one is written and published first, then the working copy
 * as a draft on top, so the public sees what the file's public saw.
 */
async function mergeArticle(
  tx: Tx,
  o: Scope & {
    actorId: number | null;
    slug: string;
    categoryId: number | null;
    working: Content;
    live: Content | null;
    config: string;
    position: () => number;
  },
): Promise<'articlesCreated' | 'articlesUpdated' | 'articlesUnchanged'> {
  const [existing] = await tx
    .select()
    .from(a)
    .where(and(eq(a.accountId, o.accountId), eq(a.knowledgeBaseId, o.knowledgeBaseId), eq(a.slug, o.slug), isNull(a.trashedAt)))
    .orderBy(asc(a.id))
    .limit(1)
    .for('update');
  const steps: { body: Content; publish: boolean }[] = [];
  if (o.live && !same(o.live, o.working)) steps.push({ body: o.live, publish: true }, { body: o.working, publish: false });
  else steps.push({ body: o.working, publish: Boolean(o.live) });

  if (existing) {
    const liveNow = existing.status === 'published' && existing.publishedHtml !== null;
    const publishedMatches =
      !o.live || (liveNow && existing.publishedTitle === o.live.title && existing.publishedHtml === o.live.bodyHtml && existing.publishedSlug === o.live.slug);
    if (same(o.working, existing) && existing.categoryId === o.categoryId && publishedMatches) return 'articlesUnchanged';
  }

  let article: KbArticle | undefined = existing;
  for (const step of steps) {
    if (!article) {
      [article] = await tx
        .insert(a)
        .values({
          accountId: o.accountId,
          knowledgeBaseId: o.knowledgeBaseId,
          categoryId: o.categoryId,
          ...step.body,
          position: o.position(),
          searchConfig: o.config,
          authorId: o.actorId,
        })
        .returning();
    } else {
      [article] = await tx
        .update(a)
        .set({ ...step.body, categoryId: o.categoryId, updatedAt: new Date() })
        .where(and(eq(a.accountId, o.accountId), eq(a.id, article.id)))
        .returning();
    }
    const version = await addVersion(tx, article, o.actorId);
    if (step.publish) article = await publishVersionRow(tx, article, version);
  }
  return existing ? 'articlesUpdated' : 'articlesCreated';
}
