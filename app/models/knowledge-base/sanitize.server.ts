import sanitizeHtml from 'sanitize-html';
import { EMAIL_HTML_OPTIONS } from '../email/sanitize.server';
import { KB_IMAGE_SRC } from './constants';

/**
 * Article bodies (ADR 048): the inbox's e-mail sanitiser's rules (text formatting, tables, links, images, a
 * short list of harmless inline styles; never scripts, frames, forms or CSS that fetches), with code blocks
 * kept and images limited to web addresses and the knowledge base's own images, `/kb-images/{token}` (ADR 058):
 * no cid:, no data:, no javascript:, and no other path of this site (an image must not make the reader's browser
 * request an agent route).
 */
const ARTICLE_HTML_OPTIONS: sanitizeHtml.IOptions = {
  ...EMAIL_HTML_OPTIONS,
  allowedTags: [...(EMAIL_HTML_OPTIONS.allowedTags as string[]), 'h1', 'h2'],
  allowedAttributes: { ...EMAIL_HTML_OPTIONS.allowedAttributes, code: ['class'], pre: ['class'] },
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: {
    a: (tagName, attribs) =>
      attribs.target === '_blank'
        ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } }
        : { tagName, attribs: { ...attribs, rel: attribs.rel ?? '' } },
    img: (tagName, attribs) => {
      const src = (attribs.src ?? '').trim();
      // A source with a scheme is left to allowedSchemesByTag (http/https only); a relative one must be our image.
      if (/^[a-z][a-z0-9+.-]*:/i.test(src) || KB_IMAGE_SRC.test(src)) return { tagName, attribs: { ...attribs, src } };
      const { src: _dropped, ...rest } = attribs;
      return { tagName, attribs: rest };
    },
  },
  // An image left without a source (refused above or by its scheme) is dropped rather than kept empty.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

export function sanitizeArticleHtml(html: string) {
  return sanitizeHtml(html, ARTICLE_HTML_OPTIONS).trim();
}

const BLOCK = /<\/(p|div|h[1-6]|li|tr|td|th|pre|blockquote)>|<br\s*\/?>/gi;

/** The words of a (sanitised) body: what search indexes and what a snippet is cut from. */
export function plainTextOf(html: string) {
  return sanitizeHtml(
    html.replace(BLOCK, (m) => `${m} `),
    { allowedTags: [], allowedAttributes: {} },
  )
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}
