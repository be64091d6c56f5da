import { fileTypeFromBuffer } from 'file-type';
import { unstable_parseMultipartFormData } from '@remix-run/node';
import { ATTACHMENT_MAX_BYTES, ATTACHMENT_MAX_FILES } from './schemas';

export const ATTACHMENT_MESSAGES = {
  tooLarge: (name: string) => `${name} is larger than 10 MB`,
  tooMany: `You can attach at most ${ATTACHMENT_MAX_FILES} files`,
  badType: (name: string) => `${name} is not an image, a PDF or a text file`,
  empty: (name: string) => `${name} is empty`,
} as const;

const SNIFFED_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);
const TEXT_EXTENSIONS: Record<string, string> = { txt: 'text/plain', log: 'text/plain', csv: 'text/csv' };
// Fields of the public form are short; anything longer is cut here and refused by the form's own length rules.
const MAX_TEXT_PART = 64 * 1024;
const MAX_TEXT_PARTS = 40;
// Whole body: the files plus generous room for the text fields and multipart framing.
const MAX_BODY = ATTACHMENT_MAX_FILES * ATTACHMENT_MAX_BYTES + 1024 * 1024;
const MAX_PLAIN_BODY = 256 * 1024;

export type UploadedFile = { filename: string; contentType: string; bytes: Buffer };

/**
 * What the file really is, by its bytes: one of the allowed types, or null. Text has no magic number, so a
 * `.txt`/`.csv`/`.log` name is accepted only when the bytes are valid UTF-8 without control characters.
 */
export async function sniffAttachment(bytes: Buffer, filename: string): Promise<string | null> {
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed) return SNIFFED_TYPES.has(sniffed.mime) ? sniffed.mime : null;
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  const textType = TEXT_EXTENSIONS[ext];
  if (!textType) return null;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // eslint-disable-next-line no-control-regex
    return /[\u0000-\u0008\u000B\u000E-\u001F\u007F]/.test(text) ? null : textType;
  } catch {
    return null;
  }
}

/** Reads a part to its end, keeping at most `limit` bytes of it. */
export async function drain(data: AsyncIterable<Uint8Array>, limit: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of data) {
    size += chunk.byteLength;
    if (kept < limit) {
      const piece = Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.byteLength, limit - kept));
      chunks.push(Buffer.from(piece));
      kept += piece.length;
    }
  }
  return { bytes: Buffer.concat(chunks), size, over: size > limit };
}

/**
 * Reads the public form's post. Multipart bodies are streamed part by part: each file is kept only while it
 * stays within the limit, extra files are read and dropped, and the text fields come back as a plain FormData so
 * that what the visitor typed can be shown again. File problems are returned, not thrown, for the same reason.
 */
export async function readContactFormPost(request: Request, opts: { acceptFiles: boolean }) {
  const contentType = request.headers.get('content-type') ?? '';
  const length = Number(request.headers.get('content-length'));
  if (!contentType.startsWith('multipart/form-data')) {
    // A plain form is a few kilobytes of text; a larger body is not a visitor's message.
    if (Number.isFinite(length) && length > MAX_PLAIN_BODY) throw new Response('The form is too large', { status: 413 });
    return { fields: await request.formData(), files: [] as UploadedFile[], fileErrors: [] as string[] };
  }
  if (Number.isFinite(length) && length > MAX_BODY) {
    throw new Response('The upload is too large', { status: 413 });
  }
  const files: UploadedFile[] = [];
  const fileErrors: string[] = [];
  let fileCount = 0;
  let textParts = 0;
  let total = 0;
  let fields: FormData;
  try {
    fields = await unstable_parseMultipartFormData(request, async (part) => {
      if (typeof part.filename === 'string') {
        const name = part.filename.slice(0, 200);
        const { bytes, size, over } = await drain(part.data, ATTACHMENT_MAX_BYTES);
        total += size;
        if (total > MAX_BODY) throw new Response('The upload is too large', { status: 413 });
        // An empty file input still sends a part, without a name.
        if (!name && size === 0) return undefined;
        if (!opts.acceptFiles || part.name !== 'attachments') return undefined;
        fileCount += 1;
        if (fileCount > ATTACHMENT_MAX_FILES) {
          if (!fileErrors.includes(ATTACHMENT_MESSAGES.tooMany)) fileErrors.push(ATTACHMENT_MESSAGES.tooMany);
          return undefined;
        }
        if (over) fileErrors.push(ATTACHMENT_MESSAGES.tooLarge(name || 'A file'));
        else if (bytes.length === 0) fileErrors.push(ATTACHMENT_MESSAGES.empty(name || 'A file'));
        else {
          const type = await sniffAttachment(bytes, name);
          if (!type) fileErrors.push(ATTACHMENT_MESSAGES.badType(name || 'A file'));
          else files.push({ filename: name || 'attachment', contentType: type, bytes });
        }
        return undefined;
      }
      textParts += 1;
      const { bytes, size } = await drain(part.data, MAX_TEXT_PART);
      total += size;
      if (total > MAX_BODY) throw new Response('The upload is too large', { status: 413 });
      if (textParts > MAX_TEXT_PARTS) return undefined;
      // A longer value arrives cut, and still fails the field's own length rule.
      return bytes.toString('utf8');
    });
  } catch (err) {
    if (err instanceof Response) throw err;
    throw new Response('The form could not be read', { status: 400 });
  }
  return { fields, files, fileErrors };
}
