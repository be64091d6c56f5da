import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** A text-search configuration name (english, french, simple...): stored typed so the generated column stays immutable. */
const regconfig = customType<{ data: string }>({ dataType: () => 'regconfig' });

/** A help centre of the account (section 3 "Knowledge base"): its categories and articles, settings, SEO. */
export const knowledgeBases = pgTable(
  'knowledge_bases',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    detail: text('detail').notNull().default(''),
    /** The help centre's address inside the account host: /hc/{slug}. */
    slug: text('slug').notNull(),
    /** General settings: the public name (3 to 30), the custom domain, the language code, whether it is public. */
    helpName: text('help_name'),
    cname: text('cname'),
    language: text('language').notNull().default('en'),
    docsVisible: boolean('docs_visible').notNull().default(true),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    /** SEO settings: Google Analytics only when a key is set, with the visitor's IP anonymised when asked (ADR 056). */
    gaKey: text('ga_key'),
    anonymizedIp: boolean('anonymized_ip').notNull().default(true),
    /** Custom CSS and JavaScript (plan feature customJavascript): served only on the help host, never the account host. */
    customCss: text('custom_css').notNull().default(''),
    customJs: text('custom_js').notNull().default(''),
    /**
     * Customization (ADR 058): the logo (a kb_images token, so a restored copy keeps it), the header's brand colour
     * and text colour (#rrggbb; no brand colour = the plain header), and up to 6 header links (http/https).
     */
    logoToken: text('logo_token'),
    brandColor: text('brand_color'),
    headerTextColor: text('header_text_color'),
    headerLinks: jsonb('header_links').$type<{ label: string; url: string }[]>().notNull().default([]),
    /** Advanced (ADR 058): what the public article pages show, and the order of articles in lists. */
    articleFeedback: boolean('article_feedback').notNull().default(true),
    showLastUpdated: boolean('show_last_updated').notNull().default(true),
    showViewCount: boolean('show_view_count').notNull().default(false),
    relatedArticles: boolean('related_articles').notNull().default(true),
    articleOrder: text('article_order').$type<'manual' | 'titleAZ' | 'newest' | 'popular'>().notNull().default('manual'),
    /** Version Control (ADR 058): how many versions of each article are kept (null: all); the published one always is. */
    versionsKept: integer('versions_kept'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('knowledge_bases_account_slug_key').on(t.accountId, t.slug),
    // The help host's lookups (ADR 056): {slug}.HELP_HOST across accounts, and a custom domain.
    index('knowledge_bases_slug_idx').on(t.slug),
    index('knowledge_bases_cname_idx').on(sql`lower(${t.cname})`),
  ],
);

export const kbCategories = pgTable(
  'kb_categories',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    slug: text('slug').notNull(),
    /** Order on the help centre's home and in the agent list; gaps are allowed. */
    position: integer('position').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('kb_categories_kb_position_idx').on(t.accountId, t.knowledgeBaseId, t.position, t.id)],
);

export const KB_ARTICLE_STATUSES = ['draft', 'published'] as const;
export type KbArticleStatus = (typeof KB_ARTICLE_STATUSES)[number];

/**
 * An article. The `title`/`body*` columns are the working copy agents edit; the `published*` columns are what
 * the public help centre shows and searches (ADR 049), so a draft can be edited while an older version stays live.
 */
export const kbArticles = pgTable(
  'kb_articles',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    categoryId: integer('category_id').references(() => kbCategories.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    /** Sanitised HTML (ADR 048) and its plain text. */
    bodyHtml: text('body_html').notNull().default(''),
    bodyText: text('body_text').notNull().default(''),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    status: text('status').$type<KbArticleStatus>().notNull().default('draft'),
    trashedAt: timestamp('trashed_at', { withTimezone: true }),
    position: integer('position').notNull().default(0),
    publishedVersionId: integer('published_version_id'),
    publishedTitle: text('published_title'),
    publishedSlug: text('published_slug'),
    publishedHtml: text('published_html'),
    publishedText: text('published_text'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    /** The knowledge base's language as a text-search configuration, for stemming. */
    searchConfig: regconfig('search_config')
      .notNull()
      .default(sql`'simple'::regconfig`),
    /** Published title (weight A) above the published body (weight B). */
    search: tsvector('search').generatedAlwaysAs(
      sql`setweight(to_tsvector(search_config, coalesce(published_title, '')), 'A') || setweight(to_tsvector(search_config, coalesce(published_text, '')), 'B')`,
    ),
    helpfulCount: integer('helpful_count').notNull().default(0),
    unhelpfulCount: integer('unhelpful_count').notNull().default(0),
    viewCount: integer('view_count').notNull().default(0),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('kb_articles_kb_updated_idx').on(t.accountId, t.knowledgeBaseId, t.updatedAt.desc().nullsFirst(), t.id),
    index('kb_articles_kb_title_idx').on(t.accountId, t.knowledgeBaseId, sql`lower(${t.title})`, t.id),
    index('kb_articles_category_position_idx').on(t.accountId, t.categoryId, t.position, t.id),
    index('kb_articles_search_idx').using('gin', t.search),
  ],
);

/** Every save of an article (ADR 049): who, when, and the full content, so any two can be compared or restored. */
export const kbArticleVersions = pgTable(
  'kb_article_versions',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    articleId: integer('article_id')
      .notNull()
      .references(() => kbArticles.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    categoryId: integer('category_id'),
    bodyHtml: text('body_html').notNull(),
    bodyText: text('body_text').notNull(),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('kb_article_versions_article_number_key').on(t.articleId, t.number),
    index('kb_article_versions_account_idx').on(t.accountId, t.articleId),
    // Version Control's knowledge-base-wide list of recent saves (ADR 058): DESC NULLS FIRST is what ORDER BY ... DESC
    // means, so the index serves it (drizzle's default NULLS LAST would not).
    index('kb_article_versions_recent_idx').on(t.accountId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

/** "Was this helpful?": one answer per visitor and article (the visitor is a random id in a help-centre cookie). */
export const kbArticleFeedback = pgTable(
  'kb_article_feedback',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    articleId: integer('article_id')
      .notNull()
      .references(() => kbArticles.id, { onDelete: 'cascade' }),
    visitorKey: text('visitor_key').notNull(),
    helpful: boolean('helpful').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('kb_article_feedback_visitor_key').on(t.articleId, t.visitorKey)],
);

/** Public searches, for the docs reports: the query, how many answers it found, and which one was opened. */
export const kbSearches = pgTable(
  'kb_searches',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    query: text('query').notNull(),
    resultCount: integer('result_count').notNull(),
    clickedArticleId: integer('clicked_article_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('kb_searches_kb_created_idx').on(t.accountId, t.knowledgeBaseId, t.createdAt)],
);

/** Redirect Rules (section 2): a help-centre path that answers 301 to another one (ADR 057). */
export const kbRedirects = pgTable(
  'kb_redirects',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    destination: text('destination').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('kb_redirects_kb_source_key').on(t.knowledgeBaseId, t.source)],
);

/**
 * The words of a knowledge base's published articles (ADR 050 addendum): the dictionary a misspelt search word is
 * corrected against with pg_trgm, a few thousand short rows instead of every article's text. Words are added when
 * an article is published; a word whose articles are gone only suggests a correction that finds nothing.
 */
export const kbSearchWords = pgTable(
  'kb_search_words',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    word: text('word').notNull(),
  },
  (t) => [
    uniqueIndex('kb_search_words_key').on(t.knowledgeBaseId, t.word),
    index('kb_search_words_trgm_idx').using('gin', sql`${t.word} gin_trgm_ops`),
  ],
);

/**
 * Images of a knowledge base (article bodies, the Customization logo), stored on disk like the inbox's attachments
 * (ADR 058). Served at `/kb-images/{token}` on the account host and on the help host: `token` is random and never
 * reused for other bytes, so the address needs no knowledge-base slug and can be cached for good. A copy of an image
 * (a restored backup) keeps its token, so article bodies that name it need no rewriting.
 */
export const kbImages = pgTable(
  'kb_images',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    storageKey: text('storage_key').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('kb_images_kb_idx').on(t.accountId, t.knowledgeBaseId), index('kb_images_token_idx').on(t.accountId, t.token)],
);

export const KB_IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type KbImportStatus = (typeof KB_IMPORT_STATUSES)[number];

/**
 * An import from another help centre by its address (ADR 059), run as a job: what it fetched so far, then what it
 * created and updated, or why it failed (nothing is written then).
 */
export const kbImports = pgTable(
  'kb_imports',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    knowledgeBaseId: integer('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    source: text('source').notNull().default('zendesk'),
    url: text('url').notNull(),
    locale: text('locale'),
    status: text('status').$type<KbImportStatus>().notNull().default('queued'),
    /** Records fetched so far (categories, sections, articles), for the progress display. */
    fetched: jsonb('fetched').$type<Record<string, number>>().notNull().default({}),
    /** What the import wrote (created, updated, unchanged...) once done. */
    result: jsonb('result').$type<Record<string, number>>(),
    message: text('message'),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('kb_imports_kb_idx').on(t.accountId, t.knowledgeBaseId, t.id)],
);
