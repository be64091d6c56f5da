import { and, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { EmailHeaders } from '../../../db/schema/inbox';
import { cleanFilename, detectContentType, MAX_ATTACHMENT_BYTES, MAX_MESSAGE_ATTACHMENT_BYTES, saveAttachment } from './attachments.server';
import { removeStoredFiles } from '../storage/files.server';
import { postMessage } from './conversations.server';
import { checkAudio, checkInlineImages, composeInlineReply, newInlineContentId } from './inline-media.server';

export const MAX_REPLY_FILES = 10;
export const REPLY_FILE_TOO_LARGE = `Attachments must be at most ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB each`;
export const REPLY_FILES_TOO_LARGE = `Attachments must be at most ${MAX_MESSAGE_ATTACHMENT_BYTES / (1024 * 1024)} MB together`;
export const REPLY_TOO_MANY_FILES = `At most ${MAX_REPLY_FILES} attachments`;
export const REPLY_FILE_TYPE = 'Programs and scripts cannot be attached';

/** Refused whatever their declared type: what the bytes are, or what the name says they are. */
const EXECUTABLE_TYPES = new Set([
  'application/x-msdownload',
  'application/vnd.microsoft.portable-executable',
  'application/x-dosexec',
  'application/x-executable',
  'application/x-elf',
  'application/x-mach-binary',
  'application/x-sh',
  'application/x-msi',
  'application/java-archive',
]);
const EXECUTABLE_NAME = /\.(exe|dll|com|scr|bat|cmd|msi|ps1|vbs|vbe|js|jse|wsf|jar|sh|app|apk)$/i;

/** The reply form's file field: File parts that are not the empty part a browser sends for "no file". */
export type ReplyFile = { name: string; type: string; bytes: Uint8Array };

export class ReplyFileError extends Error {}

/** Checks a reply's files before anything is stored: count, size of each and together, and type. */
export async function checkReplyFiles(files: ReplyFile[]) {
  if (files.length > MAX_REPLY_FILES) throw new ReplyFileError(REPLY_TOO_MANY_FILES);
  if (files.some((f) => f.bytes.byteLength > MAX_ATTACHMENT_BYTES)) throw new ReplyFileError(REPLY_FILE_TOO_LARGE);
  if (files.reduce((n, f) => n + f.bytes.byteLength, 0) > MAX_MESSAGE_ATTACHMENT_BYTES) throw new ReplyFileError(REPLY_FILES_TOO_LARGE);
  for (const f of files) {
    const type = await detectContentType(f.bytes, f.type);
    if (EXECUTABLE_TYPES.has(type) || EXECUTABLE_NAME.test(cleanFilename(f.name))) throw new ReplyFileError(`${REPLY_FILE_TYPE}: ${cleanFilename(f.name)}`);
  }
}

/**
 * An agent's reply or note with attachments: the files are stored first (unlinked), then the message and the
 * link are written in one transaction, so the channel that sends the reply finds its files. If the message
 * cannot be written, the stored files are removed again.
 */
export async function postMessageWithFiles(opts: {
  accountId: number;
  actorId: number;
  conversationId: number;
  kind: 'outgoing' | 'note';
  text: string;
  email?: Pick<EmailHeaders, 'cc' | 'bcc'>;
  files: ReplyFile[];
  /** Images shown inside the message (ADR 156): where `[image]` placeholders say, else at the end. */
  inlineImages?: ReplyFile[];
  /** A recorded or uploaded audio clip, sent as an attachment and played in the thread. */
  audio?: ReplyFile[];
}) {
  // Every file is checked before the first is stored: a refused one leaves nothing behind.
  const images = await checkInlineImages(opts.inlineImages ?? []);
  const audio = await checkAudio(opts.audio ?? []);
  const all = [...opts.files, ...images, ...audio];
  await checkReplyFiles(all);
  const saved: { id: number; storageKey: string }[] = [];
  try {
    for (const f of opts.files) {
      const row = await saveAttachment({ accountId: opts.accountId, messageId: null, filename: f.name, contentType: f.type, bytes: f.bytes });
      saved.push({ id: row.id, storageKey: row.storageKey });
    }
    const placed: { id: number; filename: string; contentId: string }[] = [];
    for (const f of [...images, ...audio]) {
      const isImage = images.includes(f);
      const row = await saveAttachment({
        accountId: opts.accountId,
        messageId: null,
        filename: f.name,
        checkedType: f.contentType,
        bytes: f.bytes,
        contentId: isImage ? newInlineContentId() : null,
      });
      saved.push({ id: row.id, storageKey: row.storageKey });
      if (isImage) placed.push({ id: row.id, filename: row.filename, contentId: row.contentId! });
    }
    const body = placed.length ? composeInlineReply(opts.text, placed) : { text: opts.text, html: null };
    return await postMessage({
      accountId: opts.accountId,
      actorId: opts.actorId,
      conversationId: opts.conversationId,
      kind: opts.kind,
      text: body.text,
      html: body.html,
      email: opts.email,
      attachmentIds: saved.map((s) => s.id),
    });
  } catch (err) {
    if (saved.length) {
      await getDb()
        .delete(schema.attachments)
        .where(
          and(
            eq(schema.attachments.accountId, opts.accountId),
            inArray(
              schema.attachments.id,
              saved.map((s) => s.id),
            ),
            isNull(schema.attachments.messageId),
          ),
        );
      await removeStoredFiles(saved.map((s) => s.storageKey));
    }
    throw err;
  }
}
