import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { readStoredFile, removeStoredFiles, writeStoredFile } from '../storage/files.server';

export type Attachment = typeof schema.attachments.$inferSelect;

/** One file: larger ones are refused (inbound mail skips them, a reply form says so). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** All the files of one message together. */
export const MAX_MESSAGE_ATTACHMENT_BYTES = 25 * 1024 * 1024;

export class AttachmentTooLargeError extends Error {
  constructor(public filename: string) {
    super(`${filename} is larger than ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB`);
  }
}

/** A file name safe to show and to send back in Content-Disposition: no paths, no control characters. */
export function cleanFilename(name: string | null | undefined, fallback = 'attachment') {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f"]/g, '')
    .trim()
    .slice(0, 200);
  return cleaned || fallback;
}

const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

/**
 * The content type recorded: what the bytes are (sniffed), else the declared type when it is well formed,
 * else application/octet-stream. A sender cannot label an executable as a picture.
 */
export async function detectContentType(bytes: Uint8Array, declared: string | null | undefined) {
  const sniffed = await fileTypeFromBuffer(bytes).catch(() => undefined);
  if (sniffed) return sniffed.mime;
  const clean = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MIME_PATTERN.test(clean) ? clean : 'application/octet-stream';
}

/**
 * Stores one file in the file storage (ADR 141) under a new key of the account and records it. `messageId` may be
 * null for a file uploaded before its message exists (a reply being written): link it with linkAttachments in the
 * message's transaction. Pass `db` to record it inside a transaction of your own.
 */
export async function saveAttachment(
  opts: {
    accountId: number;
    messageId: number | null;
    filename: string;
    contentType?: string | null;
    bytes: Uint8Array;
    contentId?: string | null;
    /** The type already established from the bytes by a stricter check (inline images, audio clips: ADR 156). */
    checkedType?: string;
    /** A file that belongs to something other than a message (an email template's, ADR 149): `email-template:12`. */
    owner?: `email-template:${number}`;
  },
  db: DbOrTx = getDb(),
) {
  // The `parley:` Content-ID names an owner (ownerContentId); a sender's own Content-ID can never take that form.
  const contentId = opts.owner ? ownerContentId(opts.owner) : opts.contentId ? opts.contentId.replace(/^<|>$/g, '').slice(0, 250) : null;
  if (opts.bytes.byteLength > MAX_ATTACHMENT_BYTES) throw new AttachmentTooLargeError(cleanFilename(opts.filename));
  const { storageKey } = await writeStoredFile(opts.accountId, opts.bytes);
  try {
    const [row] = await db
      .insert(schema.attachments)
      .values({
        accountId: opts.accountId,
        messageId: opts.messageId,
        filename: cleanFilename(opts.filename),
        contentType: opts.checkedType ?? (await detectContentType(opts.bytes, opts.contentType)),
        size: opts.bytes.byteLength,
        storageKey,
        contentId: contentId && !opts.owner && /^parley:/i.test(contentId) ? `x-${contentId}` : contentId,
      })
      .returning();
    return row;
  } catch (err) {
    await removeStoredFiles([storageKey]);
    throw err;
  }
}

/**
 * Files owned by something other than a message (no column of their own, no migration, ADR 149): the row has no
 * message and its Content-ID is `parley:` and the owner, a form no inbound mail can give (saveAttachment rewrites it).
 */
export const ownerContentId = (owner: string) => `parley:${owner}`;

/** Gives files saved before their message (messageId null) to that message; others' files are left alone. */
export async function linkAttachments(tx: Tx, opts: { accountId: number; messageId: number; ids: number[] }) {
  if (opts.ids.length === 0) return [];
  return tx
    .update(schema.attachments)
    .set({ messageId: opts.messageId })
    .where(
      and(
        eq(schema.attachments.accountId, opts.accountId),
        inArray(schema.attachments.id, opts.ids),
        isNull(schema.attachments.messageId),
        // A template's file is copied into a reply, never moved.
        sql`coalesce(${schema.attachments.contentId}, '') not like 'parley:%'`,
      ),
    )
    .returning();
}

/** One attachment of the account with its bytes; undefined when it is not the account's or the file is gone. */
export async function readAttachment(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.attachments)
    .where(and(eq(schema.attachments.accountId, opts.accountId), eq(schema.attachments.id, opts.id)));
  if (!row) return undefined;
  const bytes = await readStoredFile(row.storageKey);
  return bytes ? { attachment: row, bytes } : undefined;
}

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 one. */
function contentDisposition(filename: string) {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * A stored attachment as a response: always a download (never rendered as a page of this origin), typed by what
 * its bytes are; `X-Content-Type-Options: nosniff` comes with every response (helmet, server/app.ts).
 */
export function attachmentResponse(found: { attachment: Attachment; bytes: Uint8Array }) {
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      'Content-Type': found.attachment.contentType,
      'Content-Length': String(found.bytes.byteLength),
      'Content-Disposition': contentDisposition(found.attachment.filename),
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, max-age=3600',
    },
  });
}

/** The attachments of one message (an outgoing reply carries them). */
export async function listAttachmentsOfMessage(opts: { accountId: number; messageId: number }, db: DbOrTx = getDb()) {
  return db
    .select()
    .from(schema.attachments)
    .where(and(eq(schema.attachments.accountId, opts.accountId), eq(schema.attachments.messageId, opts.messageId)))
    .orderBy(asc(schema.attachments.id));
}
