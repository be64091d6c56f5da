import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  type AnyPgColumn,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { chatbots } from './chatbots';
import { businessHours } from './automation';
import { contacts } from './contacts';
import { teams, users } from './users';
import type { ChannelType, ConversationStatus, SourceType } from './inbox-constants';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export { CHANNEL_TYPES, CONVERSATION_STATUSES, PRIORITIES, SOURCE_TYPES } from './inbox-constants';
export type { ChannelType, ConversationStatus, Priority, SourceType } from './inbox-constants';

export type EmailInboxSettings = {
  /** How mail reaches Parley. */
  mode: 'forwarding' | 'imap' | 'http';
  /** lastUid/uidValidity: how far the IMAP reader got (a new UIDVALIDITY starts it again from the mailbox's end). */
  imap?: MailServerSettings & { mailbox: string; lastUid?: number; uidValidity?: string };
  smtp?: MailServerSettings;
  /** Gmail / Microsoft 365 connected over OAuth (ADR 158): the grant whose access token IMAP and SMTP log in with. */
  oauth?: MailOAuthGrant;
};

/**
 * An OAuth grant for a mailbox (ADR 158). Tokens are sealed with the secret box (purpose `email-oauth`); `expiresAt`
 * is the access token's (ISO). `revokedAt` is set when the token endpoint answered invalid_grant: the admin must
 * connect again. `grantId` changes at each connect, so the IMAP manager reconnects with the new grant.
 */
export type MailOAuthGrant = {
  provider: 'google' | 'microsoft';
  email: string;
  grantId: string;
  refreshToken: string;
  accessToken: string;
  expiresAt: string;
  revokedAt?: string | null;
  revokedReason?: string | null;
};

/**
 * How Parley reaches an IMAP or SMTP server. secure = TLS from the first byte; otherwise `tls` says whether to
 * upgrade with STARTTLS ('starttls', also the default of older rows) or never ('none'). An empty user means the
 * server is a relay that does not authenticate. `pin` trusts one certificate (SHA-256 fingerprint and its PEM)
 * for this inbox only, for self-signed and private-CA servers (ADR 025).
 */
export type MailServerSettings = {
  host: string;
  port: number;
  secure: boolean;
  tls?: 'starttls' | 'none';
  user: string;
  password: string;
  pin?: { fingerprint: string; pem: string };
  /** 'xoauth2': logs in with the inbox's OAuth grant (settings.oauth) instead of the password (ADR 158). */
  auth?: 'password' | 'xoauth2';
  /** With xoauth2: the grant it logs in with (settings.oauth.grantId), so that connecting again restarts IMAP. */
  grantId?: string;
};

export const inboxes = pgTable(
  'inboxes',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    channelType: text('channel_type').$type<ChannelType>().notNull(),
    /** The support address customers write to (email inboxes). */
    email: text('email'),
    /** Local part of the forwarding address at the inbound domain; unique across the installation. */
    forwardingToken: text('forwarding_token'),
    forwardingVerifiedAt: timestamp('forwarding_verified_at', { withTimezone: true }),
    /** Secret of the raw-MIME HTTP endpoint and of signed webhooks. */
    secret: text('secret'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    /** The business hours SLA targets are counted in; none = around the clock. */
    businessHoursId: integer('business_hours_id').references(() => businessHours.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('inboxes_account_idx').on(t.accountId),
    uniqueIndex('inboxes_forwarding_token_key').on(t.forwardingToken),
    uniqueIndex('inboxes_account_name_key').on(t.accountId, sql`lower(${t.name})`),
  ],
);

export const conversations = pgTable(
  'conversations',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    subject: text('subject').notNull().default(''),
    status: text('status').$type<ConversationStatus>().notNull().default('open'),
    priority: smallint('priority').notNull().default(0),
    sourceType: text('source_type').$type<SourceType>().notNull(),
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true }),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true }).notNull().defaultNow(),
    lastMessagePreview: text('last_message_preview').notNull().default(''),
    messageCount: integer('message_count').notNull().default(0),
    mergedIntoId: integer('merged_into_id'),
    /**
     * Words of the subject and of every message and note, without positions (strip): one GIN lookup answers
     * a text search over a whole inbox. Kept up to date by addMessage; rebuilt on merge, split, edit, delete.
     */
    search: tsvector('search'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    /** SLA: the policy that set the due times, the due times, and when each was met or breached. */
    slaPolicyId: integer('sla_policy_id'),
    firstResponseDueAt: timestamp('first_response_due_at', {
      withTimezone: true,
    }),
    resolveDueAt: timestamp('resolve_due_at', { withTimezone: true }),
    firstRespondedAt: timestamp('first_responded_at', { withTimezone: true }),
    responseBreachedAt: timestamp('response_breached_at', {
      withTimezone: true,
    }),
    resolveBreachedAt: timestamp('resolve_breached_at', { withTimezone: true }),
  },
  (t) => [
    // The list's order is (last message, id), newest first by default: with id in the index, ascending (read
    // backwards it is exactly `desc, desc` with nulls first, as the query asks), the first page is an index walk that
    // stops at row 50; before, the planner sorted every match (a parallel seq scan at 100k conversations, ADR 130).
    index('conversations_list_idx')
      .on(t.accountId, t.status, t.lastMessageAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    index('conversations_all_idx')
      .on(t.accountId, t.lastMessageAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    // "Created" order is id order (ids are handed out at creation).
    index('conversations_created_idx')
      .on(t.accountId, t.status, t.id)
      .where(sql`${t.deletedAt} is null`),
    index('conversations_assignee_idx')
      .on(t.accountId, t.assigneeId, t.status, t.lastMessageAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    index('conversations_inbox_idx')
      .on(t.accountId, t.inboxId, t.status, t.lastMessageAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    index('conversations_team_idx')
      .on(t.accountId, t.teamId, t.status)
      .where(sql`${t.deletedAt} is null`),
    index('conversations_contact_idx').on(t.accountId, t.contactId),
    index('conversations_search_idx').using('gin', t.search),
  ],
);

export type EmailHeaders = { messageId?: string; inReplyTo?: string; references?: string[]; from?: string; to?: string[]; cc?: string[]; bcc?: string[] };

export const messages = pgTable(
  'messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    /** incoming from the contact, outgoing to the contact, a private note, or a system event line. */
    kind: text('kind').$type<'incoming' | 'outgoing' | 'note' | 'system'>().notNull(),
    senderUserId: integer('sender_user_id').references(() => users.id, { onDelete: 'set null' }),
    senderContactId: integer('sender_contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    text: text('text').notNull().default(''),
    /** Sanitised HTML (sanitize-html at ingestion); never raw. */
    html: text('html'),
    email: jsonb('email').$type<EmailHeaders>(),
    /** The Message-ID header, for threading replies. */
    emailMessageId: text('email_message_id'),
    /** The id the channel's provider gave the message (Twilio's MessageSid, Meta's mid...): status callbacks find it by this. */
    externalId: text('external_id'),
    deliveryStatus: text('delivery_status').$type<'queued' | 'sent' | 'delivered' | 'failed'>(),
    deliveryError: text('delivery_error'),
    /** The road a sent message took: 'email', 'sms', 'widget', 'facebook'... (ADR 033: what left by email or SMS stays as sent). */
    deliveredVia: text('delivered_via'),
    fromTrustedDomain: boolean('from_trusted_domain').notNull().default(false),
    /** Written by this chatbot (ADR 075): an outgoing message no agent sent. */
    botId: integer('bot_id').references((): AnyPgColumn => chatbots.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    editedAt: timestamp('edited_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('messages_thread_idx').on(t.conversationId, t.id),
    index('messages_account_message_id_idx').on(t.accountId, t.emailMessageId),
    index('messages_external_id_idx')
      .on(t.accountId, t.externalId)
      .where(sql`${t.externalId} is not null`),
  ],
);

export const attachments = pgTable(
  'attachments',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    messageId: bigint('message_id', { mode: 'number' }).references(() => messages.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    /** Path under PARLEY_DATA_DIR/attachments. */
    storageKey: text('storage_key').notNull(),
    contentId: text('content_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('attachments_message_idx').on(t.messageId), index('attachments_account_idx').on(t.accountId)],
);

export const tags = pgTable(
  'tags',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color').notNull().default('blue'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tags_account_name_key').on(t.accountId, sql`lower(${t.name})`)],
);

export const conversationTags = pgTable(
  'conversation_tags',
  {
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tagId] }), index('conversation_tags_tag_idx').on(t.accountId, t.tagId)],
);

export const cannedResponses = pgTable(
  'canned_responses',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    message: text('message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('canned_responses_account_idx').on(t.accountId)],
);

export const emailTemplates = pgTable(
  'email_templates',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    subject: text('subject').notNull().default(''),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('email_templates_account_idx').on(t.accountId)],
);

export const trustedDomains = pgTable(
  'trusted_domains',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    domainName: text('domain_name').notNull(),
    domainUrl: text('domain_url').notNull(),
    /** The host part of domainUrl, lower-cased: what sender addresses are matched against. */
    host: text('host').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('trusted_domains_account_host_key').on(t.accountId, t.host)],
);

export type ContactFormFields = { phone: boolean; attachments: boolean; captcha: boolean };

export const contactForms = pgTable(
  'contact_forms',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    headerText: text('header_text').notNull(),
    subHeaderText: text('sub_header_text').notNull(),
    submitText: text('submit_text').notNull(),
    submitMsg: text('submit_msg').notNull(),
    allowFields: jsonb('allow_fields').$type<ContactFormFields>().notNull().default({ phone: false, attachments: false, captcha: false }),
    isActive: boolean('is_active').notNull().default(true),
    /** Public identifier in the form's URL and embed snippet. */
    code: text('code').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('contact_forms_code_key').on(t.code), index('contact_forms_account_idx').on(t.accountId)],
);

/**
 * A browser that opened the messenger widget or a chat page. The visitor keeps a signed token naming this row;
 * the contact is created on the first message (or matched at once by a signed user identity).
 */
export const widgetVisitors = pgTable(
  'widget_visitors',
  {
    id: text('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, {
      onDelete: 'set null',
    }),
    /** The site's own user id, when the site passed a signed identity. */
    externalUserId: text('external_user_id'),
    /** The conversation this browser chats in: a visitor reads only it (not every conversation of its contact). */
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    /** Until when the visitor counts as present: an open widget socket pushes it forward on every ping (ADR 033). */
    presentUntil: timestamp('present_until', { withTimezone: true }),
  },
  (t) => [index('widget_visitors_contact_idx').on(t.accountId, t.contactId), index('widget_visitors_external_idx').on(t.inboxId, t.externalUserId)],
);
