import sanitizeHtml from 'sanitize-html';
import { EMAIL_HTML_OPTIONS } from '../email/sanitize.server';

/**
 * Article bodies (ADR 048): the inbox's e-mail sanitiser's rules (text formatting, tables, links, images, a
 * short list of harmless inline styles; never scripts, frames, forms or CSS that fetches), with code blocks
 * kept and images limited to web addresses and this installation's own paths (no cid:, no data:).
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
  },
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
