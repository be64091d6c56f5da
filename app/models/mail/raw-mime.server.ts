import crypto from 'node:crypto';
import mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';

export type Address = string | { name: string; address: string };

export type RawMail = {
  from: Address;
  replyTo?: Address;
  to: string;
  subject: string;
  html?: string;
  text: string;
  /** `<…@host>`: stable per recipient, so a resend after a crash is the same mail to a receiving system. */
  messageId: string;
  headers?: Record<string, string>;
};

const ASCII = /^[\x20-\x7e]*$/;

function header(value: string) {
  // Non-ASCII words become RFC 2047 encoded-words; long ASCII lines are folded (RFC 5322: under 998 octets).
  return ASCII.test(value) ? value : mimeFuncs.encodeWords(value, 'Q', 52);
}

function address(a: Address) {
  if (typeof a === 'string') return `<${a}>`;
  if (!a.name) return `<${a.address}>`;
  const name = ASCII.test(a.name) ? `"${a.name.replace(/(["\\])/g, '\\$1')}"` : mimeFuncs.encodeWords(a.name, 'Q', 52);
  return `${name} <${a.address}>`;
}

export const addressOf = (a: Address) => (typeof a === 'string' ? a : a.address);

/** Base64 in 76-character lines (RFC 2045): one native encode and a cheap wrap, no per-character work in JavaScript. */
function base64(body: string) {
  const b = Buffer.from(body, 'utf8').toString('base64');
  let out = '';
  for (let i = 0; i < b.length; i += 76) out += `${b.slice(i, i + 76)}\r\n`;
  return out;
}

/**
 * One bulk mail as RFC 5322 bytes (ADR 084): multipart/alternative with a text and an HTML part, both base64.
 * A bulk send builds thousands of these a minute; nodemailer's composer (a stream graph per mail, quoted-printable in
 * JavaScript) was most of the sender's CPU, so the bulk path builds the message itself and hands nodemailer `raw`
 * bytes with an explicit envelope. Headers a receiver or a list client needs: From, To, Subject, Date, Message-ID,
 * MIME-Version, Reply-To, and the caller's own (List-Unsubscribe…).
 */
export function buildRawMail(mail: RawMail): Buffer {
  const boundary = `=_parley_${crypto.randomBytes(12).toString('hex')}`;
  const lines = [
    `From: ${address(mail.from)}`,
    `To: ${address(mail.to)}`,
    ...(mail.replyTo ? [`Reply-To: ${address(mail.replyTo)}`] : []),
    `Subject: ${header(mail.subject)}`,
    `Date: ${new Date().toUTCString().replace(/GMT$/, '+0000')}`,
    `Message-ID: ${mail.messageId}`,
    'MIME-Version: 1.0',
  ];
  for (const [k, v] of Object.entries(mail.headers ?? {})) lines.push(`${k}: ${header(v)}`);
  if (!mail.html) {
    lines.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '', base64(mail.text));
    return Buffer.from(lines.join('\r\n'), 'utf8');
  }
  lines.push(
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64(mail.text),
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64(mail.html),
    `--${boundary}--`,
    '',
  );
  return Buffer.from(lines.join('\r\n'), 'utf8');
}
