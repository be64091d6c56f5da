import { and, count, desc, eq, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { removeStoredFiles } from '../storage/files.server';
import { DEFAULT_HEADER_TEXT_COLOR, HEADER_LINKS_MAX, kbImageUrl, normaliseHexColor, RECENT_VERSIONS_MAX } from './constants';
import { saveKbImage } from './images.server';
import { pruneVersions } from './articles.server';
import { updateKnowledgeBaseSettings, type KnowledgeBase } from './knowledge-bases.server';

/** The settings pages Customization, Advanced and Version Control (ADR 058). */

type Who = { accountId: number; actorId: number | null; id: number };
const a = schema.kbArticles;
const v = schema.kbArticleVersions;

/**
 * Saves Customization. A new logo is checked and stored first (an unacceptable file throws KbImageError and
 * nothing changes); the settings and the logo's token are written in one transaction.
 */
export async function saveCustomization(
  opts: Who & {
    brandColor: string | null;
    headerTextColor: string | null;
    headerLinks: { label: string; url: string }[];
    removeLogo: boolean;
    logo: { filename: string; bytes: Uint8Array } | null;
  },
) {
  return getDb().transaction(async (tx) => {
    const image = opts.logo
      ? await saveKbImage(
          { accountId: opts.accountId, knowledgeBaseId: opts.id, filename: opts.logo.filename, bytes: opts.logo.bytes, userId: opts.actorId },
          tx,
        )
      : null;
    try {
      return await updateKnowledgeBaseSettings(
        {
          accountId: opts.accountId,
          actorId: opts.actorId,
          id: opts.id,
          patch: {
            brandColor: opts.brandColor,
            headerTextColor: opts.headerTextColor,
            headerLinks: opts.headerLinks,
            ...(image ? { logoToken: image.token } : opts.removeLogo ? { logoToken: null } : {}),
          },
        },
        tx,
      );
    } catch (err) {
      if (image) await removeStoredFiles([image.storageKey]);
      throw err;
    }
  });
}

/**
 * What the public help centre draws from Customization: no brand colour means the plain header. Colours are checked
 * again here (a restored or hand-edited row must not put anything but #rrggbb into a style).
 */
export function helpCentreLook(kb: KnowledgeBase) {
  const brandColor = kb.brandColor ? normaliseHexColor(kb.brandColor) : null;
  return {
    logoUrl: kb.logoToken && /^[0-9a-f]{32}$/.test(kb.logoToken) ? kbImageUrl(kb.logoToken) : null,
    brandColor,
    headerTextColor: brandColor ? normaliseHexColor(kb.headerTextColor ?? '') ?? DEFAULT_HEADER_TEXT_COLOR : null,
    headerLinks: (kb.headerLinks ?? []).filter((l) => /^https?:\/\//i.test(l.url)).slice(0, HEADER_LINKS_MAX),
  };
}
export type HelpCentreLook = ReturnType<typeof helpCentreLook>;

// ---------------------------------------------------------------------------------------------------------
// Version Control

/**
 * The most recent saves of every article of a knowledge base, newest first, with the previous version to compare:
 * the latest RECENT_VERSIONS_MAX of them (an article's older versions stay listed in its editor).
 */
export async function listRecentVersions(opts: { accountId: number; knowledgeBaseId: number; page: number; pageSize: number }) {
  const db = getDb();
  const scope = and(eq(v.accountId, opts.accountId), eq(a.knowledgeBaseId, opts.knowledgeBaseId));
  const previous = db
    .select({ id: sql<number>`max(${sql.raw('p.id')})` })
    .from(sql`kb_article_versions p`)
    .where(sql`p.article_id = ${v.articleId} and p.account_id = ${v.accountId} and p.number < ${v.number}`);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        id: v.id,
        number: v.number,
        title: v.title,
        createdAt: v.createdAt,
        articleId: a.id,
        articleTitle: a.title,
        publishedVersionId: a.publishedVersionId,
        trashed: sql<boolean>`${a.trashedAt} is not null`,
        authorFirstName: schema.users.firstName,
        authorLastName: schema.users.lastName,
        previousId: sql<number | null>`(${previous})`,
      })
      .from(v)
      .innerJoin(a, and(eq(a.id, v.articleId), eq(a.accountId, v.accountId)))
      .leftJoin(schema.users, and(eq(schema.users.id, v.authorId), eq(schema.users.accountId, v.accountId)))
      .where(scope)
      .orderBy(desc(v.createdAt), desc(v.id))
      .limit(opts.pageSize)
      .offset((opts.page - 1) * opts.pageSize),
    // Counted up to RECENT_VERSIONS_MAX along the (account, created_at) index: counting every version of a large
    // knowledge base cost more than the page itself (ADR 058).
    db
      .select({ total: count() })
      .from(
        db
          .select({ id: v.id })
          .from(v)
          .innerJoin(a, and(eq(a.id, v.articleId), eq(a.accountId, v.accountId)))
          .where(scope)
          .orderBy(desc(v.createdAt), desc(v.id))
          .limit(RECENT_VERSIONS_MAX)
          .as('recent'),
      ),
  ]);
  return { rows: (opts.page - 1) * opts.pageSize >= RECENT_VERSIONS_MAX ? [] : rows, total };
}

/** How many versions a limit would remove from the knowledge base now (the published ones are never removed). */
export async function countPrunableVersions(opts: { accountId: number; knowledgeBaseId: number; keep: number }) {
  const [row] = await getDb().execute<{ n: number }>(sql`
    select count(*)::int as n from (
      select ver.id, row_number() over (partition by ver.article_id order by ver.number desc) as rank, art.published_version_id
      from kb_article_versions ver
      join kb_articles art on art.id = ver.article_id and art.account_id = ver.account_id
      where ver.account_id = ${opts.accountId} and art.knowledge_base_id = ${opts.knowledgeBaseId}
    ) ranked
    where ranked.rank > ${opts.keep} and ranked.id is distinct from ranked.published_version_id`);
  return row?.n ?? 0;
}

/** Saves Version Control's limit and applies it to every article of the knowledge base at once. */
export async function saveVersionSettings(opts: Who & { versionsKept: number | null }) {
  return getDb().transaction(async (tx) => {
    const row = await updateKnowledgeBaseSettings(
      { accountId: opts.accountId, actorId: opts.actorId, id: opts.id, patch: { versionsKept: opts.versionsKept } },
      tx,
    );
    if (!row) return undefined;
    let removed = 0;
    if (opts.versionsKept) {
      const articles = await tx
        .select({ id: a.id })
        .from(a)
        .where(and(eq(a.accountId, opts.accountId), eq(a.knowledgeBaseId, row.id)));
      // Articles are pruned in slices so that one statement's IN list stays short.
      for (let i = 0; i < articles.length; i += 1000) {
        removed += await pruneVersions(tx, { accountId: opts.accountId, articleIds: articles.slice(i, i + 1000).map((r) => r.id), keep: opts.versionsKept });
      }
    }
    return { knowledgeBase: row, removed };
  });
}
