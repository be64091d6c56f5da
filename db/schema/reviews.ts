import { boolean, index, integer, jsonb, pgTable, serial, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts } from './contacts';
import { conversations } from './inbox';

/**
 * Where to reach a source's API (ADR 068). Google Business Profile: the location's resource name
 * (`accounts/{a}/locations/{l}`) and an OAuth access token; Trustpilot: the business unit id, API key and an
 * OAuth access token for replies. `apiBase` is only set by tests and self-hosters pointing at a proxy.
 */
export type ReviewSourceConfig = {
  locationName?: string;
  businessUnitId?: string;
  /** Facebook: the Page's numeric id (its ratings are read with a Page access token). */
  pageId?: string;
  apiKey?: string;
  /** Secrets (accessToken, refreshToken, apiKey) are sealed at rest: `v1.…` (app/utils/secret-box.server.ts, ADR 096). */
  accessToken?: string;
  /** Google: the OAuth refresh token (the installation's GOOGLE_CLIENT_ID); the access token is renewed before it expires. */
  refreshToken?: string;
  /** Google: the Google account that consented (from the id token), shown in Settings. */
  googleAccount?: string;
  /** Google: when the stored access token expires (ISO time), when it came from a refresh. */
  accessTokenExpiresAt?: string;
  apiBase?: string;
};

/** The places an account collects reviews: its own Parley page (kind parley) or an external profile. */
export const reviewSources = pgTable(
  'review_sources',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** parley | google | trustpilot | facebook */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    /** Where customers leave a review (the external profile), or the public page's path for parley. */
    reviewUrl: text('review_url'),
    /** Public identifier of a parley source's page, /r/{code}. */
    code: text('code').notNull(),
    config: jsonb('config').$type<ReviewSourceConfig>().notNull().default({}),
    isActive: boolean('is_active').notNull().default(true),
    lastImportedAt: timestamp('last_imported_at', { withTimezone: true }),
    lastImportError: text('last_import_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('review_sources_code_key').on(t.code), index('review_sources_account_idx').on(t.accountId)],
);

export const reviews = pgTable(
  'reviews',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => reviewSources.id, { onDelete: 'cascade' }),
    /** The review's id at the external source; null for reviews left on Parley's own page. */
    externalId: text('external_id'),
    reviewerName: text('reviewer_name').notNull().default(''),
    reviewerEmail: text('reviewer_email'),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    rating: smallint('rating').notNull(),
    text: text('text').notNull().default(''),
    replyText: text('reply_text'),
    repliedAt: timestamp('replied_at', { withTimezone: true }),
    /** Why posting the reply to the source failed, if it did (the reply is kept). */
    replyError: text('reply_error'),
    /** Chosen for the testimonials snippet. */
    isFeatured: boolean('is_featured').notNull().default(false),
    /** When the reviewer wrote it (the source's time for imported reviews). */
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('reviews_source_external_key').on(t.sourceId, t.externalId),
    index('reviews_account_idx').on(t.accountId, t.reviewedAt, t.id),
  ],
);

/** Settings → Reviews → Email setup: one row per account. */
export const reviewRequestSettings = pgTable('review_request_settings', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  isEnabled: boolean('is_enabled').notNull().default(false),
  senderName: text('sender_name').notNull().default(''),
  /** The From address: one of the account's verified sender addresses (section 3 "verifiedEmails"). */
  senderEmail: text('sender_email'),
  subject: text('subject').notNull().default(''),
  body: text('body').notNull().default(''),
  sourceId: integer('source_id').references(() => reviewSources.id, { onDelete: 'set null' }),
  /** Only ask when the conversation's CSAT rating was at least this (1-5); null asks everyone. */
  minCsat: smallint('min_csat'),
  /** At most one request per contact in this many days. */
  periodDays: integer('period_days').notNull().default(30),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One sent review request: the once-per-period rule reads these; the unsubscribe link names a row's token. */
export const reviewRequests = pgTable(
  'review_requests',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    token: text('token').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('review_requests_token_key').on(t.token), index('review_requests_contact_idx').on(t.accountId, t.contactId, t.sentAt)],
);

/** Contacts who asked not to receive review requests. */
export const reviewRequestOptOuts = pgTable(
  'review_request_opt_outs',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('review_request_opt_outs_key').on(t.accountId, t.contactId)],
);
