import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, getSql, schema, type Tx } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { recordChange } from '../productivity/shared.server';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_MESSAGES,
  ARCHIVE_VERSION,
  ArchiveError,
  checkManifest,
  parseRecord,
  readArchiveLines,
  recordLine,
  RECORD_ORDER,
  type ArchiveKind,
  type RecordType,
} from './archive.server';
import { searchConfigOf, type HelpArticleOrder } from './constants';
import { backupImageRecords, ImageRestorer } from './backup-images.server';
import { freeSlug, isCnameTaken } from './knowledge-bases.server';
import { rebuildSearchWords } from './search-words.server';
import { plainTextOf, sanitizeArticleHtml } from './sanitize.server';

type Scope = { accountId: number; knowledgeBaseId: number };

/** Rows read per round trip from the server-side cursors. */
const CURSOR_ROWS = 250;

// ---------------------------------------------------------------------------------------------------------
// Writing a backup (or an export): one read-only snapshot, streamed

/**
 * The records of a knowledge base, a page of lines at a time, read in ONE repeatable-read, read-only transaction
 * on a reserved connection (so categories, articles and versions agree with each other) through server-side
 * cursors: memory holds one page of rows, whatever the size of the knowledge base. A backup has everything; an
 * export the settings' name and language, the categories, the articles not in the trash and the images (ADR 059).
 */
export async function* archiveLines(opts: Scope & { kind: ArchiveKind }): AsyncGenerator<string> {
  const { accountId, knowledgeBaseId: kbId, kind } = opts;
  const backup = kind === 'backup';
  const db = await getSql().reserve();
  let open = false;
  try {
    await db`begin isolation level repeatable read read only`;
    open = true;
    const [kb] = await db`select * from knowledge_bases where account_id = ${accountId} and id = ${kbId}`;
    if (!kb) throw new Response('Not Found', { status: 404 });
    const counts: Record<string, number> = { category: 0, article: 0 };
    if (backup) Object.assign(counts, { version: 0, feedback: 0, redirect: 0 });
    yield recordLine({
      t: 'manifest',
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      kind,
      createdAt: new Date(),
      source: { knowledgeBaseId: kb.id, slug: kb.slug },
    });
    yield recordLine(
      backup
        ? {
            t: 'settings',
            name: kb.name,
            detail: kb.detail,
            helpName: kb.help_name,
            cname: kb.cname,
            language: kb.language,
            docsVisible: kb.docs_visible,
            seoTitle: kb.seo_title,
            seoDescription: kb.seo_description,
            gaKey: kb.ga_key,
            anonymizedIp: kb.anonymized_ip,
            customCss: kb.custom_css,
            customJs: kb.custom_js,
            logoToken: kb.logo_token,
            brandColor: kb.brand_color,
            headerTextColor: kb.header_text_color,
            headerLinks: kb.header_links,
            articleFeedback: kb.article_feedback,
            showLastUpdated: kb.show_last_updated,
            showViewCount: kb.show_view_count,
            relatedArticles: kb.related_articles,
            articleOrder: kb.article_order,
            versionsKept: kb.versions_kept,
          }
        : { t: 'settings', name: kb.name, detail: kb.detail, language: kb.language },
    );

    for await (const rows of db`
      select id, name, description, slug, position, created_at, updated_at from kb_categories
       where account_id = ${accountId} and knowledge_base_id = ${kbId} order by position, id`.cursor(CURSOR_ROWS)) {
      counts.category += rows.length;
      yield rows
        .map((r) =>
          recordLine({
            t: 'category',
            id: r.id,
            name: r.name,
            description: r.description,
            slug: r.slug,
            position: r.position,
            ...(backup ? { createdAt: r.created_at, updatedAt: r.updated_at } : {}),
          }),
        )
        .join('');
    }

    for await (const rows of db`
      select a.*, u.email as author_email from kb_articles a
        left join users u on u.id = a.author_id and u.account_id = a.account_id
       where a.account_id = ${accountId} and a.knowledge_base_id = ${kbId} ${backup ? db`` : db`and a.trashed_at is null`}
       order by a.id`.cursor(CURSOR_ROWS)) {
      counts.article += rows.length;
      yield rows.map((r) => recordLine(articleRecord(r, backup))).join('');
    }

    if (backup) {
      for await (const rows of db`
        select v.*, u.email as author_email from kb_article_versions v
          join kb_articles a on a.id = v.article_id and a.account_id = v.account_id
          left join users u on u.id = v.author_id and u.account_id = v.account_id
         where v.account_id = ${accountId} and a.knowledge_base_id = ${kbId} order by v.article_id, v.number`.cursor(CURSOR_ROWS)) {
        counts.version += rows.length;
        yield rows
          .map((r) =>
            recordLine({
              t: 'version',
              id: r.id,
              articleId: r.article_id,
              number: r.number,
              title: r.title,
              slug: r.slug,
              categoryId: r.category_id,
              bodyHtml: r.body_html,
              seoTitle: r.seo_title,
              seoDescription: r.seo_description,
              author: r.author_email ?? null,
              createdAt: r.created_at,
            }),
          )
          .join('');
      }
      for await (const rows of db`
        select f.article_id, f.visitor_key, f.helpful, f.created_at from kb_article_feedback f
          join kb_articles a on a.id = f.article_id and a.account_id = f.account_id
         where f.account_id = ${accountId} and a.knowledge_base_id = ${kbId} order by f.article_id, f.id`.cursor(CURSOR_ROWS)) {
        counts.feedback += rows.length;
        yield rows
          .map((r) => recordLine({ t: 'feedback', articleId: r.article_id, visitorKey: r.visitor_key, helpful: r.helpful, createdAt: r.created_at }))
          .join('');
      }
      for await (const rows of db`
        select source, destination, created_at from kb_redirects
         where account_id = ${accountId} and knowledge_base_id = ${kbId} order by source`.cursor(CURSOR_ROWS)) {
        counts.redirect += rows.length;
        yield rows.map((r) => recordLine({ t: 'redirect', source: r.source, destination: r.destination, createdAt: r.created_at })).join('');
      }
    }
    // Images in both kinds: an export's articles point to /kb-images/{token}, which another account or installation
    // only has once the import has brought the image along.
    counts.image = 0;
    for await (const line of backupImageRecords(db, { accountId, knowledgeBaseId: kbId })) {
      counts.image += 1;
      yield line;
    }
    yield recordLine({ t: 'end', counts });
    await db`commit`;
    open = false;
  } finally {
    if (open) await db`rollback`.catch(() => {});
    db.release();
  }
}

function articleRecord(r: Record<string, unknown>, backup: boolean) {
  const base = {
    t: 'article',
    id: r.id,
    categoryId: r.category_id,
    title: r.title,
    slug: r.slug,
    bodyHtml: r.body_html,
    seoTitle: r.seo_title,
    seoDescription: r.seo_description,
    status: r.status,
    trashedAt: r.trashed_at,
    position: r.position,
    publishedTitle: r.published_title,
    publishedSlug: r.published_slug,
    publishedHtml: r.published_html,
    publishedAt: r.published_at,
  };
  if (!backup) return base;
  return {
    ...base,
    publishedVersionId: r.published_version_id,
    helpfulCount: r.helpful_count,
    unhelpfulCount: r.unhelpful_count,
    viewCount: r.view_count,
    author: r.author_email ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * The archive as a byte stream for a download: the lines through gzip for a backup, plain for an export. Pulled
 * by the response (backpressure all the way to the cursors); a reader that goes away ends the cursors and frees the
 * connection; a failure half-way ends the download broken (the file then lacks its end record), never silently short.
 */
export function archiveStream(opts: Scope & { kind: ArchiveKind }): ReadableStream<Uint8Array> {
  const source = Readable.from(archiveLines(opts), { objectMode: false, highWaterMark: 64 * 1024 });
  if (opts.kind === 'export') return Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>;
  const gzip = zlib.createGzip({ level: 6 });
  pipeline(source, gzip, (err) => {
    if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      getLogger().warn({ err: err.message, ...opts }, 'knowledge base backup failed');
  });
  return Readable.toWeb(gzip) as unknown as ReadableStream<Uint8Array>;
}

export function archiveFilename(kb: { slug: string }, kind: ArchiveKind, at = new Date()) {
  const stamp = at.toISOString().slice(0, 16).replace(/[-:T]/g, '');
  return kind === 'backup' ? `${kb.slug}-backup-${stamp}.parley-kb.jsonl.gz` : `${kb.slug}-export-${stamp}.jsonl`;
}

// ---------------------------------------------------------------------------------------------------------
// Restoring

export type RestoreTarget = { knowledgeBaseId: number } | { newName: string | null };
export type RestoreResult = { ok: true; knowledgeBaseId: number; counts: Record<string, number>; notes: string[] } | { ok: false; error: string };

const a = schema.kbArticles;
const kbt = schema.knowledgeBases;

/** Batches of rows are written together; each batch is bounded, so memory is too. */
const INSERT_BATCH = 200;

/**
 * Restores a backup file into the account's knowledge base (its categories, articles, versions, feedback,
 * redirects and images are replaced) or into a new one. Everything happens in one transaction: a file that is
 * malformed, cut off, of a newer format or not a backup changes nothing (image files already written are removed).
 * Ids are the file's only inside the file: every row gets a new id in the account, references are remapped, and
 * nothing of another account is read or written (authors are matched by email among the account's own users).
 */
export async function restoreBackup(opts: {
  accountId: number;
  actorId: number | null;
  file: string;
  target: RestoreTarget;
  /** Whether the plan has customJavascript: without it the backup's custom CSS/JS is not restored. */
  customCode: boolean;
}): Promise<RestoreResult> {
  const images = new ImageRestorer(opts.accountId);
  try {
    const result = await getDb().transaction((tx) => restoreInTx(tx, opts, images));
    await images.committed();
    return { ok: true, ...result };
  } catch (err) {
    await images.rolledBack();
    if (err instanceof ArchiveError) return { ok: false, error: err.message };
    const code = (err as { cause?: { code?: string }; code?: string })?.cause?.code ?? (err as { code?: string })?.code;
    if (code === '23505')
      return {
        ok: false,
        error:
          "The file is not valid: it holds two records that must be unique (two versions with one number, two redirects from one path, or one visitor's feedback twice)",
      };
    if (err instanceof Response) throw err;
    getLogger().error({ err: err instanceof Error ? err.message : String(err), accountId: opts.accountId }, 'knowledge base restore failed');
    return { ok: false, error: 'The backup could not be restored; nothing was changed' };
  }
}

type Row = Record<string, unknown>;

/**
 * Sanitising is most of a restore's time. An article's working copy, published copy and latest version are usually
 * the same HTML, so the last few results are kept (a handful of strings: memory stays bounded).
 */
function sanitizer() {
  const recent = new Map<string, { html: string; text: string }>();
  return (raw: string) => {
    const hit = recent.get(raw);
    if (hit) return hit;
    const html = sanitizeArticleHtml(raw);
    const out = { html, text: plainTextOf(html) };
    if (recent.size >= 8) recent.delete(recent.keys().next().value as string);
    recent.set(raw, out);
    return out;
  };
}

async function restoreInTx(tx: Tx, opts: Parameters<typeof restoreBackup>[0], images: ImageRestorer) {
  const { accountId } = opts;
  const notes: string[] = [];
  const counts: Record<string, number> = {};
  const categoryIds = new Map<number, number>();
  const articleIds = new Map<number, number>();
  const versionIds = new Map<number, number>();
  /** New article id → the file's id of its published version, set once the versions are in. */
  const publishedVersion = new Map<number, number>();
  const users = new Map(
    (await tx.select({ id: schema.users.id, email: schema.users.email }).from(schema.users).where(eq(schema.users.accountId, accountId))).map((u) => [
      u.email.toLowerCase(),
      u.id,
    ]),
  );
  const clean = sanitizer();
  const authorOf = (email: unknown) => (typeof email === 'string' ? users.get(email.toLowerCase()) ?? null : null);

  let kbId = 0;
  let searchConfig = 'simple';
  let stage = -1;
  let ended = false;
  let batch: { type: RecordType; rows: Row[] } = { type: 'manifest', rows: [] };

  const flush = async () => {
    const { type, rows } = batch;
    batch = { type, rows: [] };
    if (rows.length === 0) return;
    if (type === 'category') {
      const inserted = await tx
        .insert(schema.kbCategories)
        .values(
          rows.map((r) => ({
            accountId,
            knowledgeBaseId: kbId,
            name: r.name as string,
            description: r.description as string,
            slug: r.slug as string,
            position: r.position as number,
            createdAt: ts(r.createdAt),
            updatedAt: ts(r.updatedAt),
          })),
        )
        .returning({ id: schema.kbCategories.id });
      rows.forEach((r, i) => categoryIds.set(r.id as number, inserted[i].id));
    } else if (type === 'article') {
      const values = rows.map((r) => {
        const body = clean(r.bodyHtml as string);
        const live = r.publishedHtml === null ? null : clean(r.publishedHtml as string);
        const publishedHtml = live?.html ?? null;
        const published = r.status === 'published' && publishedHtml !== null && r.publishedTitle !== null;
        return {
          accountId,
          knowledgeBaseId: kbId,
          categoryId: mapRef(categoryIds, r.categoryId, 'article', 'category'),
          title: r.title as string,
          slug: r.slug as string,
          bodyHtml: body.html,
          bodyText: body.text,
          seoTitle: r.seoTitle as string | null,
          seoDescription: r.seoDescription as string | null,
          status: published ? ('published' as const) : ('draft' as const),
          trashedAt: ts(r.trashedAt) ?? null,
          position: r.position as number,
          publishedTitle: published ? (r.publishedTitle as string) : null,
          publishedSlug: published ? (r.publishedSlug as string | null) ?? (r.slug as string) : null,
          publishedHtml: published ? publishedHtml : null,
          publishedText: published && live ? live.text : null,
          publishedAt: published ? ts(r.publishedAt) ?? new Date() : null,
          searchConfig,
          helpfulCount: r.helpfulCount as number,
          unhelpfulCount: r.unhelpfulCount as number,
          viewCount: r.viewCount as number,
          authorId: authorOf(r.author),
          createdAt: ts(r.createdAt),
          updatedAt: ts(r.updatedAt),
        };
      });
      const inserted = await tx.insert(a).values(values).returning({ id: a.id });
      rows.forEach((r, i) => {
        articleIds.set(r.id as number, inserted[i].id);
        if (values[i].status === 'published' && r.publishedVersionId) publishedVersion.set(inserted[i].id, r.publishedVersionId as number);
      });
    } else if (type === 'version') {
      const inserted = await tx
        .insert(schema.kbArticleVersions)
        .values(
          rows.map((r) => {
            const body = clean(r.bodyHtml as string);
            return {
              accountId,
              articleId: mapRef(articleIds, r.articleId, 'version', 'article')!,
              number: r.number as number,
              title: r.title as string,
              slug: r.slug as string,
              categoryId: r.categoryId === null ? null : categoryIds.get(r.categoryId as number) ?? null,
              bodyHtml: body.html,
              bodyText: body.text,
              seoTitle: r.seoTitle as string | null,
              seoDescription: r.seoDescription as string | null,
              authorId: authorOf(r.author),
              createdAt: ts(r.createdAt),
            };
          }),
        )
        .returning({ id: schema.kbArticleVersions.id });
      rows.forEach((r, i) => versionIds.set(r.id as number, inserted[i].id));
    } else if (type === 'feedback') {
      await tx.insert(schema.kbArticleFeedback).values(
        rows.map((r) => ({
          accountId,
          articleId: mapRef(articleIds, r.articleId, 'feedback', 'article')!,
          visitorKey: r.visitorKey as string,
          helpful: r.helpful as boolean,
          createdAt: ts(r.createdAt),
        })),
      );
    } else if (type === 'redirect') {
      await tx.insert(schema.kbRedirects).values(
        rows.map((r) => ({
          accountId,
          knowledgeBaseId: kbId,
          source: r.source as string,
          destination: r.destination as string,
          createdAt: ts(r.createdAt),
        })),
      );
    }
  };

  for await (const { line, value } of readArchiveLines(opts.file)) {
    if (line === 1 || stage < 0) {
      const manifest = checkManifest(value);
      if (manifest.kind !== 'backup') throw new ArchiveError(ARCHIVE_MESSAGES.wrongKind);
      stage = 0;
      continue;
    }
    if (ended) throw new ArchiveError(`Line ${line} comes after the closing record`);
    const { type, record } = parseRecord(line, value);
    const at = RECORD_ORDER.indexOf(type);
    if (at < stage || type === 'manifest') throw new ArchiveError(`Line ${line} is out of order: a ${type} record after the ${RECORD_ORDER[stage]} records`);
    if (at > stage) {
      await flush();
      if (type !== 'settings' && kbId === 0) throw new ArchiveError(`Line ${line}: the settings record is missing`);
      if (stage <= RECORD_ORDER.indexOf('version') && at > RECORD_ORDER.indexOf('version')) await linkPublishedVersions();
      stage = at;
      batch = { type, rows: [] };
    }
    counts[type] = (counts[type] ?? 0) + 1;
    if (type === 'settings') {
      if (counts.settings > 1) throw new ArchiveError(`Line ${line}: a second settings record`);
      ({ kbId, searchConfig } = await prepareTarget(tx, opts, record, notes, images));
      images.knowledgeBaseId = kbId;
    } else if (type === 'image') {
      await images.restore(tx, line, record);
    } else if (type === 'end') {
      const expected = record.counts as Record<string, number>;
      for (const [kind, n] of Object.entries(expected)) {
        if ((counts[kind] ?? 0) !== n)
          throw new ArchiveError(`The file is incomplete or altered: it announces ${n} ${kind} records and holds ${counts[kind] ?? 0}`);
      }
      ended = true;
    } else {
      batch.rows.push(record);
      if (batch.rows.length >= INSERT_BATCH) await flush();
    }
  }
  if (stage < 0) throw new ArchiveError(ARCHIVE_MESSAGES.empty);
  if (!ended) throw new ArchiveError(ARCHIVE_MESSAGES.incomplete);

  async function linkPublishedVersions() {
    if (publishedVersion.size === 0) return;
    const pairs = [...publishedVersion.entries()].map(([articleId, fileVersionId]) => {
      const versionId = versionIds.get(fileVersionId);
      if (!versionId) throw new ArchiveError('The file is not valid: an article is published from a version that is not in the file');
      return [articleId, versionId] as const;
    });
    publishedVersion.clear();
    for (let i = 0; i < pairs.length; i += 1000) {
      const slice = pairs.slice(i, i + 1000);
      const bad = await tx.execute<{ a: number }>(sql`
        select p.a from unnest(${sql.param(slice.map((p) => p[0]))}::int[], ${sql.param(slice.map((p) => p[1]))}::int[]) as p(a, v)
         where not exists (select 1 from kb_article_versions v where v.id = p.v and v.article_id = p.a and v.account_id = ${accountId})`);
      if (bad.length > 0) throw new ArchiveError('The file is not valid: an article is published from a version of another article');
      await tx.execute(sql`
        update kb_articles a set published_version_id = p.v
          from unnest(${sql.param(slice.map((p) => p[0]))}::int[], ${sql.param(slice.map((p) => p[1]))}::int[]) as p(a, v)
         where a.id = p.a and a.account_id = ${accountId} and a.knowledge_base_id = ${kbId}`);
    }
  }

  await rebuildSearchWords(tx, { accountId, knowledgeBaseId: kbId });
  // A logo whose image the file did not carry is dropped rather than left pointing at nothing.
  await tx.execute(sql`update knowledge_bases k set logo_token = null
     where k.account_id = ${accountId} and k.id = ${kbId} and k.logo_token is not null
       and not exists (select 1 from kb_images i where i.account_id = k.account_id and i.knowledge_base_id = k.id and i.token = k.logo_token)`);
  const restoredCounts = Object.fromEntries(Object.entries(counts).filter(([k]) => !['settings', 'end'].includes(k)));
  await recordChange(tx, {
    accountId,
    actorId: opts.actorId,
    type: 'knowledgeBaseId' in opts.target ? 'knowledge_base_updated' : 'knowledge_base_created',
    subjectType: 'knowledge_base',
    subjectId: kbId,
    payload: { restored: true, counts: restoredCounts },
  });
  return { knowledgeBaseId: kbId, counts: restoredCounts, notes };
}

/** A timestamp of the file, cast by PostgreSQL (drizzle's date columns would cut it to milliseconds). */
function ts(value: unknown) {
  return typeof value === 'string' ? sql<Date>`${value}::timestamptz` : undefined;
}

function mapRef(map: Map<number, number>, fileId: unknown, what: string, of: string) {
  if (fileId === null || fileId === undefined) return null;
  const id = map.get(fileId as number);
  if (!id) throw new ArchiveError(`The file is not valid: a ${what} refers to ${of} ${String(fileId)}, which is not in the file`);
  return id;
}

/**
 * The knowledge base the backup goes into, with its settings: a new one (a free slug, no custom domain that
 * another knowledge base serves), or the account's own one emptied of its content (its slug kept).
 */
async function prepareTarget(tx: Tx, opts: Parameters<typeof restoreBackup>[0], s: Row, notes: string[], images: ImageRestorer) {
  const { accountId } = opts;
  const cnameWanted = (s.cname as string | null)?.toLowerCase() || null;
  const settings = {
    detail: s.detail as string,
    helpName: (s.helpName as string | null) && (s.helpName as string).length >= 3 ? (s.helpName as string) : null,
    language: s.language as string,
    docsVisible: s.docsVisible as boolean,
    seoTitle: s.seoTitle as string | null,
    seoDescription: s.seoDescription as string | null,
    gaKey: s.gaKey && /^(UA-\d{4,10}-\d{1,4}|G-[A-Z0-9]{4,12})$/.test(s.gaKey as string) ? (s.gaKey as string) : null,
    anonymizedIp: s.anonymizedIp as boolean,
    logoToken: s.logoToken as string | null,
    brandColor: s.brandColor as string | null,
    headerTextColor: s.headerTextColor as string | null,
    headerLinks: s.headerLinks as { label: string; url: string }[],
    articleFeedback: s.articleFeedback as boolean,
    showLastUpdated: s.showLastUpdated as boolean,
    showViewCount: s.showViewCount as boolean,
    relatedArticles: s.relatedArticles as boolean,
    articleOrder: s.articleOrder as HelpArticleOrder,
    versionsKept: s.versionsKept as number | null,
    ...(opts.customCode ? { customCss: s.customCss as string, customJs: s.customJs as string } : {}),
  };
  if (!opts.customCode && ((s.customCss as string) || (s.customJs as string)))
    notes.push('The custom CSS and JavaScript were not restored: your plan does not include them.');
  let kbId: number;
  if ('knowledgeBaseId' in opts.target) {
    const [kb] = await tx
      .select()
      .from(kbt)
      .where(and(eq(kbt.accountId, accountId), eq(kbt.id, opts.target.knowledgeBaseId)))
      .for('update');
    if (!kb) throw new Response('Not Found', { status: 404 });
    kbId = kb.id;
    const scope = and(eq(schema.kbCategories.accountId, accountId), eq(schema.kbCategories.knowledgeBaseId, kbId));
    await tx.delete(a).where(and(eq(a.accountId, accountId), eq(a.knowledgeBaseId, kbId)));
    await tx.delete(schema.kbCategories).where(scope);
    await images.clear(tx, kbId);
    await tx.delete(schema.kbRedirects).where(and(eq(schema.kbRedirects.accountId, accountId), eq(schema.kbRedirects.knowledgeBaseId, kbId)));
    let cname: string | null = cnameWanted;
    if (cname && (await isCnameTaken({ id: kbId, cname }))) {
      notes.push(`The custom domain ${cname} was not restored: another help centre serves it.`);
      cname = kb.cname;
    }
    await tx
      .update(kbt)
      .set({ ...settings, name: s.name as string, cname, updatedAt: new Date() })
      .where(and(eq(kbt.accountId, accountId), eq(kbt.id, kbId)));
  } else {
    const name = opts.target.newName?.trim() || (s.name as string);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('knowledge_bases'), ${accountId})`);
    const slug = await freeSlug(tx, name);
    if (cnameWanted)
      notes.push(`The custom domain ${cnameWanted} was not given to the new help centre (one domain serves one help centre); set one under General.`);
    const [row] = await tx
      .insert(kbt)
      .values({ accountId, name, slug, cname: null, ...settings })
      .returning({ id: kbt.id });
    kbId = row.id;
  }
  return { kbId, searchConfig: searchConfigOf(s.language as string) };
}
