import sanitizeHtml from 'sanitize-html';

/**
 * What survives of an email's HTML: text formatting, tables, links and images; never scripts, styles sheets,
 * event handlers, frames, forms or CSS that could fetch anything (no url(), no expression()). Runs once at
 * ingestion: messages.html only ever holds the result.
 */

const COLOR = /^(#[0-9a-f]{3,8}|rgba?\(\s*[\d.]+%?\s*,\s*[\d.]+%?\s*,\s*[\d.]+%?\s*(,\s*[\d.]+\s*)?\)|[a-z]{3,30})$/i;
const LENGTH = /^(-?[\d.]+(px|em|rem|%|pt|ex|ch|vw|vh)?|auto|inherit|normal)$/i;
const BOX = /^((-?[\d.]+(px|em|rem|%|pt)?|auto)\s*){1,4}$/i;
// Borders may name a colour but carry no parentheses other than rgb(): no url(), no image.
const BORDER = /^([\w#.%-]+|rgba?\([\d\s.,%]+\))(\s+([\w#.%-]+|rgba?\([\d\s.,%]+\))){0,3}$/i;

const STYLES: Record<string, RegExp[]> = {
  color: [COLOR],
  'background-color': [COLOR],
  'text-align': [/^(left|right|center|justify|start|end)$/i],
  'vertical-align': [/^(top|middle|bottom|baseline|text-top|text-bottom)$/i],
  'font-size': [LENGTH, /^(x{0,2}-?small|medium|x{0,2}-?large|smaller|larger)$/i],
  'font-weight': [/^(normal|bold|bolder|lighter|\d{3})$/i],
  'font-style': [/^(normal|italic|oblique)$/i],
  'font-family': [/^[\w\s,"'-]{1,200}$/],
  'text-decoration': [/^[a-z\s-]{1,60}$/i],
  'text-transform': [/^(none|uppercase|lowercase|capitalize)$/i],
  'line-height': [LENGTH, /^[\d.]+$/],
  'letter-spacing': [LENGTH],
  'white-space': [/^(normal|nowrap|pre|pre-wrap|pre-line)$/i],
  'border-collapse': [/^(collapse|separate)$/i],
  display: [/^(block|inline|inline-block|none|table|table-cell|table-row|list-item)$/i],
  width: [LENGTH],
  height: [LENGTH],
  'max-width': [LENGTH],
  'min-width': [LENGTH],
  padding: [BOX],
  'padding-top': [LENGTH],
  'padding-right': [LENGTH],
  'padding-bottom': [LENGTH],
  'padding-left': [LENGTH],
  margin: [BOX],
  'margin-top': [LENGTH],
  'margin-right': [LENGTH],
  'margin-bottom': [LENGTH],
  'margin-left': [LENGTH],
  border: [BORDER],
  'border-top': [BORDER],
  'border-right': [BORDER],
  'border-bottom': [BORDER],
  'border-left': [BORDER],
  'border-color': [COLOR],
  'border-width': [BOX],
  'border-style': [/^[a-z\s]{1,40}$/i],
  'border-radius': [BOX],
};

const TABLE_CELL = ['colspan', 'rowspan', 'align', 'valign', 'width', 'height', 'bgcolor'];

export const EMAIL_HTML_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'font', 'center', 'big', 'strike', 'del', 'ins'],
  allowedAttributes: {
    '*': ['style', 'align', 'dir', 'lang', 'title'],
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'alt', 'width', 'height', 'data-remote-src', 'referrerpolicy', 'loading'],
    table: ['width', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
    td: TABLE_CELL,
    th: TABLE_CELL,
    tr: ['valign', 'bgcolor'],
    col: ['span', 'width'],
    colgroup: ['span', 'width'],
    font: ['color', 'size', 'face'],
    ol: ['start', 'type'],
  },
  allowedStyles: { '*': STYLES },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Their text is not content either.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'iframe', 'object', 'embed', 'template', 'xml', 'head', 'select'],
};

/**
 * Sanitises inbound HTML. Inline images (`cid:`) point at their stored attachment through `cidUrls`
 * (content id → /attachments/<id>); a cid with no stored file is dropped. Links open in a new tab without
 * handing the opener over.
 */
export function sanitizeEmailHtml(html: string, opts: { cidUrls?: Map<string, string> } = {}) {
  return sanitizeHtml(html, {
    ...EMAIL_HTML_OPTIONS,
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer' } }),
      img: (tagName, attribs) => {
        const src = (attribs.src ?? '').trim();
        if (/^cid:/i.test(src)) {
          const url = opts.cidUrls?.get(src.slice(4).replace(/^<|>$/g, '').toLowerCase());
          return url ? { tagName, attribs: { ...attribs, src: url } } : { tagName: 'span', attribs: {}, text: '' };
        }
        return { tagName, attribs };
      },
    },
  }).trim();
}
