/**
 * The campaign template designer's document (`textDesign`, ADR 064 addendum and ADR 095): blocks rendered to one
 * email-safe HTML fragment. Plain values and pure functions: the browser designer and the server render alike, and
 * the server re-renders from the validated design before it keeps it.
 */
export const DESIGN_BLOCK_TYPES = ['heading', 'text', 'image', 'button', 'divider', 'columns'] as const;
export type DesignBlockType = (typeof DESIGN_BLOCK_TYPES)[number];

export type DesignBlock =
  | { type: 'heading'; text: string }
  | { type: 'text'; text: string }
  | { type: 'image'; src: string; alt: string; href: string }
  | { type: 'button'; label: string; href: string; color: string }
  | { type: 'divider' }
  | { type: 'columns'; left: string; right: string };

export type TextDesign = { version: 1; blocks: DesignBlock[] };

export const DESIGN_LIMITS = { blocks: 50, text: 5000, short: 200, url: 2000 } as const;

export const DESIGN_BLOCK_LABELS: Record<DesignBlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  button: 'Button',
  divider: 'Divider',
  columns: 'Two columns',
};

export function emptyBlock(type: DesignBlockType): DesignBlock {
  switch (type) {
    case 'heading':
      return { type, text: 'Hello {{firstName}}' };
    case 'text':
      return { type, text: '' };
    case 'image':
      return { type, src: '', alt: '', href: '' };
    case 'button':
      return { type, label: 'Read more', href: 'https://', color: '#2563eb' };
    case 'divider':
      return { type };
    case 'columns':
      return { type, left: '', right: '' };
  }
}

const escape = (t: string) => t.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const paragraphs = (t: string) =>
  t
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p style="margin:0 0 12px 0">${escape(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
const webUrl = (u: string) => (/^https?:\/\/[^\s"<>]+$/i.test(u.trim()) ? u.trim() : '');
const colour = (c: string) => (/^#[0-9a-f]{6}$/i.test(c) ? c : '#2563eb');

/**
 * The blocks as one fragment for the campaign layout's body (an mjml mj-text, ADR 095): inline styles only (the
 * email sanitiser keeps no style sheets); two columns are fluid inline-blocks that sit side by side at 600 px and
 * stack on a phone without a media query. Placeholders ({{firstName}}...) pass through to be filled per recipient.
 */
export function renderDesign(design: TextDesign): string {
  return design.blocks
    .map((b) => {
      switch (b.type) {
        case 'heading':
          return `<h2 style="margin:0 0 12px 0;font-size:22px;line-height:1.3">${escape(b.text)}</h2>`;
        case 'text':
          return `<div>${paragraphs(b.text)}</div>`;
        case 'image': {
          const src = webUrl(b.src);
          if (!src) return '';
          const img = `<img src="${escape(src)}" alt="${escape(b.alt)}" width="552" style="display:block;width:100%;max-width:552px;height:auto;border:0">`;
          const href = webUrl(b.href);
          return `<div style="margin:0 0 12px 0">${href ? `<a href="${escape(href)}">${img}</a>` : img}</div>`;
        }
        case 'button': {
          const href = webUrl(b.href);
          return `<div style="margin:0 0 12px 0"><a href="${escape(href || '#')}" style="display:inline-block;padding:10px 20px;border-radius:6px;background-color:${colour(b.color)};color:#ffffff;text-decoration:none;font-weight:bold">${escape(b.label)}</a></div>`;
        }
        case 'divider':
          return `<div style="margin:12px 0;border-top:1px solid #e5e7eb"></div>`;
        case 'columns':
          return `<div style="margin:0 0 12px 0">${[b.left, b.right]
            .map((c) => `<div style="display:inline-block;vertical-align:top;width:100%;max-width:270px;margin:0 6px 0 0">${paragraphs(c)}</div>`)
            .join('')}</div>`;
      }
    })
    .join('\n');
}

/** A stored design for the browser designer, or null when there is none or it is not one (no zod in the browser). */
export function readDesign(json: string | null | undefined): TextDesign | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as TextDesign;
    return v && v.version === 1 && Array.isArray(v.blocks) ? v : null;
  } catch {
    return null;
  }
}
