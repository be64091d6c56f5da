import { Worker } from 'node:worker_threads';
import { decodeTnef, type TnefContents, type TnefFile } from './tnef.server';
import type { AddressObject, Attachment as MailAttachment, ParsedMail, SimpleParserOptions } from 'mailparser';
/** mailparser (libmime, iconv tables: ~15 MiB resident) loads with the first message parsed, not at start (ADR 129). */
const simpleParser = async (source: Buffer | string, options: SimpleParserOptions): Promise<ParsedMail> => (await import('mailparser')).simpleParser(source, options);

/**
 * What an email carries besides its own body, unpacked into what a person can read (ADR 026):
 * - Outlook's winmail.dat (TNEF) becomes the files it wraps (and its body when the mail has none); one that cannot
 *   be read whole is kept as it came as well, with a note on the message (ADR 145);
 * - a forwarded message (message/rfc822) is shown inline (sender, date, subject, body, the names of its files)
 *   and its files become attachments of the message; the forwarded .eml itself is kept too, byte for byte, so an
 *   agent can download exactly what the customer forwarded (ADR 145).
 */

export type MailPart = { filename: string; contentType: string; content: Buffer; cid: string | null };
export type ForwardedMessage = { from: string; to: string; date: string; subject: string; text: string; html: string | null; attachments: string[] };

/** Text the database accepts: PostgreSQL text and jsonb refuse the NUL character whatever else surrounds it. */
export function dbText(value: string): string;
export function dbText(value: string | null | undefined): string | null | undefined;
export function dbText(value: string | null | undefined) {
  return typeof value === 'string' ? value.replace(/\u0000/g, '') : value;
}

const TNEF_TYPES = new Set(['application/ms-tnef', 'application/vnd.ms-tnef']);
/** Past this, a winmail.dat is kept as it came (with a note) rather than unpacked: no attachment may be larger. */
const MAX_TNEF_BYTES = 10 * 1024 * 1024;
/** The RTF reader is stopped after this (it can be slow on hostile input). */
const TNEF_TIMEOUT_MS = 5000;
/** A forward of a forward of a forward is shown; deeper nesting stays attached as files. */
const MAX_FORWARD_DEPTH = 3;

function isTnef(a: MailAttachment) {
  return TNEF_TYPES.has(a.contentType.toLowerCase()) || /^(winmail|win)\.dat$/i.test(a.filename ?? '');
}

export type UnpackedTnef = { files: TnefFile[]; body: string; html: string | null; rtfText: string; unread: string | null };

/**
 * A winmail.dat read by Parley's own TNEF reader (tnef.server.ts, ADR 145): the files with their long names, the
 * plain and HTML bodies, and, when the HTML or plain body is missing, Outlook's body in RTF. Null when the bytes are
 * no TNEF or too large to read here.
 */
export async function unpackTnef(bytes: Buffer): Promise<UnpackedTnef | null> {
  if (bytes.byteLength > MAX_TNEF_BYTES) return null;
  let contents: TnefContents | null;
  try {
    contents = decodeTnef(bytes);
  } catch {
    contents = null;
  }
  if (!contents) return null;
  const rtf = contents.rtfCompressed && !(contents.html && contents.body.trim()) ? await readCompressedRtf(contents.rtfCompressed) : null;
  return {
    files: contents.files,
    body: contents.body.replace(/\u0000+$/, ''),
    html: contents.html ?? rtf?.html ?? null,
    rtfText: rtf?.text ?? '',
    unread: contents.unread,
  };
}

/**
 * Outlook's body in RTF (PR_RTF_COMPRESSED, MS-OXRTFCE), decompressed in a worker thread (@kenjiuno/decompressrtf,
 * ADR 040) and read with rtf-stream-parser, which can be slow on hostile input (the worker is stopped after 5 s, its
 * memory is capped): HTML that Outlook wrapped in RTF (`\fromhtml1`) comes back as that HTML, text wrapped in RTF
 * (`\fromtext`) as the text, and an RTF-only body (written in Outlook or WordPad) as its plain text. Code pages are
 * decoded with iconv-lite.
 */
function readCompressedRtf(compressed: Buffer): Promise<{ text: string; html: string | null } | null> {
  return new Promise((resolve) => {
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       function readRtf(data) {
         const { decompressRTF } = require('@kenjiuno/decompressrtf');
         const iconv = require('iconv-lite');
         const rtfParser = require('rtf-stream-parser');
         const decode = (buf, enc) => (iconv.encodingExists(enc) ? iconv.decode(buf, enc) : buf.toString('latin1'));
         const rtf = Buffer.from(decompressRTF(Array.from(data)));
         try {
           const wrapped = rtfParser.deEncapsulateSync(rtf, { decode, mode: 'either' });
           return Promise.resolve(wrapped.mode === 'html' ? { text: '', html: String(wrapped.text) } : { text: String(wrapped.text), html: null });
         } catch (notWrapped) {
           const { ToPlainText } = require('rtf-stream-parser/dist/src/ToPlainText');
           return new Promise((done) => {
             const tokens = new rtfParser.Tokenize();
             const plain = new ToPlainText({ decode });
             let text = '';
             plain.on('data', (d) => (text += d));
             plain.on('end', () => done({ text, html: null }));
             plain.on('error', () => done({ text: '', html: null }));
             tokens.on('error', () => done({ text: '', html: null }));
             tokens.pipe(plain);
             tokens.end(rtf);
           });
         }
       }
       Promise.resolve()
         .then(() => readRtf(Buffer.from(workerData)))
         .then((rtf) => parentPort.postMessage(rtf), () => parentPort.postMessage(null));`,
      { eval: true, workerData: compressed, stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: 256 } },
    );
    worker.stdout.resume();
    worker.stderr.resume();
    let done = false;
    const finish = (value: { text: string; html: string | null } | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), TNEF_TIMEOUT_MS);
    worker.once('message', (msg: { text: string; html: string | null } | null) =>
      finish(msg ? { text: tidyRtfText(msg.text), html: msg.html?.trim() ? msg.html : null } : null),
    );
    worker.once('error', () => finish(null));
    worker.once('exit', () => finish(null));
  });
}

/** RTF's text as a mail body: line ends as \n, no trailing blanks on a line, at most one empty line in a row. */
function tidyRtfText(text: string) {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function addressList(field: AddressObject | AddressObject[] | undefined) {
  const list = field ? (Array.isArray(field) ? field : [field]) : [];
  return list
    .flatMap((a) => a.value)
    .map((v) => (v.name && v.address ? `${v.name} <${v.address}>` : (v.address ?? v.name)))
    .join(', ');
}

/**
 * The files of a mail and its forwarded messages, unpacked. `tnefBody` is the body found in a winmail.dat (its
 * plain body, else the text of its RTF body) and `tnefHtml` its HTML body (PR_BODY_HTML, else the HTML Outlook
 * wrapped in its RTF body), for mails whose own body is empty (Outlook puts the body there in RTF-only mode).
 * `notes` say what could not be unpacked: such a part is kept as it came, and the message says so.
 */
export async function expandParts(
  parsed: ParsedMail,
  depth = 0,
): Promise<{ parts: MailPart[]; forwarded: ForwardedMessage[]; tnefBody: string; tnefHtml: string | null; notes: string[] }> {
  const parts: MailPart[] = [];
  const forwarded: ForwardedMessage[] = [];
  const notes: string[] = [];
  let tnefBody = '';
  let tnefHtml: string | null = null;
  for (const a of parsed.attachments) {
    const cid = a.cid ? dbText(a.cid) : null;
    if (isTnef(a)) {
      const name = dbText(a.filename || 'winmail.dat');
      const unpacked = await unpackTnef(a.content);
      if (unpacked && (unpacked.files.length > 0 || unpacked.body.trim() || unpacked.rtfText || unpacked.html)) {
        for (const f of unpacked.files) {
          parts.push({ filename: dbText(f.name), contentType: dbText(f.contentType ?? 'application/octet-stream'), content: f.data, cid: f.contentId ? dbText(f.contentId) : null });
        }
        if (!tnefBody) tnefBody = dbText(unpacked.body.trim() ? unpacked.body : unpacked.rtfText);
        if (!tnefHtml && unpacked.html) tnefHtml = dbText(unpacked.html);
        if (!unpacked.unread) continue;
      }
      notes.push(
        unpacked?.unread
          ? `Parley could not read all of ${name} (Outlook's TNEF: ${unpacked.unread}); it is attached as it came.`
          : unpacked
            ? `${name} (Outlook's TNEF) holds no file or text Parley can show; it is attached as it came.`
            : `Parley could not unpack ${name} (Outlook's TNEF); it is attached as it came.`,
      );
    }
    if (a.contentType.toLowerCase() === 'message/rfc822' && depth < MAX_FORWARD_DEPTH) {
      const inner = await simpleParser(a.content, { keepCidLinks: true }).catch(() => null);
      if (inner) {
        const nested = await expandParts(inner, depth + 1);
        forwarded.push({
          from: dbText(addressList(inner.from)),
          to: dbText(addressList(inner.to)),
          date: inner.date ? inner.date.toUTCString() : '',
          subject: dbText(inner.subject ?? ''),
          text: dbText(inner.text ?? nested.tnefBody ?? ''),
          html: typeof inner.html === 'string' && inner.html.trim() ? dbText(inner.html) : nested.tnefHtml,
          attachments: nested.parts.map((p) => p.filename),
        });
        parts.push(...nested.parts);
        // The original as it came, after its files (they were kept before it was, and come first within the size
        // limits), and once: a forward inside it is inside its bytes already.
        if (depth === 0) {
          const subject = (inner.subject ?? '').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').trim().slice(0, 150);
          parts.push({ filename: dbText(a.filename || `${subject || 'Forwarded message'}.eml`), contentType: 'message/rfc822', content: a.content, cid: null });
        }
        forwarded.push(...nested.forwarded);
        notes.push(...nested.notes);
        continue;
      }
    }
    const filename = dbText(a.filename || (a.contentType === 'message/rfc822' ? 'message.eml' : 'attachment'));
    parts.push({ filename, contentType: dbText(a.contentType), content: a.content, cid });
  }
  return { parts, forwarded, tnefBody, tnefHtml, notes };
}

function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const textToHtml = (text: string) => `<div style="white-space: pre-wrap">${escapeHtml(text)}</div>`;

/** A forwarded message as the reader sees it in the conversation, in HTML (sanitised with the rest afterwards). */
export function forwardedHtml(f: ForwardedMessage) {
  const rows = [
    ['From', f.from],
    ['Date', f.date],
    ['Subject', f.subject],
    ['To', f.to],
  ].filter(([, v]) => v);
  return [
    '<blockquote>',
    '<p><strong>Forwarded message</strong></p>',
    `<p>${rows.map(([k, v]) => `${k}: ${escapeHtml(v)}`).join('<br>')}</p>`,
    f.html ?? textToHtml(f.text),
    f.attachments.length ? `<p>Attachments: ${f.attachments.map(escapeHtml).join(', ')}</p>` : '',
    '</blockquote>',
  ].join('');
}

export function forwardedText(f: ForwardedMessage) {
  const head = [`From: ${f.from}`, f.date ? `Date: ${f.date}` : '', `Subject: ${f.subject}`, f.to ? `To: ${f.to}` : ''].filter(Boolean).join('\n');
  const files = f.attachments.length ? `\nAttachments: ${f.attachments.join(', ')}` : '';
  return `---------- Forwarded message ----------\n${head}\n\n${f.text.trim()}${files}`;
}

export { escapeHtml as escapeMailHtml, textToHtml as mailTextToHtml };
