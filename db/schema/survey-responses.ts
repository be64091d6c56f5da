import { sql } from 'drizzle-orm';
import { bigserial, boolean, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ResponseChannel, SurveyAnswers } from '../../app/models/surveys/response-types';
import { accounts } from './accounts';
import { contacts } from './contacts';
import { conversations, widgetVisitors } from './inbox';
import { surveys, surveyVersions } from './surveys';

/**
 * One response to a published survey version (ADR 060): the answers keyed by question id, as given. A `draft` holds
 * the answers of a respondent of a survey that takes no partial submissions until they finish: it is not a
 * response yet (not counted, listed or exported). A non-draft incomplete row is a partial response.
 */
export const surveyResponses = pgTable(
  'survey_responses',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    /** The version the respondent saw and answered (ADR 053): its questions give the answers their meaning. */
    surveyVersionId: integer('survey_version_id')
      .notNull()
      .references(() => surveyVersions.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<ResponseChannel>().notNull(),
    /** Unique per survey: the in-app module makes it (so a retried answer never starts a second response); the web pages get one from the server. */
    responseKey: text('response_key').notNull(),
    /** Who answers: the web respondent cookie, or `v:` and the widget visitor's id. */
    respondentKey: text('respondent_key').notNull(),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    widgetVisitorId: text('widget_visitor_id').references(() => widgetVisitors.id, { onDelete: 'set null' }),
    /** The respondent's conversation when the response began (the widget visitor's chat), for the workflows of survey_received. */
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    pageUrl: text('page_url'),
    answers: jsonb('answers').$type<SurveyAnswers>().notNull().default({}),
    draft: boolean('draft').notNull().default(false),
    complete: boolean('complete').notNull().default(false),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('survey_responses_key').on(t.surveyId, t.responseKey),
    index('survey_responses_respondent_idx').on(t.surveyId, t.respondentKey),
    // Text answers (newest first: a backward scan) and the CSV export (oldest first) walk a survey's responses in time
    // order. Plain ascending columns: drizzle's .desc() means DESC NULLS LAST, which `order by … desc` cannot use.
    index('survey_responses_survey_started_idx').on(t.surveyId, t.startedAt, t.id),
    index('survey_responses_account_idx').on(t.accountId, t.surveyId),
    index('survey_responses_contact_idx')
      .on(t.accountId, t.contactId)
      .where(sql`${t.contactId} is not null`),
  ],
);

/**
 * The results' counts as signed deltas (ADR 060, after ADR 032): every answer appends +1 for its value (and -1 for a
 * value it replaces); every response +1 to `responses`, every completion +1 to `completed`, under question id ''.
 * Appending never waits on another respondent; readers sum a survey's rows, and folds keep them few.
 */
export const surveyResultDeltas = pgTable(
  'survey_result_deltas',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id').notNull(),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    /** '' for the response counts; else the question's id. */
    questionId: text('question_id').notNull(),
    /** A scale value ('0'…'10'), a choice's text, '#' (answered), or 'responses' / 'completed'. */
    valueKey: text('value_key').notNull(),
    /** The response's start day (UTC): a response's counts stay on one day, so a changed answer cancels out. */
    day: date('day').notNull(),
    channel: text('channel').$type<ResponseChannel>().notNull(),
    n: integer('n').notNull(),
    /** A fold's row: one per (question, value, day, channel), which later folds add to. Writers append unfolded rows. */
    folded: boolean('folded').notNull().default(false),
  },
  (t) => [
    index('survey_result_deltas_survey_idx').on(t.surveyId, t.day),
    uniqueIndex('survey_result_deltas_folded_key')
      .on(t.surveyId, t.questionId, t.valueKey, t.day, t.channel)
      .where(sql`${t.folded}`),
    // How many rows wait to be folded: a count over this small index decides whether a reader folds first.
    index('survey_result_deltas_unfolded_idx')
      .on(t.surveyId)
      .where(sql`not ${t.folded}`),
  ],
);
