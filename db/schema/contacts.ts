import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, primaryKey, serial, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';
import { tags } from './inbox';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Companies of the account's contacts (CRM). */
export const companies = pgTable(
  'companies',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Lower-case host, e.g. example.com; contacts whose email is at this domain are linked when bindWithDomain. */
    domain: text('domain'),
    url: text('url'),
    description: text('description'),
    phone: text('phone'),
    address: jsonb('address').$type<ContactAddress>().notNull().default({}),
    /** Denormalised from address.country for filtering in SQL. */
    country: text('country'),
    bindWithDomain: boolean('bind_with_domain').notNull().default(false),
    isFavourite: boolean('is_favourite').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('companies_account_name_idx').on(t.accountId, sql`lower(${t.name})`),
    index('companies_account_domain_idx').on(t.accountId, t.domain),
    index('companies_account_country_idx').on(t.accountId, t.country),
    index('companies_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
  ],
);

export type ContactAddress = { country?: string; locality?: string; streetAddress?: string; postalCode?: string };

/**
 * People who write to the account. The inbox creates them from inbound senders; the CRM area owns their
 * screens and adds companies, segments and notes.
 */
export const contacts = pgTable(
  'contacts',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email'),
    phone: text('phone'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    title: text('title'),
    website: text('website'),
    address: jsonb('address').$type<ContactAddress>().notNull().default({}),
    isFavourite: boolean('is_favourite').notNull().default(false),
    /** Denormalised from address.country for filtering in SQL (segments at a million contacts). */
    country: text('country'),
    companyId: integer('company_id').references(() => companies.id, { onDelete: 'set null' }),
    /** The agent who owns the relationship (segment condition assigneeId). */
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    /** Where the contact first came from: email, web, sms, support_form, internal_ticket, import... */
    source: text('source'),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    /** Last message, note or page view: what the list calls interaction time. */
    lastInteractionAt: timestamp('last_interaction_at', { withTimezone: true }),
    /** Names, email and its parts, phone: for the global search (with trigram indexes for partial names). */
    search: tsvector('search').generatedAlwaysAs(
      sql`to_tsvector('simple', coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || translate(coalesce(email, ''), '@.+_-', '     ') || ' ' || coalesce(phone, ''))`,
    ),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contacts_account_email_key')
      .on(t.accountId, sql`lower(${t.email})`)
      .where(sql`${t.email} is not null`),
    index('contacts_account_phone_idx').on(t.accountId, t.phone),
    index('contacts_account_created_idx').on(t.accountId, t.id),
    index('contacts_account_country_sort_idx').on(t.accountId, t.country, t.id),
    index('contacts_account_email_sort_idx').on(t.accountId, sql`lower(${t.email})`, t.id),
    index('contacts_account_interaction_idx').on(t.accountId, t.lastInteractionAt.desc().nullsLast(), t.id.desc()),
    index('contacts_account_company_idx').on(t.accountId, t.companyId),
    // Segment conditions (country, assignee, favourite, company) and the tag filter's join: every column a
    // condition reads is in the key, so the page's total is counted from the index alone (bench/crm.ts: a
    // segment on assignee + country counted 100,000 heap rows in 590 ms before).
    index('contacts_account_country_idx').on(t.accountId, t.country, t.assigneeId, t.isFavourite, t.companyId, t.id),
    index('contacts_account_assignee_idx').on(t.accountId, t.assigneeId, t.country, t.isFavourite, t.companyId, t.id),
    // Sort by name (both directions, any page) walks this index instead of sorting a million rows.
    index('contacts_account_name_idx').on(t.accountId, sql`lower(${t.firstName})`, sql`lower(${t.lastName})`, t.id),
    index('contacts_account_favourite_idx')
      .on(t.accountId)
      .where(sql`${t.isFavourite}`),
    index('contacts_search_idx').using('gin', t.search),
    index('contacts_name_trgm_idx').using('gin', sql`(lower(first_name || ' ' || last_name)) gin_trgm_ops`),
    index('contacts_email_trgm_idx').using('gin', sql`lower(coalesce(email, '')) gin_trgm_ops`),
  ],
);

export const contactTags = pgTable(
  'contact_tags',
  {
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.tagId] }), index('contact_tags_tag_idx').on(t.accountId, t.tagId, t.contactId)],
);

export const companyTags = pgTable(
  'company_tags',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.tagId] }), index('company_tags_tag_idx').on(t.accountId, t.tagId)],
);

/** Notes on a contact or a company (one table; exactly one of the two is set). */
export const crmNotes = pgTable(
  'crm_notes',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'cascade' }),
    companyId: integer('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('crm_notes_contact_idx').on(t.accountId, t.contactId), index('crm_notes_company_idx').on(t.accountId, t.companyId)],
);

export type SegmentConditions = {
  assigneeId?: number | null;
  tag?: number | null;
  company?: number | null;
  country?: string | null;
  isFavourite?: string | null;
};

/** Saved groups of contacts or companies: static (chosen ids) or dynamic (conditions applied in SQL). */
export const segments = pgTable(
  'segments',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'contact' | 'company'>().notNull(),
    name: text('name').notNull(),
    isStatic: boolean('is_static').notNull(),
    conditions: jsonb('conditions').$type<SegmentConditions>().notNull().default({}),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('segments_account_kind_idx').on(t.accountId, t.kind)],
);

/** Members of static segments (contact or company ids, by the segment's kind). */
export const segmentMembers = pgTable(
  'segment_members',
  {
    segmentId: integer('segment_id')
      .notNull()
      .references(() => segments.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.segmentId, t.memberId] })],
);

/** Import statuses as the specification numbers them: 1 Pending, 2 Under Progress, 3 Ready for Import. */
export const contactImports = pgTable(
  'contact_imports',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    status: smallint('status').notNull().default(1),
    filename: text('filename').notNull(),
    /** Path of the uploaded file under PARLEY_DATA_DIR. */
    storageKey: text('storage_key').notNull(),
    mapping: jsonb('mapping').$type<Record<string, string>>().notNull().default({}),
    duplicateMode: text('duplicate_mode').$type<'skip' | 'update'>().notNull().default('skip'),
    totalRows: integer('total_rows').notNull().default(0),
    processedRows: integer('processed_rows').notNull().default(0),
    createdRows: integer('created_rows').notNull().default(0),
    updatedRows: integer('updated_rows').notNull().default(0),
    failedRows: integer('failed_rows').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('contact_imports_account_idx').on(t.accountId, t.createdAt)],
);

export const contactImportErrors = pgTable(
  'contact_import_errors',
  {
    id: serial('id').primaryKey(),
    importId: integer('import_id')
      .notNull()
      .references(() => contactImports.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
    rowNumber: integer('row_number').notNull(),
    reason: text('reason').notNull(),
    row: jsonb('row').$type<Record<string, string>>().notNull(),
  },
  (t) => [index('contact_import_errors_import_idx').on(t.importId, t.rowNumber)],
);

/** Visits reported by the messenger widget: the CRM's live view and the engine's page-URL conditions read them. */
export const pageViews = pgTable(
  'page_views',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    visitorId: text('visitor_id').notNull(),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    url: text('url').notNull(),
    title: text('title'),
    referrer: text('referrer'),
    country: text('country'),
    userAgent: text('user_agent'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('page_views_live_idx').on(t.accountId, t.lastSeenAt),
    index('page_views_visitor_idx').on(t.accountId, t.visitorId, t.lastSeenAt),
    // Rules read a contact's latest page (page URL and referral conditions).
    index('page_views_contact_idx')
      .on(t.accountId, t.contactId, t.lastSeenAt)
      .where(sql`${t.contactId} is not null`),
  ],
);

/**
 * How a channel without email or phone knows a contact: a messenger visitor, a Facebook page-scoped id, an X user
 * id, a Google Business conversation. One contact may have several.
 */
export const contactIdentities = pgTable(
  'contact_identities',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** 'widget' | 'facebook' | 'twitter' | 'google_business' | 'site_user' … */
    channel: text('channel').notNull(),
    externalId: text('external_id').notNull(),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.channel, t.externalId] }), index('contact_identities_contact_idx').on(t.contactId)],
);
