import fs from 'node:fs/promises';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { GUIDE_PAGES, headingId, isGuideSlug, type GuideSlug } from './guide';

/**
 * Reads and renders the user guide: Markdown files in docs/guide (written in the repository, shipped with the
 * app), rendered with marked and sanitised (the guide is ours, but a page is HTML put into ours: it gets the
 * same treatment as any other). Headings get ids so that "Learn more" links land on their section.
 */

const GUIDE_DIR = path.resolve(process.cwd(), 'docs/guide');

const marked = new Marked({
  gfm: true,
  renderer: {
    heading(this: { parser: { parseInline: (t: Tokens.Generic[]) => string } }, token: Tokens.Heading) {
      const inner = this.parser.parseInline(token.tokens);
      return `<h${token.depth} id="${headingId(token.text)}">${inner}</h${token.depth}>\n`;
    },
  },
});

function sanitize(html: string) {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'h1', 'h2'],
    allowedAttributes: { a: ['href', 'title'], h1: ['id'], h2: ['id'], h3: ['id'], h4: ['id'], code: ['class'] },
    allowedSchemes: ['http', 'https', 'mailto'],
  });
}

export type GuideSection = { id: string; heading: string; text: string };
export type GuidePage = { slug: GuideSlug; title: string; html: string; sections: GuideSection[] };

async function readMarkdown(slug: GuideSlug) {
  return fs.readFile(path.join(GUIDE_DIR, `${slug}.md`), 'utf8');
}

/** The page's sections as plain text (for search): the text under each heading. */
function sectionsOf(markdown: string, title: string): GuideSection[] {
  const sections: GuideSection[] = [];
  let current: GuideSection = { id: '', heading: title, text: '' };
  for (const line of markdown.split('\n')) {
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    if (h) {
      if (current.text.trim() || current.id) sections.push(current);
      current = { id: h[1].length === 1 ? '' : headingId(h[2]), heading: h[1].length === 1 ? title : h[2].trim(), text: '' };
    } else current.text += `${line.replace(/[*_`>#]|\[([^\]]*)\]\([^)]*\)/g, '$1')} `;
  }
  sections.push(current);
  return sections.map((s) => ({ ...s, text: s.text.replace(/\s+/g, ' ').trim() }));
}

/** One guide page, rendered; undefined for a page the guide does not have. */
export async function getGuidePage(slug: string): Promise<GuidePage | undefined> {
  if (!isGuideSlug(slug)) return undefined;
  const page = GUIDE_PAGES.find((p) => p.slug === slug)!;
  const markdown = await readMarkdown(slug);
  return { slug, title: page.title, html: sanitize(await marked.parse(markdown)), sections: sectionsOf(markdown, page.title) };
}

export type GuideHit = { slug: GuideSlug; pageTitle: string; id: string; heading: string; snippet: string; score: number };

/**
 * A plain search over the guide's sections: every word of the query must appear in a section (its heading or
 * text); headings weigh more. Good enough for a guide of a dozen pages, read from disk on each search.
 */
export async function searchGuide(q: string, limit = 20): Promise<GuideHit[]> {
  const words = q
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}-]/gu, ''))
    .filter((w) => w.length > 1)
    .slice(0, 8);
  if (words.length === 0) return [];
  const hits: GuideHit[] = [];
  for (const page of GUIDE_PAGES) {
    const sections = sectionsOf(await readMarkdown(page.slug), page.title);
    for (const s of sections) {
      const heading = s.heading.toLowerCase();
      const text = s.text.toLowerCase();
      if (!words.every((w) => heading.includes(w) || text.includes(w))) continue;
      const score = words.reduce((n, w) => n + (heading.includes(w) ? 5 : 0) + text.split(w).length - 1, 0);
      const at = Math.max(0, text.indexOf(words[0]) - 60);
      const snippet = `${at > 0 ? '…' : ''}${s.text.slice(at, at + 200)}${at + 200 < s.text.length ? '…' : ''}`;
      hits.push({ slug: page.slug, pageTitle: page.title, id: s.id, heading: s.heading, snippet, score });
    }
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
