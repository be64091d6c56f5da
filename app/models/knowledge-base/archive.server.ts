import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { unstable_parseMultipartFormData } from '@remix-run/node';
import { z } from 'zod';
import { getConfig } from '../../utils/env.server';
import { HEADER_LINKS_MAX, HELP_ARTICLE_ORDERS, KB_LANGUAGES, VERSIONS_KEPT_MAX, VERSIONS_KEPT_MIN, type HelpArticleOrder } from './constants';

const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/**
 * The knowledge-base archive (ADR 059, docs/knowledge-base-format.md): JSON lines, one record per line, each with
 * its type in `t`. A backup is gzipped and holds everything; an export is plain text and holds categories and
 * articles. Both are read here, one line at a time, with limits on the file, the unpacked bytes and each line, so
 * that neither a large knowledge base nor a hostile file makes memory grow.
 */
export const ARCHIVE_FORMAT = 'parley-kb';
export const ARCHIVE_VERSION = 1;
export type ArchiveKind = 'backup' | 'export';

/** Uploads of a backup (images included) and of an export file. */
export const BACKUP_MAX_BYTES = 512 * 1024 * 1024;
export const EXPORT_FILE_MAX_BYTES = 50 * 1024 * 1024;
/** A gzipped file unpacks to at most this many times its size (and never more than 4 GB): a "zip bomb" stops here. */
const MAX_EXPANSION = 40;
const MAX_UNPACKED = 4 * 1024 * 1024 * 1024;
/** The longest line: an image of the largest allowed size in base64, with room for its other fields. */
export const MAX_LINE_BYTES = 24 * 1024 * 1024;

/** A problem with the file that the user can act on; its message is shown as it is. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export const ARCHIVE_MESSAGES = {
  noFile: 'Choose a file to upload',
  empty: 'The file is empty',
  tooLarge: (max: number) => `The file is larger than ${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${Math.round(max / 1024)} KB`}`,
  notArchive: 'This file is not a Parley knowledge base file (its first line is not a Parley manifest)',
  damaged: 'The file is damaged or cut off: its compressed data ends too early or is corrupt',
  unpackedTooLarge: 'The file unpacks to more data than allowed',
  lineTooLong: (line: number) => `Line ${line} is too long`,
  notJson: (line: number) => `Line ${line} is not valid JSON`,
  newerVersion: (v: number) => `This file was made by a newer version of Parley (format version ${v}); this version reads format version ${ARCHIVE_VERSION}`,
  incomplete: 'The file is incomplete: it ends before its closing record (it may have been cut off during the download)',
  wrongKind: 'This is an export file, not a backup: import it under Import & Export',
} as const;

// ---------------------------------------------------------------------------------------------------------
// Records

/** Kept as text (microseconds included) and cast by PostgreSQL, so a round trip loses nothing. */
const date = z.iso.datetime({ offset: true });
const nullableDate = date.nullable().optional().default(null);
const id = z.number().int().positive();
const text = (max: number) => z.string().max(max);
const nullableText = (max: number) => z.string().max(max).nullable().optional().default(null);
const slug = z.string().trim().min(1).max(200);
const counts = z.record(z.string(), z.number().int().min(0));

export const ManifestRecord = z.object({
  t: z.literal('manifest'),
  format: z.literal(ARCHIVE_FORMAT),
  version: z.number().int().positive(),
  kind: z.enum(['backup', 'export']),
  createdAt: date,
  source: z.object({ knowledgeBaseId: z.number().int().optional(), slug: z.string().optional() }).optional(),
});

export const SettingsRecord = z.object({
  t: z.literal('settings'),
  name: z.string().trim().min(1).max(20),
  detail: text(150).default(''),
  helpName: nullableText(30),
  cname: nullableText(253),
  language: z.enum(KB_LANGUAGES.map((l) => l.code) as [string, ...string[]]).default('en'),
  docsVisible: z.boolean().default(true),
  seoTitle: nullableText(70),
  seoDescription: nullableText(160),
  gaKey: nullableText(20),
  anonymizedIp: z.boolean().default(true),
  customCss: text(50_000).default(''),
  customJs: text(50_000).default(''),
  // Customization, Advanced and Version Control (ADR 058); absent from backups made before them.
  logoToken: nullableText(100),
  brandColor: z.string().regex(HEX_COLOUR).nullable().optional().default(null),
  headerTextColor: z.string().regex(HEX_COLOUR).nullable().optional().default(null),
  headerLinks: z
    .array(z.object({ label: z.string().trim().min(1).max(40), url: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i) }))
    .max(HEADER_LINKS_MAX)
    .optional()
    .default([]),
  articleFeedback: z.boolean().optional().default(true),
  showLastUpdated: z.boolean().optional().default(true),
  showViewCount: z.boolean().optional().default(false),
  relatedArticles: z.boolean().optional().default(true),
  articleOrder: z.enum(HELP_ARTICLE_ORDERS.map((o) => o.value) as [HelpArticleOrder, ...HelpArticleOrder[]]).optional().default('manual'),
  versionsKept: z.number().int().min(VERSIONS_KEPT_MIN).max(VERSIONS_KEPT_MAX).nullable().optional().default(null),
});

export const CategoryRecord = z.object({
  t: z.literal('category'),
  id,
  name: z.string().trim().min(1).max(60),
  description: text(160).default(''),
  slug,
  position: z.number().int().default(0),
  createdAt: date.optional(),
  updatedAt: date.optional(),
});

export const ARTICLE_STATUSES = ['draft', 'published'] as const;

export const ArticleRecord = z.object({
  t: z.literal('article'),
  id,
  categoryId: id.nullable().optional().default(null),
  title: z.string().trim().min(1).max(150),
  slug,
  bodyHtml: text(400_000).default(''),
  seoTitle: nullableText(70),
  seoDescription: nullableText(160),
  status: z.enum(ARTICLE_STATUSES).default('draft'),
  trashedAt: nullableDate,
  position: z.number().int().default(0),
  publishedVersionId: id.nullable().optional().default(null),
  publishedTitle: nullableText(150),
  publishedSlug: nullableText(200),
  publishedHtml: nullableText(400_000),
  publishedAt: nullableDate,
  helpfulCount: z.number().int().min(0).default(0),
  unhelpfulCount: z.number().int().min(0).default(0),
  viewCount: z.number().int().min(0).default(0),
  author: nullableText(254),
  createdAt: date.optional(),
  updatedAt: date.optional(),
});

export const VersionRecord = z.object({
  t: z.literal('version'),
  id,
  articleId: id,
  number: z.number().int().positive(),
  title: z.string().max(150),
  slug,
  categoryId: id.nullable().optional().default(null),
  bodyHtml: text(400_000).default(''),
  seoTitle: nullableText(70),
  seoDescription: nullableText(160),
  author: nullableText(254),
  createdAt: date.optional(),
});

export const FeedbackRecord = z.object({
  t: z.literal('feedback'),
  articleId: id,
  visitorKey: z.string().min(1).max(100),
  helpful: z.boolean(),
  createdAt: date.optional(),
});

export const RedirectRecord = z.object({
  t: z.literal('redirect'),
  source: z
    .string()
    .regex(/^(\/[a-z0-9]+(-[a-z0-9]+)*)+$/)
    .max(300),
  destination: z
    .string()
    .regex(/^(\/[a-z0-9]+(-[a-z0-9]+)*)+$/)
    .max(300),
  createdAt: date.optional(),
});

export const ImageRecord = z.object({
  t: z.literal('image'),
  id,
  /** The image's address is /kb-images/{token}: kept, so the articles' HTML stays as it is. */
  token: z.string().regex(/^[0-9a-f]{32}$/),
  filename: z.string().min(1).max(200),
  contentType: z.string().min(1).max(100),
  /** The file's bytes, base64. */
  data: z.string().max(MAX_LINE_BYTES),
  createdAt: date.optional(),
});

export const EndRecord = z.object({ t: z.literal('end'), counts });

export type ManifestRecordT = z.infer<typeof ManifestRecord>;

/** The order records come in: a backup is read once, front to back, so each kind needs the ids of the kinds before it. */
export const RECORD_ORDER = ['manifest', 'settings', 'category', 'article', 'version', 'feedback', 'redirect', 'image', 'end'] as const;
export type RecordType = (typeof RECORD_ORDER)[number];
const SCHEMAS: Record<RecordType, z.ZodType> = {
  manifest: ManifestRecord,
  settings: SettingsRecord,
  category: CategoryRecord,
  article: ArticleRecord,
  version: VersionRecord,
  feedback: FeedbackRecord,
  redirect: RedirectRecord,
  image: ImageRecord,
  end: EndRecord,
};

/** The first problem zod found, in words: "article: title: Too big...". */
function issueText(type: string, err: z.ZodError) {
  const issue = err.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return `${type} ${where}${issue?.message ?? 'is not valid'}`;
}

export function parseRecord(line: number, value: unknown): { type: RecordType; record: Record<string, unknown> } {
  const type = (value as { t?: unknown } | null)?.t;
  if (typeof type !== 'string' || !(RECORD_ORDER as readonly string[]).includes(type))
    throw new ArchiveError(`Line ${line} is not a record this version of Parley knows`);
  const parsed = SCHEMAS[type as RecordType].safeParse(value);
  if (!parsed.success) throw new ArchiveError(`Line ${line} is not valid: ${issueText(type, parsed.error)}`);
  return { type: type as RecordType, record: parsed.data as Record<string, unknown> };
}

/** The manifest of the first line, checked: the format, a version this Parley reads, the kind. */
export function checkManifest(value: unknown): ManifestRecordT {
  const v = value as { t?: unknown; format?: unknown; version?: unknown } | null;
  if (!v || v.t !== 'manifest' || v.format !== ARCHIVE_FORMAT) throw new ArchiveError(ARCHIVE_MESSAGES.notArchive);
  if (typeof v.version === 'number' && v.version > ARCHIVE_VERSION) throw new ArchiveError(ARCHIVE_MESSAGES.newerVersion(v.version));
  return parseRecord(1, value).record as ManifestRecordT;
}

// ---------------------------------------------------------------------------------------------------------
// Writing

/** PostgreSQL's text form of a timestamptz ("2026-11-25 18:47:51.37077+00") as ISO 8601, microseconds kept. */
export function isoTimestamp(value: unknown) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value)
    .replace(' ', 'T')
    .replace(/([+-]\d\d)$/, '$1:00')
    .replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
}

export function recordLine(record: Record<string, unknown>) {
  return `${JSON.stringify(record, (key, value: unknown) => (/At$/.test(key) ? isoTimestamp(value) : value))}\n`;
}

// ---------------------------------------------------------------------------------------------------------
// Reading

/**
 * The lines of a stored file, parsed as JSON, one at a time: gunzipped when the file starts with gzip's magic
 * bytes, never holding more than one line. Damaged compression, a line over the limit, too many unpacked bytes or
 * a line that is not JSON end the reading with an ArchiveError.
 */
export async function* readArchiveLines(file: string): AsyncGenerator<{ line: number; value: unknown }> {
  const stat = await fs.promises.stat(file);
  const handle = await fs.promises.open(file, 'r');
  const head = Buffer.alloc(2);
  await handle.read(head, 0, 2, 0);
  await handle.close();
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  const maxUnpacked = gzipped ? Math.min(MAX_UNPACKED, Math.max(stat.size * MAX_EXPANSION, 64 * 1024 * 1024)) : stat.size;
  const source = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  const stream = gzipped ? source.pipe(zlib.createGunzip()) : source;
  if (gzipped) source.on('error', (err) => stream.destroy(err));
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  let unpacked = 0;
  const emit = (buf: Buffer) => {
    line += 1;
    const raw = buf.toString('utf8').trim();
    if (!raw) return null;
    try {
      return { line, value: JSON.parse(raw) as unknown };
    } catch {
      throw new ArchiveError(ARCHIVE_MESSAGES.notJson(line));
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      unpacked += chunk.length;
      if (unpacked > maxUnpacked) throw new ArchiveError(ARCHIVE_MESSAGES.unpackedTooLarge);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const whole = pending.length ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        if (whole.length > MAX_LINE_BYTES) throw new ArchiveError(ARCHIVE_MESSAGES.lineTooLong(line + 1));
        const out = emit(whole);
        if (out) yield out;
        start = nl + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        pendingBytes += rest.length;
        if (pendingBytes > MAX_LINE_BYTES) throw new ArchiveError(ARCHIVE_MESSAGES.lineTooLong(line + 1));
        pending.push(Buffer.from(rest));
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    const code = (err as NodeJS.ErrnoException)?.code;
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'Z_NEED_DICT')
      throw new ArchiveError(ARCHIVE_MESSAGES.damaged);
    throw err;
  } finally {
    stream.destroy();
    source.destroy();
  }
  if (pendingBytes > 0) {
    const out = emit(Buffer.concat(pending));
    if (out) yield out;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Uploads

export function uploadsDir() {
  return path.join(getConfig().dataDir, 'tmp', 'kb-uploads');
}

export type ArchiveUpload = { fields: FormData; file: { path: string; size: number; filename: string } | null; error: string | null };

/**
 * Reads a multipart post whose `fileField` part is streamed to a temporary file (never held in memory) while it
 * stays within `maxBytes`; the other parts are short text fields. The caller removes the file (discardUpload).
 */
export async function receiveArchiveUpload(request: Request, opts: { fileField: string; maxBytes: number }): Promise<ArchiveUpload> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!contentType.startsWith('multipart/form-data')) {
    return { fields: contentType.includes('urlencoded') ? await request.formData() : new FormData(), file: null, error: ARCHIVE_MESSAGES.noFile };
  }
  const length = Number(request.headers.get('content-length'));
  if (Number.isFinite(length) && length > opts.maxBytes + 256 * 1024) {
    // Refused before reading: the body is not kept, so the request still ends with a clear answer.
    return { fields: new FormData(), file: null, error: ARCHIVE_MESSAGES.tooLarge(opts.maxBytes) };
  }
  await fs.promises.mkdir(uploadsDir(), { recursive: true });
  let file: ArchiveUpload['file'] = null;
  let error: string | null = null;
  let fields: FormData;
  try {
    fields = await unstable_parseMultipartFormData(request, async (part) => {
      if (typeof part.filename === 'string') {
        if (part.name !== opts.fileField || file) {
          for await (const _ of part.data) void _;
          return undefined;
        }
        const target = path.join(uploadsDir(), `${crypto.randomUUID()}.upload`);
        let size = 0;
        let over = false;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            size += chunk.length;
            if (size > opts.maxBytes) over = true;
            done(null, over ? undefined : chunk);
          },
        });
        await pipeline(part.data as AsyncIterable<Uint8Array>, counter, fs.createWriteStream(target));
        if (over) {
          await fs.promises.rm(target, { force: true });
          error = ARCHIVE_MESSAGES.tooLarge(opts.maxBytes);
          return undefined;
        }
        if (size === 0) {
          await fs.promises.rm(target, { force: true });
          if (part.filename) error = ARCHIVE_MESSAGES.empty;
          return undefined;
        }
        file = { path: target, size, filename: path.basename(part.filename.replace(/\\/g, '/')).slice(0, 200) };
        return undefined;
      }
      let textValue = '';
      for await (const chunk of part.data) {
        if (textValue.length < 4096) textValue += Buffer.from(chunk).toString('utf8');
      }
      return textValue.slice(0, 4096);
    });
  } catch {
    const got = file as ArchiveUpload['file'];
    if (got) await fs.promises.rm(got.path, { force: true });
    return { fields: new FormData(), file: null, error: 'The upload could not be read' };
  }
  const got = file as ArchiveUpload['file'];
  return { fields, file: got, error: error ?? (got ? null : ARCHIVE_MESSAGES.noFile) };
}

export async function discardUpload(upload: ArchiveUpload | { file: { path: string } | null }) {
  if (upload.file) await fs.promises.rm(upload.file.path, { force: true });
}
