import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { claimableRun, enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { assertAllowedLiteral, guardedLookup, isRefusedUrl, OutboundRefusedError, REFUSED_DESTINATION_MESSAGE } from '../../utils/outbound-guard.server';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveError, recordLine, uploadsDir } from './archive.server';
import { ARTICLE_TITLE_MAX, CATEGORY_DESCRIPTION_MAX, CATEGORY_NAME_MAX, KB_IMAGE_MAX_BYTES, kbImageUrl, slugify } from './constants';
import { sniffKbImage } from './images.server';
import { importArchive } from './import-export.server';

/**
 * Import from a Zendesk Help Center by its address (ADR 059), through its public Help Center API:
 * `GET {base}/api/v2/help_center/{locale}/categories.json`, `sections.json` and `articles.json`, 100 a page,
 * following `next_page` (offset pagination) or `links.next` while `meta.has_more` (cursor pagination). Without
 * credentials the API answers what an anonymous visitor sees: published, public articles.
 *
 * Every request goes through the outbound guard (public addresses only, unless PARLEY_ALLOW_PRIVATE_DESTINATIONS),
 * with a timeout and a size limit; a 429 waits for its Retry-After. What was fetched is written to a spool file
 * in Parley's own export format and imported from there in one transaction (importArchive), so a failure at any
 * point writes nothing.
 */
export const ZENDESK_LIMITS = {
  timeoutMs: 20_000,
  maxResponseBytes: 8 * 1024 * 1024,
  maxArticles: 5_000,
  maxSections: 2_000,
  maxPages: 200,
  /** Images of the help centre's own address copied into the knowledge base (others stay where they are). */
  maxImages: 1_000,
  /** A 429 is retried this many times, waiting for its Retry-After (at most maxWaitSeconds each time). */
  maxRetries: 4,
  maxWaitSeconds: 60,
};

export class ZendeskImportError extends Error {}

export const ZENDESK_MESSAGES = {
  notFound: (url: string) => `No Zendesk help centre answers at this address (404 for ${url})`,
  status: (status: number) => `The help centre answered with an error (HTTP ${status})`,
  notJson: "The address did not answer in the format of Zendesk's Help Center API",
  tooLarge: `An answer of the help centre was larger than ${ZENDESK_LIMITS.maxResponseBytes / 1024 / 1024} MB`,
  tooMany: () => `The help centre has more than ${ZENDESK_LIMITS.maxArticles} articles; this import takes at most that many`,
  rateLimited: 'The help centre kept asking to slow down (429); try again later',
  timeout: 'The help centre did not answer in time',
  unreachable: 'The help centre could not be reached',
  refused: 'The address was refused: Parley only connects to public internet addresses',
  running: 'An import is already running for this knowledge base',
} as const;

/** The help centre's origin and locale from what a user pastes: the home page, an /hc/{locale} page, or the bare host. */
export function zendeskSource(input: string, locale?: string | null) {
  const url = new URL(input.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ZendeskImportError('Enter an address that starts with https:// (or http://)');
  const fromPath = /^\/hc\/([a-z]{2,3}(?:-[a-z0-9]{2,8})?)(?:\/|$)/i.exec(url.pathname)?.[1]?.toLowerCase();
  return { origin: url.origin, locale: (locale || fromPath || 'en-us').toLowerCase() };
}

type JsonPage = Record<string, unknown>;

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

/** One GET through the outbound guard, with a timeout and a size limit (an answer over it is an error). */
function guardedGet(url: string, maxBytes: number, accept: string): Promise<{ status: number; retryAfter: string | null; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const parsed = new URL(url);
    const client = parsed.protocol === 'https:' ? https : http;
    try {
      assertAllowedLiteral(parsed.hostname);
    } catch (err) {
      return reject(err);
    }
    const req = client.request(
      parsed,
      {
        method: 'GET',
        headers: { accept, 'user-agent': 'Parley knowledge base import' },
        lookup: guardedLookup as never,
        agent: false,
        timeout: ZENDESK_LIMITS.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          return reject(new ZendeskImportError(ZENDESK_MESSAGES.tooLarge));
        }
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new ZendeskImportError(ZENDESK_MESSAGES.tooLarge));
          } else chunks.push(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new ZendeskImportError(ZENDESK_MESSAGES.timeout)));
    req.on('error', reject);
    req.end();
  });
}

/** A GET of the API: the body parsed as a JSON object (null when it is not one). */
async function getJson(url: string): Promise<{ status: number; retryAfter: string | null; body: JsonPage | null }> {
  const res = await guardedGet(url, ZENDESK_LIMITS.maxResponseBytes, 'application/json');
  let body: JsonPage | null = null;
  try {
    const parsed = JSON.parse(res.bytes.toString('utf8')) as unknown;
    body = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonPage) : null;
  } catch {
    body = null;
  }
  return { status: res.status, retryAfter: res.retryAfter, body };
}

/** A page, waiting out 429s (Retry-After in seconds or as a date), with the API's errors in words. */
async function fetchPage(url: string): Promise<JsonPage> {
  for (let attempt = 0; ; attempt++) {
    const res = await getJson(url);
    if (res.status === 429) {
      if (attempt >= ZENDESK_LIMITS.maxRetries) throw new ZendeskImportError(ZENDESK_MESSAGES.rateLimited);
      const seconds = Number(res.retryAfter);
      const wait = Number.isFinite(seconds) ? seconds : res.retryAfter ? (Date.parse(res.retryAfter) - Date.now()) / 1000 : 2 ** attempt;
      await sleep(Math.min(Math.max(wait, 0.05), ZENDESK_LIMITS.maxWaitSeconds) * 1000);
      continue;
    }
    if (res.status === 404) throw new ZendeskImportError(ZENDESK_MESSAGES.notFound(new URL(url).pathname));
    if (res.status < 200 || res.status >= 300) throw new ZendeskImportError(ZENDESK_MESSAGES.status(res.status));
    if (!res.body) throw new ZendeskImportError(ZENDESK_MESSAGES.notJson);
    return res.body;
  }
}

/**
 * Every item of a list endpoint, page after page. The next page must be on the same help centre (a next_page
 * elsewhere is not followed); `onPage` sees each page's items (progress) and may stop the walk by throwing.
 */
async function fetchAll<T>(origin: string, first: string, key: string, onPage: (items: T[]) => Promise<void>) {
  let url: string | null = first;
  for (let pages = 0; url; pages++) {
    if (pages >= ZENDESK_LIMITS.maxPages) throw new ZendeskImportError(ZENDESK_MESSAGES.tooMany());
    const page = await fetchPage(url);
    const items = page[key];
    if (!Array.isArray(items)) throw new ZendeskImportError(ZENDESK_MESSAGES.notJson);
    await onPage(items as T[]);
    const meta = page.meta as { has_more?: unknown } | undefined;
    const links = page.links as { next?: unknown } | undefined;
    const next = typeof page.next_page === 'string' ? page.next_page : meta?.has_more === true && typeof links?.next === 'string' ? links.next : null;
    if (next && new URL(next, origin).origin !== origin)
      throw new ZendeskImportError('The help centre pointed its next page to another address; the import stopped');
    url = next ? new URL(next, origin).href : null;
  }
}

type ZCategory = { id: number; name?: string; description?: string | null; position?: number };
type ZSection = { id: number; category_id?: number | null; parent_section_id?: number | null; name?: string; description?: string | null; position?: number };
type ZArticle = {
  id: number;
  section_id?: number | null;
  title?: string | null;
  name?: string | null;
  body?: string | null;
  draft?: boolean;
  position?: number;
};

// ---------------------------------------------------------------------------------------------------------
// Jobs

const imp = schema.kbImports;
export type KbImport = typeof imp.$inferSelect;

export type StartImportResult = { ok: true; importId: number } | { ok: false; field: 'url' | 'form'; message: string };

/** Queues an import (one at a time per knowledge base); the address is checked before anything is stored. */
export async function startZendeskImport(opts: {
  accountId: number;
  knowledgeBaseId: number;
  actorId: number | null;
  url: string;
  locale?: string | null;
}): Promise<StartImportResult> {
  let source: ReturnType<typeof zendeskSource>;
  try {
    source = zendeskSource(opts.url, opts.locale);
  } catch (err) {
    return { ok: false, field: 'url', message: err instanceof ZendeskImportError ? err.message : 'Enter a valid address' };
  }
  if (await isRefusedUrl(source.origin)) return { ok: false, field: 'url', message: REFUSED_DESTINATION_MESSAGE };
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('kb_imports'), ${opts.knowledgeBaseId})`);
    const [running] = await tx
      .select({ id: imp.id })
      .from(imp)
      .where(and(eq(imp.accountId, opts.accountId), eq(imp.knowledgeBaseId, opts.knowledgeBaseId), inArray(imp.status, ['queued', 'running'])))
      .limit(1);
    if (running) return { ok: false as const, field: 'form' as const, message: ZENDESK_MESSAGES.running };
    const [row] = await tx
      .insert(imp)
      .values({
        accountId: opts.accountId,
        knowledgeBaseId: opts.knowledgeBaseId,
        source: 'zendesk',
        url: source.origin,
        locale: source.locale,
        createdBy: opts.actorId,
      })
      .returning({ id: imp.id });
    await enqueueInTx(tx, QUEUES.kbImport, { accountId: opts.accountId, importId: row.id });
    return { ok: true as const, importId: row.id };
  });
}

export async function listKbImports(opts: { accountId: number; knowledgeBaseId: number; limit?: number }) {
  return getDb()
    .select()
    .from(imp)
    .where(and(eq(imp.accountId, opts.accountId), eq(imp.knowledgeBaseId, opts.knowledgeBaseId)))
    .orderBy(desc(imp.id))
    .limit(opts.limit ?? 5);
}

async function setImport(opts: { accountId: number; importId: number }, patch: Partial<typeof imp.$inferInsert>) {
  await getDb()
    .update(imp)
    .set(patch)
    .where(and(eq(imp.accountId, opts.accountId), eq(imp.id, opts.importId)));
}

/**
 * The job: fetches the help centre into a spool file, then imports it in one transaction. Ends as done (with what
 * it wrote) or failed (with a message for the page); it does not throw for the help centre's faults, so the queue
 * does not fetch everything again. A job of an import that already ended does nothing.
 */
export async function runZendeskImport(opts: { accountId: number; importId: number }) {
  // Claimed once: a second worker (or a retry while the first still runs) finds nothing to do. A run that died
  // (its job expired after an hour) may be claimed again.
  const [row] = await getDb()
    .update(imp)
    .set({ status: 'running', fetched: {} })
    .where(
      and(
        eq(imp.accountId, opts.accountId),
        eq(imp.id, opts.importId),
        claimableRun(imp),
      ),
    )
    .returning();
  if (!row) return;
  await fs.promises.mkdir(uploadsDir(), { recursive: true });
  const spool = path.join(uploadsDir(), `zendesk-${crypto.randomUUID()}.jsonl`);
  try {
    const fetched = await fetchToSpool({
      origin: row.url,
      locale: row.locale ?? 'en-us',
      spool,
      tokenSalt: `kb${row.knowledgeBaseId}`,
      progress: (f) => setImport(opts, { fetched: f }),
    });
    const result = await importArchive({
      accountId: row.accountId,
      knowledgeBaseId: row.knowledgeBaseId,
      actorId: row.createdBy,
      file: spool,
      source: `zendesk:${row.url}`,
    });
    if (!result.ok) await setImport(opts, { status: 'failed', message: result.error, fetched, finishedAt: new Date() });
    else await setImport(opts, { status: 'done', result: result.counts, fetched, finishedAt: new Date() });
  } catch (err) {
    await setImport(opts, { status: 'failed', message: failureMessage(err), finishedAt: new Date() });
  } finally {
    await fs.promises.rm(spool, { force: true });
  }
}

function failureMessage(err: unknown) {
  if (err instanceof ZendeskImportError || err instanceof ArchiveError) return err.message;
  if (err instanceof OutboundRefusedError || (err as { cause?: unknown })?.cause instanceof OutboundRefusedError) return ZENDESK_MESSAGES.refused;
  const code = (err as NodeJS.ErrnoException)?.code;
  getLogger().warn({ err: err instanceof Error ? err.message : String(err), code }, 'knowledge base import from Zendesk failed');
  if (code === 'ECONNRESET' || code === 'ETIMEDOUT') return ZENDESK_MESSAGES.timeout;
  return ZENDESK_MESSAGES.unreachable;
}

/**
 * Fetches categories, sections and articles and writes them as a Parley export file. Zendesk's two levels become
 * Parley's one: each section is a category, in the order of its Zendesk category then its own position, named
 * after the section ("Category › Section" when two sections share a name, or for a section inside another).
 */
export async function fetchToSpool(opts: {
  origin: string;
  locale: string;
  spool: string;
  /** Makes image tokens stable per knowledge base, so that importing the same help centre again adds no copies. */
  tokenSalt: string;
  progress?: (fetched: Record<string, number>) => Promise<void>;
}) {
  const api = (what: string) => `${opts.origin}/api/v2/help_center/${encodeURIComponent(opts.locale)}/${what}.json?per_page=100`;
  const fetched = { categories: 0, sections: 0, articles: 0, images: 0 };
  const categories: ZCategory[] = [];
  await fetchAll<ZCategory>(opts.origin, api('categories'), 'categories', async (items) => {
    categories.push(...items.filter((c) => typeof c?.id === 'number'));
    fetched.categories = categories.length;
    await opts.progress?.({ ...fetched });
  });
  const sections: ZSection[] = [];
  await fetchAll<ZSection>(opts.origin, api('sections'), 'sections', async (items) => {
    sections.push(...items.filter((s) => typeof s?.id === 'number'));
    if (sections.length > ZENDESK_LIMITS.maxSections) throw new ZendeskImportError(`The help centre has more than ${ZENDESK_LIMITS.maxSections} sections`);
    fetched.sections = sections.length;
    await opts.progress?.({ ...fetched });
  });

  const categoryOrder = new Map(categories.map((c, i) => [c.id, { position: c.position ?? i, name: (c.name ?? '').trim() }]));
  const byId = new Map(sections.map((s) => [s.id, s]));
  const nameCount = new Map<string, number>();
  for (const s of sections) nameCount.set((s.name ?? '').trim().toLowerCase(), (nameCount.get((s.name ?? '').trim().toLowerCase()) ?? 0) + 1);
  const ordered = sections
    .map((s, i) => ({ s, i, cat: categoryOrder.get(s.category_id ?? -1) }))
    .sort((x, y) => (x.cat?.position ?? 1e9) - (y.cat?.position ?? 1e9) || (x.s.position ?? 0) - (y.s.position ?? 0) || x.i - y.i);

  const out = fs.createWriteStream(opts.spool);
  const writeTo = (stream: fs.WriteStream, data: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      const ok = stream.write(data, (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else stream.once('drain', resolve);
    });
  const write = (record: Record<string, unknown>) => writeTo(out, recordLine(record));
  // Image records come after the articles in the format: they are gathered in a second file and appended.
  const imagesFile = `${opts.spool}.images`;
  const imagesOut = fs.createWriteStream(imagesFile);
  // A stream's own error (a full disk) fails the import; without a listener it would be an uncaught exception.
  let streamError: Error | null = null;
  for (const stream of [out, imagesOut]) stream.on('error', (err) => void (streamError ??= err));
  const counts = { category: 0, article: 0, image: 0 };
  const localImages = new Map<string, string | null>();
  /**
   * The article's images on the help centre's own address, copied (a PNG, JPEG, GIF or WebP of at most 5 MB, by its
   * bytes) and pointed to at /kb-images/{token}; an image elsewhere, or one that cannot be fetched, keeps its address.
   */
  const localise = async (html: string) => {
    const found = [...html.matchAll(/(<img\b[^>]*?\bsrc\s*=\s*)(["'])(.*?)\2/gi)];
    const replacements = new Map<string, string>();
    for (const m of found) {
      const raw = m[3];
      if (replacements.has(raw)) continue;
      let absolute: URL;
      try {
        absolute = new URL(raw.replace(/&amp;/g, '&'), opts.origin);
      } catch {
        continue;
      }
      if (absolute.origin !== opts.origin) continue;
      let token = localImages.get(absolute.href);
      if (token === undefined) {
        token = null;
        if (counts.image < ZENDESK_LIMITS.maxImages) {
          try {
            const res = await guardedGet(absolute.href, KB_IMAGE_MAX_BYTES, 'image/*');
            const type = res.status === 200 ? await sniffKbImage(res.bytes) : null;
            if (type) {
              token = crypto.createHash('sha256').update(`${opts.tokenSalt}:${absolute.href}`).digest('hex').slice(0, 32);
              counts.image += 1;
              const filename = decodeURIComponent(absolute.pathname.split('/').pop() || 'image').slice(0, 200) || 'image';
              await writeTo(imagesOut, recordLine({ t: 'image', id: counts.image, token, filename, contentType: type, data: res.bytes.toString('base64') }));
            }
          } catch (err) {
            if (err instanceof OutboundRefusedError) throw err;
            // An image that cannot be fetched keeps its address; the import goes on.
          }
        }
        localImages.set(absolute.href, token);
      }
      // A relative address that could not be copied becomes absolute, so that it still points to the help centre.
      replacements.set(raw, token ? kbImageUrl(token) : absolute.href);
    }
    if (replacements.size === 0) return html;
    return html.replace(/(<img\b[^>]*?\bsrc\s*=\s*)(["'])(.*?)\2/gi, (whole, before: string, quote: string, src: string) =>
      replacements.has(src) ? `${before}${quote}${replacements.get(src)}${quote}` : whole,
    );
  };
  try {
    await write({
      t: 'manifest',
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      kind: 'export',
      createdAt: new Date().toISOString(),
      source: { slug: opts.origin },
    });
    await write({ t: 'settings', name: 'Zendesk import', language: 'en' });
    const fileCategory = new Map<number, number>();
    const usedCategorySlugs = new Set<string>();
    for (const { s, cat } of ordered) {
      const own = (s.name ?? '').trim() || `Section ${s.id}`;
      const parent = s.parent_section_id ? byId.get(s.parent_section_id) : undefined;
      const prefix = parent ? (parent.name ?? '').trim() : cat?.name;
      const name = (nameCount.get(own.toLowerCase()) ?? 0) > 1 || parent ? `${prefix ? `${prefix} › ` : ''}${own}` : own;
      const short = name.slice(0, CATEGORY_NAME_MAX);
      let slug = slugify(short);
      for (let n = 2; usedCategorySlugs.has(slug); n++) slug = `${slugify(short).slice(0, 75)}-${n}`;
      usedCategorySlugs.add(slug);
      counts.category += 1;
      fileCategory.set(s.id, counts.category);
      await write({
        t: 'category',
        id: counts.category,
        name: short,
        description: (s.description ?? '').trim().slice(0, CATEGORY_DESCRIPTION_MAX),
        slug,
        position: counts.category,
      });
    }
    const usedSlugs = new Set<string>();
    await fetchAll<ZArticle>(opts.origin, api('articles'), 'articles', async (items) => {
      for (const z of items) {
        if (typeof z?.id !== 'number') continue;
        if (counts.article >= ZENDESK_LIMITS.maxArticles) throw new ZendeskImportError(ZENDESK_MESSAGES.tooMany());
        const title = ((z.title ?? z.name ?? '').trim() || `Article ${z.id}`).slice(0, ARTICLE_TITLE_MAX);
        let slug = slugify(title);
        for (let n = 2; usedSlugs.has(slug); n++) slug = `${slugify(title).slice(0, 75)}-${n}`;
        usedSlugs.add(slug);
        const html = await localise(z.body ?? '');
        if (html.length > 400_000) throw new ZendeskImportError(`The article "${title}" is larger than Parley takes (400,000 characters of HTML)`);
        counts.article += 1;
        const published = z.draft !== true;
        await write({
          t: 'article',
          id: counts.article,
          categoryId: z.section_id ? fileCategory.get(z.section_id) ?? null : null,
          title,
          slug,
          bodyHtml: html,
          status: published ? 'published' : 'draft',
          position: counts.article,
          ...(published ? { publishedTitle: title, publishedSlug: slug, publishedHtml: html } : {}),
        });
      }
      fetched.articles = counts.article;
      fetched.images = counts.image;
      await opts.progress?.({ ...fetched });
    });
    await new Promise<void>((resolve) => imagesOut.end(resolve));
    for await (const chunk of fs.createReadStream(imagesFile)) await writeTo(out, chunk as Buffer);
    await write({ t: 'end', counts });
  } finally {
    // Ended, not destroyed: a write still in flight when the import failed would otherwise meet a destroyed stream.
    await Promise.all(
      [imagesOut, out].map((stream) => (stream.writableEnded || stream.destroyed ? undefined : new Promise<void>((resolve) => stream.end(() => resolve())))),
    );
    await fs.promises.rm(imagesFile, { force: true });
  }
  if (streamError) throw streamError;
  return fetched;
}
