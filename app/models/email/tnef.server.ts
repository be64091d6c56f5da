import iconv from 'iconv-lite';

/**
 * A reader of Outlook's winmail.dat (TNEF, MS-OXTNEF) that keeps what an agent needs (ADR 145): every attached
 * file with its long name, whether its bytes sit in the legacy attAttachData attribute or in the MAPI property
 * PR_ATTACH_DATA_OBJ, and the message's bodies (plain, HTML, compressed RTF). One pass over the bytes with every
 * length checked against what is left, so hostile input ends the pass instead of spinning or reading past the end;
 * what could not be read is said in `unread`, and the caller then keeps the winmail.dat itself as well.
 */

export type TnefFile = { name: string; data: Buffer; contentType: string | null; contentId: string | null };
export type TnefContents = {
  files: TnefFile[];
  /** PR_BODY, else the legacy attBody. */
  body: string;
  /** PR_BODY_HTML / PR_HTML, decoded with the message's PR_INTERNET_CPID. */
  html: string | null;
  /** PR_RTF_COMPRESSED as stored (MS-OXRTFCE), for the RTF reader. */
  rtfCompressed: Buffer | null;
  /** Why part of the stream could not be read (garbage after the end, a cut-off attribute, a file without bytes). */
  unread: string | null;
};

const TNEF_SIGNATURE = 0x223e9f78;
const LVL_MESSAGE = 0x01;
const LVL_ATTACHMENT = 0x02;

// TNEF attribute ids (the low 16 bits; writers disagree on the type half).
const ATT_BODY = 0x800c;
const ATT_ATTACH_DATA = 0x800f;
const ATT_ATTACH_TITLE = 0x8010;
const ATT_ATTACH_REND_DATA = 0x9002;
const ATT_MAPI_PROPS = 0x9003;
const ATT_ATTACHMENT = 0x9005;
const ATT_OEM_CODEPAGE = 0x9007;

// MAPI property ids.
const PR_BODY = 0x1000;
const PR_RTF_COMPRESSED = 0x1009;
const PR_BODY_HTML = 0x1013; // PR_HTML when binary: the same id
const PR_INTERNET_CPID = 0x3fde;
const PR_DISPLAY_NAME = 0x3001;
const PR_ATTACH_DATA_OBJ = 0x3701;
const PR_ATTACH_FILENAME = 0x3704;
const PR_ATTACH_METHOD = 0x3705;
const PR_ATTACH_LONG_FILENAME = 0x3707;
const PR_ATTACH_MIME_TAG = 0x370e;
const PR_ATTACH_CONTENT_ID = 0x3712;

const ATTACH_EMBEDDED_MSG = 5;

// MAPI property types.
const PT_SHORT = 0x0002;
const PT_LONG = 0x0003;
const PT_FLOAT = 0x0004;
const PT_DOUBLE = 0x0005;
const PT_CURRENCY = 0x0006;
const PT_APPTIME = 0x0007;
const PT_ERROR = 0x000a;
const PT_BOOLEAN = 0x000b;
const PT_OBJECT = 0x000d;
const PT_I8 = 0x0014;
const PT_STRING8 = 0x001e;
const PT_UNICODE = 0x001f;
const PT_SYSTIME = 0x0040;
const PT_CLSID = 0x0048;
const PT_BINARY = 0x0102;
const MV_FLAG = 0x1000;

type MapiValue = { type: number; bytes: Buffer; int: number | null };
type MapiProp = { id: number; named: boolean; values: MapiValue[] };

class Unreadable extends Error {}

function need(buf: Buffer, at: number, n: number) {
  if (at < 0 || n < 0 || at + n > buf.length) throw new Unreadable('a MAPI property runs past its attribute');
}

const pad4 = (n: number) => (n + 3) & ~3;

/** MS-OXTNEF 2.1.3.5: a count, then each property (type, id, a name for named ones, its values). */
function readMapiProps(buf: Buffer): MapiProp[] {
  const props: MapiProp[] = [];
  need(buf, 0, 4);
  const count = buf.readUInt32LE(0);
  let at = 4;
  for (let i = 0; i < count; i++) {
    need(buf, at, 4);
    let type = buf.readUInt16LE(at);
    const id = buf.readUInt16LE(at + 2);
    at += 4;
    const named = id >= 0x8000;
    if (named) {
      need(buf, at, 20);
      const kind = buf.readUInt32LE(at + 16);
      at += 20;
      if (kind === 0) {
        need(buf, at, 4);
        at += 4;
      } else {
        need(buf, at, 4);
        const len = buf.readUInt32LE(at);
        at += 4;
        need(buf, at, len);
        at += pad4(len);
      }
    }
    const multi = (type & MV_FLAG) !== 0;
    type &= ~MV_FLAG;
    const variable = type === PT_STRING8 || type === PT_UNICODE || type === PT_BINARY || type === PT_OBJECT;
    let n = 1;
    if (multi || variable) {
      need(buf, at, 4);
      n = buf.readUInt32LE(at);
      at += 4;
      // Each value takes at least four bytes: a count larger than what is left is corrupt, not a reason to loop.
      if (n > (buf.length - at) / 4 + 1) throw new Unreadable('a MAPI value count runs past its attribute');
    }
    const values: MapiValue[] = [];
    for (let v = 0; v < n; v++) {
      if (variable) {
        need(buf, at, 4);
        const len = buf.readUInt32LE(at);
        at += 4;
        need(buf, at, len);
        values.push({ type, bytes: buf.subarray(at, at + len), int: null });
        at += pad4(len);
        continue;
      }
      let size: number;
      switch (type) {
        case PT_SHORT:
        case PT_LONG:
        case PT_FLOAT:
        case PT_ERROR:
        case PT_BOOLEAN:
          size = 4;
          break;
        case PT_DOUBLE:
        case PT_CURRENCY:
        case PT_APPTIME:
        case PT_I8:
        case PT_SYSTIME:
          size = 8;
          break;
        case PT_CLSID:
          size = 16;
          break;
        default:
          throw new Unreadable(`a MAPI property of unknown type 0x${type.toString(16)}`);
      }
      need(buf, at, size);
      const bytes = buf.subarray(at, at + size);
      values.push({ type, bytes, int: type === PT_SHORT ? bytes.readInt16LE(0) : size === 4 ? bytes.readInt32LE(0) : null });
      at += size;
    }
    props.push({ id, named, values });
  }
  return props;
}

function decodeCodepage(bytes: Buffer, codepage: number) {
  const enc = codepage === 65001 ? 'utf8' : `cp${codepage}`;
  return iconv.encodingExists(enc) ? iconv.decode(bytes, enc) : bytes.toString('latin1');
}

function stringOf(value: MapiValue | undefined, codepage: number): string | null {
  if (!value) return null;
  const text = value.type === PT_UNICODE ? value.bytes.toString('utf16le') : decodeCodepage(value.bytes, codepage);
  return text.replace(/\u0000+$/, '').replace(/\u0000/g, '');
}

const find = (props: MapiProp[], id: number) => props.find((p) => !p.named && p.id === id)?.values[0];

type Draft = { title: string | null; data: Buffer | null; props: MapiProp[] };

/** Decodes a TNEF stream; null when it is not one at all (no signature). */
export function decodeTnef(bytes: Buffer): TnefContents | null {
  if (bytes.length < 6 || bytes.readUInt32LE(0) !== TNEF_SIGNATURE) return null;
  let codepage = 1252;
  let messageProps: MapiProp[] = [];
  let legacyBody: Buffer | null = null;
  const drafts: Draft[] = [];
  let unread: string | null = null;
  let at = 6;
  while (at < bytes.length) {
    if (bytes.length - at < 11) {
      unread = 'bytes after the last attribute';
      break;
    }
    const level = bytes.readUInt8(at);
    const id = bytes.readUInt32LE(at + 1) & 0xffff;
    const length = bytes.readUInt32LE(at + 5);
    if (level !== LVL_MESSAGE && level !== LVL_ATTACHMENT) {
      unread = 'bytes after the last attribute';
      break;
    }
    if (length > bytes.length - at - 11) {
      unread = 'an attribute cut off before its end';
      break;
    }
    const data = bytes.subarray(at + 9, at + 9 + length);
    at += 11 + length;
    try {
      if (level === LVL_MESSAGE) {
        if (id === ATT_OEM_CODEPAGE && data.length >= 4) codepage = data.readUInt32LE(0) || codepage;
        else if (id === ATT_MAPI_PROPS) messageProps = readMapiProps(data);
        else if (id === ATT_BODY) legacyBody = data;
        continue;
      }
      // attAttachRendData opens an attachment; some writers send its data or title first (tnef's data-before-name).
      if (id === ATT_ATTACH_REND_DATA || drafts.length === 0) drafts.push({ title: null, data: null, props: [] });
      const draft = drafts[drafts.length - 1];
      if (id === ATT_ATTACH_TITLE) draft.title = decodeCodepage(data, codepage).replace(/\u0000+$/, '') || null;
      else if (id === ATT_ATTACH_DATA) draft.data = data;
      else if (id === ATT_ATTACHMENT) draft.props = readMapiProps(data);
    } catch (err) {
      if (!(err instanceof Unreadable)) throw err;
      unread = err.message;
    }
  }

  const files: TnefFile[] = [];
  for (const d of drafts) {
    const dataObj = find(d.props, PR_ATTACH_DATA_OBJ);
    const method = find(d.props, PR_ATTACH_METHOD)?.int;
    // The bytes as the tnef tool writes them: the data object wins over attAttachData when both are there.
    const data = dataObj ? dataObj.bytes : d.data;
    if (!data) {
      unread ??= 'an attachment without its bytes';
      continue;
    }
    const name =
      stringOf(find(d.props, PR_ATTACH_LONG_FILENAME), codepage) ||
      d.title ||
      stringOf(find(d.props, PR_ATTACH_FILENAME), codepage) ||
      stringOf(find(d.props, PR_DISPLAY_NAME), codepage) ||
      (method === ATTACH_EMBEDDED_MSG ? 'Untitled Attachment.msg' : 'Untitled Attachment');
    files.push({
      name,
      data: Buffer.from(data),
      contentType: stringOf(find(d.props, PR_ATTACH_MIME_TAG), codepage) || null,
      contentId: stringOf(find(d.props, PR_ATTACH_CONTENT_ID), codepage) || null,
    });
  }

  const cpid = find(messageProps, PR_INTERNET_CPID)?.int ?? codepage;
  const bodyValue = find(messageProps, PR_BODY);
  const body = bodyValue ? stringOf(bodyValue, codepage) ?? '' : legacyBody ? decodeCodepage(legacyBody, codepage).replace(/\u0000+$/, '') : '';
  const htmlValue = find(messageProps, PR_BODY_HTML);
  const html = htmlValue
    ? htmlValue.type === PT_UNICODE
      ? stringOf(htmlValue, cpid)
      : decodeCodepage(htmlValue.bytes, cpid > 0 ? cpid : codepage).replace(/\u0000+$/, '')
    : null;
  const rtf = find(messageProps, PR_RTF_COMPRESSED);
  return {
    files,
    body,
    html: html?.trim() ? html : null,
    rtfCompressed: rtf && rtf.bytes.length >= 16 ? Buffer.from(rtf.bytes) : null,
    unread,
  };
}
