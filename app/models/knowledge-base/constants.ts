/** The knowledge base's plain values, apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import type { FeatureKey } from '../plans/catalogue';

export { emptyMessage, maxLengthMessage } from '../productivity/constants';

export const KB_NAME_MAX = 20;
export const KB_DETAIL_MAX = 150;
export const CATEGORY_NAME_MAX = 60;
export const CATEGORY_DESCRIPTION_MAX = 160;
export const ARTICLE_TITLE_MAX = 150;
/** Stored HTML after sanitising; large enough for a long guide with tables, small enough for one row. */
export const ARTICLE_BODY_MAX = 200_000;
export const SEO_TITLE_MIN = 3;
export const SEO_TITLE_MAX = 70;
export const SEO_DESCRIPTION_MIN = 3;
export const SEO_DESCRIPTION_MAX = 160;
export const KB_PAGE_SIZE = 50;
export const HELP_NAME_MIN = 3;
export const HELP_NAME_MAX = 30;
export const CUSTOM_CODE_MAX = 50_000;
export const GA_KEY_MESSAGE = 'Enter Valid Google Analytics Key';

/** Section 4: the article filters. "publish" is the specification's value for published articles. */
export const ARTICLE_FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'publish', label: 'Published' },
  { value: 'draft', label: 'Draft' },
  { value: 'trash', label: 'Trash' },
] as const;
export type ArticleFilter = (typeof ARTICLE_FILTERS)[number]['value'];

/** Section 9: article sort options. */
export const ARTICLE_SORTS = [
  { value: 'dateModify', label: 'Last modified' },
  { value: 'titleAZ', label: 'Title A–Z' },
  { value: 'titleZA', label: 'Title Z–A' },
  { value: 'ratingHigh', label: 'Rating: high to low' },
  { value: 'ratingLow', label: 'Rating: low to high' },
] as const;
export type ArticleSort = (typeof ARTICLE_SORTS)[number]['value'];

/**
 * Section 9's languages, with ISO 639-1 codes (the source's Lithuanian and Portuguese codes were wrong; these are
 * the standard ones) and the PostgreSQL text-search configuration that stems them ('simple' where PostgreSQL has none).
 */
export const KB_LANGUAGES = [
  { code: 'ar', label: 'Arabic', config: 'arabic' },
  { code: 'zh', label: 'Chinese', config: 'simple' },
  { code: 'da', label: 'Danish', config: 'danish' },
  { code: 'nl', label: 'Dutch', config: 'dutch' },
  { code: 'en', label: 'English', config: 'english' },
  { code: 'fr', label: 'French', config: 'french' },
  { code: 'de', label: 'German', config: 'german' },
  { code: 'el', label: 'Greek', config: 'greek' },
  { code: 'hi', label: 'Hindi', config: 'hindi' },
  { code: 'hu', label: 'Hungarian', config: 'hungarian' },
  { code: 'it', label: 'Italian', config: 'italian' },
  { code: 'ja', label: 'Japanese', config: 'simple' },
  { code: 'ko', label: 'Korean', config: 'simple' },
  { code: 'lt', label: 'Lithuanian', config: 'lithuanian' },
  { code: 'fa', label: 'Persian', config: 'simple' },
  { code: 'pl', label: 'Polish', config: 'simple' },
  { code: 'pt', label: 'Portuguese', config: 'portuguese' },
  { code: 'ru', label: 'Russian', config: 'russian' },
  { code: 'es', label: 'Spanish', config: 'spanish' },
  { code: 'sv', label: 'Swedish', config: 'swedish' },
  { code: 'tr', label: 'Turkish', config: 'turkish' },
  { code: 'vi', label: 'Vietnamese', config: 'simple' },
] as const;
export type KbLanguage = (typeof KB_LANGUAGES)[number]['code'];

export function searchConfigOf(language: string) {
  return KB_LANGUAGES.find((l) => l.code === language)?.config ?? 'simple';
}

/** The side menu of section 2, with the plan feature that locks an item. */
export type KbMenuItem = { slug: string; label: string; feature?: FeatureKey };
export const KB_MENU: { group: string | null; items: KbMenuItem[] }[] = [
  {
    group: null,
    items: [
      { slug: 'articles', label: 'Articles' },
      { slug: 'categories', label: 'Categories' },
      { slug: 'customization', label: 'Customization' },
    ],
  },
  {
    group: 'Settings',
    items: [
      { slug: 'general', label: 'General' },
      { slug: 'advance', label: 'Advanced' },
      { slug: 'seo', label: 'SEO' },
      { slug: 'version-control', label: 'Version Control', feature: 'knowledgeBase/versionControl' },
      { slug: 'backup-and-restore', label: 'Backup & Restore', feature: 'knowledgeBase/backupRestore' },
      { slug: 'custom-css-js', label: 'Custom CSS & JS', feature: 'knowledgeBase/customJavascript' },
      { slug: 'redirect-rules', label: 'Redirect Rules' },
      { slug: 'import-export', label: 'Import & Export', feature: 'knowledgeBase/importExport' },
    ],
  },
];

/** A URL piece from a title: lower-case ASCII words joined by hyphens (never empty). */
export function slugify(text: string) {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return slug || 'article';
}

/** The public path of an article inside its help centre: id-slug, so a changed slug still finds the article (ADR 050). */
export const articlePath = (kbSlug: string, article: { id: number; slug: string }) => `/hc/${kbSlug}/articles/${article.id}-${article.slug}`;
export const categoryPath = (kbSlug: string, category: { id: number; slug: string }) => `/hc/${kbSlug}/categories/${category.id}-${category.slug}`;

/** Knowledge-base images (ADR 058): at most 5 MB, PNG/JPEG/GIF/WebP only (no SVG: it can carry script). */
export const KB_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const KB_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const KB_IMAGE_ACCEPT = KB_IMAGE_TYPES.join(',');
/** An image's address, the same on the account host and on the help host (relative, no knowledge-base slug in it). */
export const kbImageUrl = (token: string) => `/kb-images/${token}`;
/** What an image address looks like in a stored body: the sanitiser keeps relative image sources of this form only. */
export const KB_IMAGE_SRC = /^\/kb-images\/[0-9a-f]{32}$/;
export const KB_IMAGE_MESSAGES = {
  empty: (name: string) => `${name} is empty`,
  tooLarge: (name: string) => `${name} is larger than 5 MB`,
  badType: (name: string) => `${name} is not a PNG, JPEG, GIF or WebP image`,
  missing: 'Choose an image to upload',
} as const;
