import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { contacts } from './contacts';
import { conversations, inboxes } from './inbox';

/**
 * One field of a public form (ADR 067): the builder keeps the ordered list on the form row, so that adding,
 * removing and moving a row is one update of one row. `key` is stable across edits and names the answer.
 */
export type FormFieldDef = {
  key: string;
  type: string;
  label: string;
  required: boolean;
  /** The choices of a `choice` field. */
  options?: string[];
};

/** A stored answer: text, or for a file field the stored file. */
export type FormAnswer = string | { filename: string; contentType: string; size: number; storageKey: string };

export const forms = pgTable(
  'forms',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Public identifier in /f/{code} and the embed snippet. */
    code: text('code').notNull(),
    /** draft | published: only a published form answers on /f/{code}. */
    status: text('status').notNull().default('draft'),
    fields: jsonb('fields').$type<FormFieldDef[]>().notNull().default([]),
    headerText: text('header_text').notNull().default(''),
    description: text('description').notNull().default(''),
    submitText: text('submit_text').notNull().default('Submit'),
    brandColour: text('brand_colour').notNull().default('blue'),
    thankYouMessage: text('thank_you_message').notNull().default('Thank you, we received your answers.'),
    /** When set, the visitor is sent there after submitting instead of seeing the thank-you message. */
    redirectUrl: text('redirect_url'),
    captcha: boolean('captcha').notNull().default(true),
    /** When set, each response also opens a conversation in this inbox. */
    inboxId: integer('inbox_id').references(() => inboxes.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('forms_code_key').on(t.code), index('forms_account_idx').on(t.accountId, t.id)],
);

export const formResponses = pgTable(
  'form_responses',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    /** Answers by field key, with the field list as it was when submitted (labels can change later). */
    answers: jsonb('answers').$type<Record<string, FormAnswer>>().notNull().default({}),
    fieldsAtSubmit: jsonb('fields_at_submit').$type<FormFieldDef[]>().notNull().default([]),
    /** Lower-cased email for the list's search. */
    email: text('email'),
    /**
     * Stored, but its contact and conversation are not made yet: the engine's forms handler makes them from the
     * `form_submitted` event and clears this (ADR 112). False for every response before ADR 112.
     */
    pending: boolean('pending').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('form_responses_form_idx').on(t.accountId, t.formId, t.id),
    index('form_responses_email_idx').on(t.accountId, t.formId, sql`lower(${t.email})`),
  ],
);
