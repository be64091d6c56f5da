import crypto from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { unstable_parseMultipartFormData } from '@remix-run/node';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { drain } from '../productivity/uploads.server';
import { cleanFilename } from '../inbox/attachments.server';
import { readStoredFile, removeStoredFiles, writeStoredFile } from '../storage/files.server';
import { KB_IMAGE_MAX_BYTES, KB_IMAGE_MESSAGES, KB_IMAGE_TYPES, kbImageUrl } from './constants';

export type KbImage = typeof schema.kbImages.$inferSelect;
const img = schema.kbImages;

/** A file that is not an acceptable image: the message says why, for the field it came from. */
export class KbImageError extends Error {}

/** What the bytes are, when they are one of the accepted image types; never what the name or the browser claims. */
export async function sniffKbImage(bytes: Uint8Array) {
  const sniffed = await fileTypeFromBuffer(bytes).catch(() => undefined);
  return sniffed && (KB_IMAGE_TYPES as readonly string[]).includes(sniffed.mime) ? sniffed.mime : null;
}

/** Refuses an empty, too large or non-image file with a message naming it; nothing is stored. */
export async function checkKbImage(opts: { filename: string; bytes: Uint8Array }) {
  const name = cleanFilename(opts.filename, 'The image');
  if (opts.bytes.byteLength === 0) throw new KbImageError(KB_IMAGE_MESSAGES.empty(name));
  if (opts.bytes.byteLength > KB_IMAGE_MAX_BYTES) throw new KbImageError(KB_IMAGE_MESSAGES.tooLarge(name));
  const type = await sniffKbImage(opts.bytes);
  if (!type) throw new KbImageError(KB_IMAGE_MESSAGES.badType(name));
  return { name, type };
}

/**
 * Stores an image of a knowledge base (the file storage, ADRs 058 and 141) and records it with a new random token,
 * its address. The knowledge base must be the account's (checked in the insert's own query).
 */
export async function saveKbImage(
  opts: { accountId: number; knowledgeBaseId: number; filename: string; bytes: Uint8Array; userId?: number | null },
  db: DbOrTx = getDb(),
) {
  const { name, type } = await checkKbImage(opts);
  const [kb] = await db
    .select({ id: schema.knowledgeBases.id })
    .from(schema.knowledgeBases)
    .where(and(eq(schema.knowledgeBases.accountId, opts.accountId), eq(schema.knowledgeBases.id, opts.knowledgeBaseId)));
  if (!kb) throw new Response('Not Found', { status: 404 });
  const { storageKey } = await writeStoredFile(opts.accountId, opts.bytes);
  try {
    const [row] = await db
      .insert(img)
      .values({
        accountId: opts.accountId,
        knowledgeBaseId: opts.knowledgeBaseId,
        token: crypto.randomBytes(16).toString('hex'),
        storageKey,
        filename: name,
        contentType: type,
        size: opts.bytes.byteLength,
        createdBy: opts.userId ?? null,
      })
      .returning();
    return { ...row, url: kbImageUrl(row.token) };
  } catch (err) {
    await removeStoredFiles([storageKey]);
    throw err;
  }
}

/**
 * One image by its token, with its bytes: only the account's (and, when given, only that knowledge base's, as on
 * a help host). Undefined when it is not there or its file is gone.
 */
export async function readKbImage(opts: { accountId: number; token: string; knowledgeBaseId?: number }) {
  if (!/^[0-9a-f]{32}$/.test(opts.token)) return undefined;
  const [row] = await getDb()
    .select()
    .from(img)
    .where(
      and(
        eq(img.accountId, opts.accountId),
        eq(img.token, opts.token),
        opts.knowledgeBaseId === undefined ? undefined : eq(img.knowledgeBaseId, opts.knowledgeBaseId),
      ),
    )
    .orderBy(img.id)
    .limit(1);
  if (!row) return undefined;
  const bytes = await readStoredFile(row.storageKey);
  return bytes ? { image: row, bytes } : undefined;
}

/** The images of a knowledge base, newest first. */
export async function listKbImages(opts: { accountId: number; knowledgeBaseId: number; limit?: number }, db: DbOrTx = getDb()) {
  const rows = await db
    .select()
    .from(img)
    .where(and(eq(img.accountId, opts.accountId), eq(img.knowledgeBaseId, opts.knowledgeBaseId)))
    .orderBy(desc(img.id))
    .limit(opts.limit ?? 1000);
  return rows.map((r) => ({ ...r, url: kbImageUrl(r.token) }));
}

/**
 * An image as a response. The token is never reused for other bytes, so browsers and proxies may keep it for a
 * year; it is shown inline but can never run as a page (a sandboxing CSP, and nosniff from helmet).
 */
export function kbImageResponse(found: { image: KbImage; bytes: Uint8Array }) {
  const ascii = found.image.filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      'Content-Type': found.image.contentType,
      'Content-Length': String(found.bytes.byteLength),
      'Content-Disposition': `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(found.image.filename)}`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'public, max-age=31536000, immutable',
    },
  });
}

// A form that carries one image also carries text fields (an article's draft): generous for those, bounded overall.
const MAX_TEXT_PART = 1024 * 1024;
const MAX_TEXT_PARTS = 60;
const MAX_IMAGE_FORM = KB_IMAGE_MAX_BYTES + 4 * 1024 * 1024;

/**
 * Reads a form posted as multipart with (at most) one image in `fileField`, streamed part by part: the image is kept
 * only while it stays within 5 MB (one byte more is kept so that saveKbImage can say it is too large), other file
 * parts are read and dropped, and the text fields come back as a FormData so a draft can be shown again whatever
 * happens to the image. A plain (urlencoded) form is read as usual and has no file.
 */
export async function readImageForm(request: Request, opts: { fileField: string }) {
  const contentType = request.headers.get('content-type') ?? '';
  if (!contentType.startsWith('multipart/form-data')) return { fields: await request.formData(), file: null };
  const length = Number(request.headers.get('content-length'));
  if (Number.isFinite(length) && length > MAX_IMAGE_FORM) throw new Response('The upload is too large (at most 5 MB for an image)', { status: 413 });
  let file: { filename: string; bytes: Buffer } | null = null;
  let total = 0;
  let textParts = 0;
  try {
    const fields = await unstable_parseMultipartFormData(request, async (part) => {
      if (typeof part.filename === 'string') {
        const { bytes, size } = await drain(part.data, KB_IMAGE_MAX_BYTES + 1);
        total += size;
        if (total > MAX_IMAGE_FORM) throw new Response('The upload is too large (at most 5 MB for an image)', { status: 413 });
        // An empty file input still sends a part, without a name.
        if (part.name === opts.fileField && !file && (part.filename || size > 0)) file = { filename: part.filename.slice(0, 200) || 'image', bytes };
        return undefined;
      }
      textParts += 1;
      const { bytes, size } = await drain(part.data, MAX_TEXT_PART);
      total += size;
      if (total > MAX_IMAGE_FORM) throw new Response('The upload is too large (at most 5 MB for an image)', { status: 413 });
      if (textParts > MAX_TEXT_PARTS) return undefined;
      return bytes.toString('utf8');
    });
    return { fields, file: file as { filename: string; bytes: Buffer } | null };
  } catch (err) {
    if (err instanceof Response) throw err;
    throw new Response('The form could not be read', { status: 400 });
  }
}

/** The HTML an uploaded image adds to an article's body: a paragraph with the image, its name as the alternative text. */
export function imageHtml(image: { url: string; filename: string }) {
  const alt = image.filename
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[-_]+/g, ' ')
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]!));
  return `<p><img src="${image.url}" alt="${alt}"></p>`;
}
