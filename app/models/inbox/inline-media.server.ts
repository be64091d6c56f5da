import crypto from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { sanitizeEmailHtml } from '../email/sanitize.server';
import { cleanFilename, MAX_ATTACHMENT_BYTES } from './attachments.server';
import type { ReplyFile } from './replies.server';

/**
 * Inline images and audio clips in an agent's reply (issue 39, ADR 156). An inline image is an attachment with a
 * Content-ID of our own making, referenced by the message's HTML (stored as /attachments/<id>, sent as cid:);
 * an audio clip is an attachment whose type the thread and the widget play.
 */

export const MAX_INLINE_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_AUDIO_BYTES = MAX_ATTACHMENT_BYTES;
export const MAX_INLINE_IMAGES = 5;

export const INLINE_IMAGE_TYPE = 'Inline images must be PNG, JPEG, GIF or WebP files';
export const INLINE_IMAGE_TOO_LARGE = `Inline images must be at most ${MAX_INLINE_IMAGE_BYTES / (1024 * 1024)} MB each`;
export const INLINE_IMAGE_TOO_MANY = `At most ${MAX_INLINE_IMAGES} inline images`;
export const AUDIO_TYPE = 'Audio clips must be WebM, Ogg, MP3, M4A or WAV files';
export const AUDIO_TOO_LARGE = `Audio clips must be at most ${MAX_AUDIO_BYTES / (1024 * 1024)} MB`;
export const AUDIO_ONE = 'One audio clip per reply';

/** What the bytes are (magic numbers, never the browser's label), mapped to the type recorded. */
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };
const AUDIO_TYPES: Record<string, string> = {
  webm: 'audio/webm',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  ogx: 'audio/ogg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
};

/** A refused image or clip, with the form field it belongs to. */
export class MediaFileError extends Error {
  constructor(
    public field: 'inlineImages' | 'audio',
    message: string,
  ) {
    super(message);
  }
}

export type CheckedMedia = ReplyFile & { contentType: string };

async function sniff(bytes: Uint8Array) {
  return (await fileTypeFromBuffer(bytes).catch(() => undefined))?.ext;
}

/** The inline images of a reply, checked (count, size, PNG/JPEG/GIF/WebP by their bytes) before anything is stored. */
export async function checkInlineImages(files: ReplyFile[]): Promise<CheckedMedia[]> {
  if (files.length > MAX_INLINE_IMAGES) throw new MediaFileError('inlineImages', INLINE_IMAGE_TOO_MANY);
  const out: CheckedMedia[] = [];
  for (const f of files) {
    if (f.bytes.byteLength > MAX_INLINE_IMAGE_BYTES) throw new MediaFileError('inlineImages', `${INLINE_IMAGE_TOO_LARGE}: ${cleanFilename(f.name)}`);
    const type = IMAGE_TYPES[(await sniff(f.bytes)) ?? ''];
    if (!type) throw new MediaFileError('inlineImages', `${INLINE_IMAGE_TYPE}: ${cleanFilename(f.name)}`);
    out.push({ ...f, contentType: type });
  }
  return out;
}

/** The audio clip of a reply (recorded or uploaded), checked by its bytes: WebM, Ogg, MP3, M4A or WAV. */
export async function checkAudio(files: ReplyFile[]): Promise<CheckedMedia[]> {
  if (files.length > 1) throw new MediaFileError('audio', AUDIO_ONE);
  const out: CheckedMedia[] = [];
  for (const f of files) {
    if (f.bytes.byteLength > MAX_AUDIO_BYTES) throw new MediaFileError('audio', AUDIO_TOO_LARGE);
    const type = AUDIO_TYPES[(await sniff(f.bytes)) ?? ''];
    if (!type) throw new MediaFileError('audio', `${AUDIO_TYPE}: ${cleanFilename(f.name)}`);
    out.push({ ...f, contentType: type });
  }
  return out;
}

/** A Content-ID for an image of ours: random, so nothing about the account or the file can be read from it. */
export function newInlineContentId() {
  return `img-${crypto.randomBytes(12).toString('hex')}@parley.inline`;
}

/**
 * `[image]` places the next inline image, `[image: name]` the image of that name; images no placeholder names go
 * at the end of the message, in the order they were chosen.
 */
const PLACEHOLDER = /\[image(?::\s*([^\]\n]{1,200}?))?\s*\]/gi;

function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
const textHtml = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>');

/**
 * The reply's text and HTML with its inline images in place. The text (the email's plain-text alternative and
 * what chat channels show) says `[image: name]` where each image is; the HTML has `<img src="cid:…">`, put through
 * the email sanitiser, which points each cid at its stored attachment (/attachments/<id>), as for inbound mail.
 */
export function composeInlineReply(text: string, images: { id: number; filename: string; contentId: string }[]) {
  const left = [...images];
  const take = (name: string | undefined) => {
    const i = name ? left.findIndex((img) => img.filename.toLowerCase() === name.trim().toLowerCase()) : 0;
    return i >= 0 && left.length ? left.splice(i, 1)[0] : undefined;
  };
  const plain: string[] = [];
  const html: string[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const img = take(match[1]);
    if (!img) continue;
    const before = text.slice(last, match.index);
    plain.push(before, `[image: ${img.filename}]`);
    html.push(textHtml(before), imgTag(img));
    last = match.index! + match[0].length;
  }
  const rest = text.slice(last);
  plain.push(rest);
  html.push(textHtml(rest));
  for (const img of left) {
    plain.push(`${plain.join('').trim() ? '\n\n' : ''}[image: ${img.filename}]`);
    html.push(`${html.join('').trim() ? '<br><br>' : ''}`, imgTag(img));
  }
  const cidUrls = new Map(images.map((img) => [img.contentId.toLowerCase(), `/attachments/${img.id}`]));
  return { text: plain.join(''), html: sanitizeEmailHtml(`<div>${html.join('')}</div>`, { cidUrls }) };
}

function imgTag(img: { filename: string; contentId: string }) {
  return `<img src="cid:${escapeHtml(img.contentId)}" alt="${escapeHtml(img.filename)}" style="max-width: 100%">`;
}

/**
 * An outgoing message's stored HTML for the mail: each /attachments/<id> of an inline image of the message becomes
 * its cid:, and those files go as related parts (nodemailer builds multipart/related when an attachment has a cid).
 */
export function htmlForMail(html: string, files: { id: number; contentId: string | null }[]) {
  const inline = new Set<number>();
  const out = html.replace(/src="\/attachments\/(\d+)"/g, (whole, id: string) => {
    const file = files.find((f) => f.id === Number(id) && f.contentId);
    if (!file) return whole;
    inline.add(file.id);
    return `src="cid:${file.contentId}"`;
  });
  return { html: out, inline };
}

/** The attachments shown inline by a message's HTML (not listed again under it). */
export function inlineAttachmentIds(html: string | null) {
  return new Set([...(html ?? '').matchAll(/src="\/attachments\/(\d+)"/g)].map((m) => Number(m[1])));
}

/** A file is played (audio) or shown (image) rather than only linked. */
export function mediaKind(contentType: string): 'image' | 'audio' | 'file' {
  if (Object.values(IMAGE_TYPES).includes(contentType)) return 'image';
  if (contentType.startsWith('audio/')) return 'audio';
  return 'file';
}
