import sanitizeHtml from 'sanitize-html';
import { EMAIL_HTML_OPTIONS } from '../email/sanitize.server';
import { renderTemplate, type TemplateContact } from '../productivity/templates';

/** A campaign body as stored: the inbox's e-mail sanitiser (no scripts, forms, frames, CSS that fetches). */
export function cleanCampaignHtml(html: string) {
  // A textarea posts its line breaks as CRLF (HTML's form encoding): stored with LF, so a body saved without
  // JavaScript still equals its block design's rendering (ADR 095).
  return sanitizeHtml(html.replace(/\r\n?/g, '\n'), EMAIL_HTML_OPTIONS).trim();
}

function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const UNSUBSCRIBE_MARK = '__PARLEY_UNSUBSCRIBE_URL__';
const PIXEL_MARK = '<!--parley-open-pixel-->';

const layouts = new Map<string, string>();

/**
 * The campaign body inside a responsive MJML layout (one column, 600 px, readable on a phone) with the footer that
 * carries the unsubscribe link. Compiled once per body (MJML takes tens of milliseconds), then filled per recipient.
 */
export async function campaignLayout(bodyHtml: string, opts: { senderName: string }) {
  const key = `${opts.senderName}\u0000${bodyHtml}`;
  const cached = layouts.get(key);
  if (cached) return cached;
  const source = `<mjml><mj-head><mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /><mj-text font-size="15px" line-height="1.5" color="#1f2937" /></mj-attributes></mj-head>
<mj-body background-color="#f3f4f6"><mj-section background-color="#ffffff" padding="24px"><mj-column><mj-text>${bodyHtml}</mj-text></mj-column></mj-section>
<mj-section padding="12px"><mj-column><mj-text font-size="12px" color="#6b7280" align="center">Sent by ${escapeHtml(opts.senderName)}. <a href="${UNSUBSCRIBE_MARK}" style="color:#6b7280">Unsubscribe</a></mj-text></mj-column></mj-section>
</mj-body></mjml>`;
  // MJML (with juice, cheerio, js-beautify: ~55 MiB resident) loads on the first campaign sent, not at start (ADR 129).
  const { default: mjml2html } = await import('mjml');
  const out = await Promise.resolve(mjml2html(source, { validationLevel: 'soft', minify: false }));
  const html = out.html.replace('</body>', `${PIXEL_MARK}</body>`);
  if (layouts.size > 200) layouts.clear();
  layouts.set(key, html);
  return html;
}

/** Placeholders in html get the contact's values escaped; in text as they are. */
function htmlContact(contact: TemplateContact): TemplateContact {
  return {
    firstName: escapeHtml(contact.firstName ?? ''),
    lastName: escapeHtml(contact.lastName ?? ''),
    email: escapeHtml(contact.email ?? ''),
    address: contact.address
      ? Object.fromEntries(Object.entries(contact.address).map(([k, v]) => [k, escapeHtml(String(v ?? ''))]))
      : null,
  };
}

/**
 * One recipient's mail from the compiled layout: placeholders filled, each web link through the signed click
 * redirect (when click tracking is on), the open pixel (when open tracking is on), the unsubscribe link.
 */
export function personalise(
  layout: string,
  text: string,
  opts: { contact: TemplateContact; unsubscribeUrl: string; clickUrl?: (url: string) => string; pixelUrl?: string },
) {
  let html = renderTemplate(layout, htmlContact(opts.contact));
  if (opts.clickUrl) {
    const click = opts.clickUrl;
    html = html.replace(/href="(https?:\/\/[^"]+)"/gi, (whole, url: string) =>
      url === UNSUBSCRIBE_MARK ? whole : `href="${escapeHtml(click(url.replace(/&amp;/g, '&')))}"`,
    );
  }
  html = html
    .replace(UNSUBSCRIBE_MARK, escapeHtml(opts.unsubscribeUrl))
    .replace(PIXEL_MARK, opts.pixelUrl ? `<img src="${escapeHtml(opts.pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0">` : '');
  const plain = `${renderTemplate(text, opts.contact)}\n\n--\nUnsubscribe: ${opts.unsubscribeUrl}\n`;
  return { html, text: plain };
}
