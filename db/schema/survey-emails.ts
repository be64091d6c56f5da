import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts } from './contacts';
import { attachments, conversations, inboxes } from './inbox';
import { surveys } from './surveys';
import { users } from './users';

/** An uploaded respondent list of an email survey (survey-builder.md section 3, "CSV"): its name and its counts. */
export const surveyEmailLists = pgTable(
  'survey_email_lists',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    fileName: text('file_name').notNull(),
    successCount: integer('success_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    /** `mapping` while the uploaded file waits for its column mapping (the file under storageKey), then `ready`. */
    status: text('status').$type<'mapping' | 'ready'>().notNull().default('ready'),
    storageKey: text('storage_key'),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('survey_email_lists_survey_idx').on(t.accountId, t.surveyId)],
);

/** One address of an uploaded list, lower-cased, once per list. */
export const surveyEmailListEntries = pgTable(
  'survey_email_list_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id').notNull(),
    listId: integer('list_id')
      .notNull()
      .references(() => surveyEmailLists.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
  },
  (t) => [uniqueIndex('survey_email_list_entries_key').on(t.listId, t.email)],
);

/**
 * When an email survey is sent (section 3 "Schedule later", "Recurring"): now or at a local date and time in a time
 * zone, once or every N days. The recurrence is kept as an RFC 5545 rule (ADR 062); each occurrence is a timer job.
 */
export const surveyEmailSchedules = pgTable('survey_email_schedules', {
  surveyId: integer('survey_id')
    .primaryKey()
    .references(() => surveys.id, { onDelete: 'cascade' }),
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  sendLater: boolean('send_later').notNull().default(false),
  /** Local wall-clock time in `timezone`, 'YYYY-MM-DDTHH:mm'. */
  sendAt: text('send_at'),
  timezone: text('timezone'),
  recurring: boolean('recurring').notNull().default(false),
  intervalDays: integer('interval_days'),
  /** DTSTART;TZID=…:…\nRRULE:FREQ=DAILY;INTERVAL=N — what the next occurrence is computed from. */
  rrule: text('rrule'),
  /** Bumped by every publish and every change of the schedule: a timer job of an older generation does nothing. */
  generation: integer('generation').notNull().default(0),
  nextRunAt: timestamp('next_run_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One occurrence of an email survey's send: the recipients are resolved when it starts (tags and lists as they are then). */
export const surveyEmailSends = pgTable(
  'survey_email_sends',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    occurrenceAt: timestamp('occurrence_at', { withTimezone: true }).notNull(),
    /** resolving → sending → done. */
    status: text('status').$type<'resolving' | 'sending' | 'done'>().notNull().default('resolving'),
    total: integer('total').notNull().default(0),
    /** Resolving in slices (ADR 084): the last contact (or list entry) id whose slice is in the recipients. */
    resolvedThrough: bigint('resolved_through', { mode: 'number' }).notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('survey_email_sends_occurrence_key').on(t.surveyId, t.occurrenceAt)],
);

export type SurveyRecipientStatus = 'queued' | 'sending' | 'sent' | 'skipped' | 'failed' | 'bounced' | 'opened' | 'responded';

/**
 * One email of one occurrence to one address: claimed once (queued → sending → sent), its personal link's token,
 * and what became of it (bounced, opened, responded).
 */
export const surveyEmailRecipients = pgTable(
  'survey_email_recipients',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id').notNull(),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    sendId: integer('send_id')
      .notNull()
      .references(() => surveyEmailSends.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    /** Random, unique: the recipient's link, unsubscribe and response key. */
    token: text('token').notNull(),
    status: text('status').$type<SurveyRecipientStatus>().notNull().default('queued'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    openedAt: timestamp('opened_at', { withTimezone: true }),
    respondedAt: timestamp('responded_at', { withTimezone: true }),
    messageId: text('message_id'),
    error: text('error'),
  },
  (t) => [
    uniqueIndex('survey_email_recipients_send_email_key').on(t.sendId, t.email),
    uniqueIndex('survey_email_recipients_token_key').on(t.token),
    index('survey_email_recipients_survey_idx').on(t.accountId, t.surveyId, t.status),
    // The sender's claim walks the waiting rows of one send in id order.
    index('survey_email_recipients_waiting_idx')
      .on(t.sendId, t.id)
      .where(sql`${t.status} in ('queued', 'sending')`),
    index('survey_email_recipients_message_idx')
      .on(t.messageId)
      .where(sql`${t.messageId} is not null`),
  ],
);

/** Addresses an account never mails a survey again: unsubscribed (one click, RFC 8058) or bounced. */
export const emailSuppressions = pgTable(
  'email_suppressions',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    reason: text('reason').$type<'unsubscribed' | 'bounced'>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.email] })],
);

/**
 * Settings → Customer Satisfaction (suite.md sections 3, 5, 9): an email survey (a rating email when a conversation of
 * one of its inboxes is resolved) or a chat survey (the messenger asks when a chat is resolved).
 */
export const csatSurveys = pgTable(
  'csat_surveys',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'email' | 'chat'>().notNull(),
    inboxIds: integer('inbox_ids').array().notNull().default(sql`'{}'::integer[]`),
    subject: text('subject').notNull(),
    heading: text('heading').notNull().default(''),
    subHeading: text('sub_heading').notNull().default(''),
    footer: text('footer').notNull().default(''),
    ratingsType: text('ratings_type').$type<'star' | 'emoji'>().notNull().default('star'),
    commentEnabled: boolean('comment_enabled').notNull().default(false),
    commentEnabledBelow: integer('comment_enabled_below').notNull().default(3),
    commentTitle: text('comment_title').notNull().default('Can you tell us more about your experience?'),
    finishText: text('finish_text').notNull().default('Thank you for your valuable feedback'),
    allowMultipleFeedback: boolean('allow_multiple_feedback').notNull().default(false),
    /** The email's logo (png or jpeg under 2 MB, stored like an attachment). */
    logoAttachmentId: integer('logo_attachment_id').references(() => attachments.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('csat_surveys_account_idx').on(t.accountId, t.kind)],
);

/** One satisfaction request for a resolved conversation and, once given, its rating (1–5) and comment. */
export const csatRatings = pgTable(
  'csat_ratings',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    csatSurveyId: integer('csat_survey_id').references(() => csatSurveys.id, { onDelete: 'set null' }),
    kind: text('kind').$type<'email' | 'chat'>().notNull(),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id').references(() => inboxes.id, { onDelete: 'set null' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    teamId: integer('team_id'),
    /** True unless the survey allows multiple feedback: then a conversation has at most one (unique index below). */
    single: boolean('single').notNull().default(true),
    token: text('token').notNull(),
    email: text('email'),
    rating: integer('rating'),
    comment: text('comment'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    ratedAt: timestamp('rated_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('csat_ratings_token_key').on(t.token),
    uniqueIndex('csat_ratings_single_key')
      .on(t.conversationId)
      .where(sql`${t.single}`),
    index('csat_ratings_account_rated_idx').on(t.accountId, t.ratedAt),
    index('csat_ratings_conversation_idx').on(t.accountId, t.conversationId),
  ],
);
