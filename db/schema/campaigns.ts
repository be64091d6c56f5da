import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts, segments } from './contacts';
import { inboxes } from './inbox';
import { users } from './users';

/** Where, when and to whom a message campaign shows in the messenger, and which agent it speaks as (ADR 082). */
export type ChatCampaignSettings = {
  senderUserId: number | null;
  /** Page conditions as in-app surveys have them; empty = every page. */
  pages: { link: string; linkType: 'exact' | 'contain' | 'start' | 'end' }[];
  /** Seconds on the page before it shows. */
  delaySeconds: number;
  visitor: 'any' | 'new' | 'returning';
  businessHoursOnly: boolean;
};

/** A push segment condition (section 3): a visitor action (pageUrl, referrer…) or a browser property (os, browser…). */
export type PushCondition = { key: string; operator: string; value: string };

/** Campaigns → Push segments (section 3 "Push segment", ADR 083): who among the push subscribers a push campaign reaches. */
export const pushSegments = pgTable(
  'push_segments',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    actionOperator: text('action_operator').$type<'AND' | 'OR'>().notNull().default('AND'),
    actions: jsonb('actions').$type<PushCondition[]>().notNull().default([]),
    propertyOperator: text('property_operator').$type<'AND' | 'OR'>().notNull().default('AND'),
    properties: jsonb('properties').$type<PushCondition[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('push_segments_account_idx').on(t.accountId, t.id)],
);

/** The account's VAPID key pair (RFC 8292, ADR 083): the private key sealed with the secret box. */
export const pushVapidKeys = pgTable('push_vapid_keys', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  publicKey: text('public_key').notNull(),
  privateKeySealed: text('private_key_sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A browser's push subscription made through the messenger (ADR 083): the push service endpoint and the keys the
 * payload is encrypted to (RFC 8291), with the facts push segments match on, as seen when the visitor subscribed and
 * refreshed on each later visit of the subscribed visitor (ADR 115).
 */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id').references(() => inboxes.id, { onDelete: 'set null' }),
    visitorId: text('visitor_id'),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    pageUrl: text('page_url'),
    referrer: text('referrer'),
    referrerType: text('referrer_type').$type<'direct' | 'searchEngine' | 'refferal'>().notNull().default('direct'),
    browser: text('browser'),
    os: text('os'),
    platform: text('platform').$type<'desktop' | 'mobile'>().notNull().default('desktop'),
    location: text('location'),
    timezone: text('timezone'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The subscribed visitor's latest visit (ADR 115): the facts above are refreshed then; day and hour match it. */
    seenAt: timestamp('seen_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('push_subscriptions_account_endpoint_key').on(t.accountId, t.endpoint),
    index('push_subscriptions_account_visitor_idx').on(t.accountId, t.visitorId),
  ],
);

/** Settings → Productivity → Campaign Templates (section 3 "Campaign template"). */
export const campaignTemplates = pgTable(
  'campaign_templates',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    bodyHtml: text('body_html').notNull().default(''),
    /** Plain text derived from bodyHtml on save. */
    bodyText: text('body_text').notNull().default(''),
    /** The designer's layout serialised as text (the JavaScript designer's own state; the server never reads it). */
    textDesign: text('text_design'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('campaign_templates_account_name_key').on(t.accountId, sql`lower(${t.name})`)],
);

/**
 * One campaign of any kind (ADR 064). Status moves draft → scheduled → sending ⇄ paused → sent, and
 * draft/scheduled/paused → cancelled; counters are kept by the sender so the list never counts recipients.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'email' | 'sms' | 'message' | 'push'>().notNull(),
    name: text('name').notNull(),
    status: text('status').$type<'draft' | 'scheduled' | 'sending' | 'paused' | 'sent' | 'cancelled'>().notNull().default('draft'),
    segmentId: integer('segment_id').references(() => segments.id, { onDelete: 'set null' }),
    /** The sending inbox: an email inbox (the sender address) or an SMS inbox. */
    inboxId: integer('inbox_id').references(() => inboxes.id, { onDelete: 'set null' }),
    templateId: integer('template_id').references(() => campaignTemplates.id, { onDelete: 'set null' }),
    subject: text('subject').notNull().default(''),
    bodyHtml: text('body_html').notNull().default(''),
    bodyText: text('body_text').notNull().default(''),
    /** An email campaign's block design (ADR 095), kept only while bodyHtml is its rendering; null = hand-written html. */
    textDesign: text('text_design'),
    trackOpens: boolean('track_opens').notNull().default(true),
    trackClicks: boolean('track_clicks').notNull().default(true),
    /** A push campaign's segment, notification icon and destination (ADR 083); title is `subject`, body `bodyText`. */
    pushSegmentId: integer('push_segment_id').references(() => pushSegments.id, { onDelete: 'set null' }),
    push: jsonb('push').$type<{ icon: string | null; url: string }>(),
    /** A message (in-product chat) campaign's targeting and author (ADR 082); null for the other kinds. */
    chat: jsonb('chat').$type<ChatCampaignSettings>(),
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
    /** The time zone the schedule was typed in (shown back when editing). */
    timeZone: text('time_zone'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    recipientCount: integer('recipient_count').notNull().default(0),
    sentCount: integer('sent_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    /** Push: notifications the service worker reported shown. */
    deliveredCount: integer('delivered_count').notNull().default(0),
    // First open, first click, unsubscribe, reply and bounce per recipient, counted as they happen (the list reads
    // them without counting recipients).
    openedCount: integer('opened_count').notNull().default(0),
    clickedCount: integer('clicked_count').notNull().default(0),
    unsubscribedCount: integer('unsubscribed_count').notNull().default(0),
    repliedCount: integer('replied_count').notNull().default(0),
    bouncedCount: integer('bounced_count').notNull().default(0),
    /** Feedback-loop complaints (ARF reports naming the campaign's emails). */
    complainedCount: integer('complained_count').notNull().default(0),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('campaigns_account_idx').on(t.accountId, t.id.desc()), index('campaigns_account_status_idx').on(t.accountId, t.status)],
);

/**
 * The audience frozen when a send starts: one row per contact and campaign (the unique key is what makes
 * "never the same campaign twice"). A sender claims pending rows with SKIP LOCKED and marks each sent.
 */
export const campaignRecipients = pgTable(
  'campaign_recipients',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    /** The email address or phone number it goes to, frozen with the audience. */
    address: text('address').notNull(),
    status: text('status').$type<'pending' | 'sending' | 'sent' | 'failed' | 'skipped'>().notNull().default('pending'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    openedAt: timestamp('opened_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    clickedAt: timestamp('clicked_at', { withTimezone: true }),
    unsubscribedAt: timestamp('unsubscribed_at', { withTimezone: true }),
    repliedAt: timestamp('replied_at', { withTimezone: true }),
    bouncedAt: timestamp('bounced_at', { withTimezone: true }),
    error: text('error'),
    /** A message campaign's reply: the conversation it opened in the inbox (ADR 082). */
    conversationId: integer('conversation_id'),
  },
  (t) => [
    uniqueIndex('campaign_recipients_campaign_address_key').on(t.campaignId, t.address),
    index('campaign_recipients_pending_idx').on(t.campaignId, t.id).where(sql`${t.status} in ('pending', 'sending')`),
  ],
);

/** Per-recipient tracking events (open, click with its URL, unsubscribe, bounce, reply): the reports over time. */
export const campaignEvents = pgTable(
  'campaign_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    recipientId: bigint('recipient_id', { mode: 'number' }),
    kind: text('kind').$type<'delivered' | 'open' | 'click' | 'unsubscribe' | 'bounce' | 'complaint' | 'reply'>().notNull(),
    url: text('url'),
    meta: jsonb('meta').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('campaign_events_campaign_idx').on(t.accountId, t.campaignId, t.kind, t.createdAt)],
);

/** Addresses no later campaign reaches: unsubscribes, hard bounces, complaints, SMS STOP (per account and channel). */
export const campaignSuppressions = pgTable(
  'campaign_suppressions',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<'email' | 'sms' | 'push'>().notNull(),
    /** Lower-case email address or E.164 phone number. */
    address: text('address').notNull(),
    reason: text('reason').$type<'unsubscribed' | 'bounced' | 'complained' | 'stop'>().notNull(),
    campaignId: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.channel, t.address] })],
);
