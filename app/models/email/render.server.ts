import sanitizeHtml from 'sanitize-html';
import { EMAIL_HTML_OPTIONS } from './sanitize.server';

const REMOTE = /^(https?:)?\/\//i;

/**
 * Prepares a message's stored (already sanitised) HTML for display. Remote images would tell the sender
 * that, when and from where the agent read the mail: unless the agent allowed them, their src is emptied
 * and kept in data-remote-src. Our own inline images (/attachments/...) and data: images always show.
 */
export function renderEmailHtml(html: string, opts: { allowRemoteImages: boolean }) {
  let remoteImages = 0;
  const out = sanitizeHtml(html, {
    ...EMAIL_HTML_OPTIONS,
    transformTags: {
      img: (tagName, attribs) => {
        const src = (attribs.src ?? '').trim();
        if (!REMOTE.test(src)) return { tagName, attribs };
        remoteImages++;
        if (opts.allowRemoteImages) return { tagName, attribs: { ...attribs, referrerpolicy: 'no-referrer', loading: 'lazy' } };
        const { src: _src, ...rest } = attribs;
        return { tagName, attribs: { ...rest, src: '', 'data-remote-src': src } };
      },
    },
  });
  return { html: out, remoteImages };
}
