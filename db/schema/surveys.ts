import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { SurveyChannel, SurveyLanguage, SurveyStatus, SurveySubType } from '../../app/models/surveys/constants';
import type { SurveyDesign, SurveyMessages, SurveyQuestion, SurveySettings, SurveyTarget } from '../../app/models/surveys/types';
import { accounts } from './accounts';
import { attachments } from './inbox';
import { users } from './users';

/**
 * A folder of surveys (section 3 "Folder"). Every account has one default folder, General, public, which cannot be
 * renamed or deleted; a private folder's surveys are seen by the users in `user_ids` (and its creator, and admins).
 */
export const surveyFolders = pgTable(
  'survey_folders',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isPublic: boolean('is_public').notNull().default(true),
    userIds: integer('user_ids').array().notNull().default(sql`'{}'::integer[]`),
    isDefault: boolean('is_default').notNull().default(false),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('survey_folders_account_name_key').on(t.accountId, sql`lower(${t.name})`),
    uniqueIndex('survey_folders_account_default_key').on(t.accountId).where(sql`${t.isDefault}`),
  ],
);

/**
 * A survey: its working copy (design, messages, questions, target and settings that the editor saves) and, once
 * published, the version the public pages and the in-app module serve (ADR 053). Responses will reference
 * `survey_versions.id`, so editing a published survey never changes what earlier respondents answered.
 */
export const surveys = pgTable(
  'surveys',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The public link's key: /survey/web/{accountId}/{uniqueId}. Random, never derived from the id. */
    uniqueId: text('unique_id').notNull(),
    name: text('name').notNull(),
    folderId: integer('folder_id')
      .notNull()
      .references(() => surveyFolders.id, { onDelete: 'restrict' }),
    channel: text('channel').$type<SurveyChannel>().notNull(),
    subType: text('sub_type').$type<SurveySubType>().notNull(),
    status: text('status').$type<SurveyStatus>().notNull().default('draft'),
    language: text('language').$type<SurveyLanguage>().notNull().default('EN'),
    allowPartialSubmission: boolean('allow_partial_submission').notNull().default(true),
    /** Null: no limit. Reaching it completes the survey. */
    responseLimit: integer('response_limit'),
    /** Null: no cut-off. The day after it the survey is closed. */
    cutOffDate: date('cut_off_date'),
    logoAttachmentId: integer('logo_attachment_id').references(() => attachments.id, { onDelete: 'set null' }),
    design: jsonb('design').$type<SurveyDesign>().notNull(),
    messages: jsonb('messages').$type<SurveyMessages>().notNull(),
    questions: jsonb('questions').$type<SurveyQuestion[]>().notNull().default([]),
    target: jsonb('target').$type<SurveyTarget>().notNull(),
    publishedVersionId: integer('published_version_id'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    updatedById: integer('updated_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('surveys_unique_id_key').on(t.uniqueId),
    index('surveys_account_updated_idx').on(t.accountId, t.updatedAt.desc(), t.id),
    index('surveys_account_folder_idx').on(t.accountId, t.folderId),
  ],
);

/** What a version froze besides the JSONB parts: the settings that decide whether it still takes responses. */
export type SurveyVersionSettings = SurveySettings;

/** A published version: an immutable copy of the survey's content at publish time (ADR 053). */
export const surveyVersions = pgTable(
  'survey_versions',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    surveyId: integer('survey_id')
      .notNull()
      .references(() => surveys.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    name: text('name').notNull(),
    channel: text('channel').$type<SurveyChannel>().notNull(),
    subType: text('sub_type').$type<SurveySubType>().notNull(),
    logoAttachmentId: integer('logo_attachment_id').references(() => attachments.id, { onDelete: 'set null' }),
    design: jsonb('design').$type<SurveyDesign>().notNull(),
    messages: jsonb('messages').$type<SurveyMessages>().notNull(),
    questions: jsonb('questions').$type<SurveyQuestion[]>().notNull(),
    target: jsonb('target').$type<SurveyTarget>().notNull(),
    settings: jsonb('settings').$type<SurveyVersionSettings>().notNull(),
    publishedById: integer('published_by_id').references(() => users.id, { onDelete: 'set null' }),
    publishedAt: timestamp('published_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('survey_versions_survey_version_key').on(t.surveyId, t.version), index('survey_versions_account_idx').on(t.accountId, t.surveyId)],
);
