import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ChatbotConditions, ChatbotStep, RunStatus } from '../../app/models/chatbots/constants';
import { accounts } from './accounts';
import { conversations } from './inbox';
import { users } from './users';

/**
 * A chatbot (ADR 075): a flow of steps kept as one validated JSON list, attached to web inboxes with a priority and
 * conditions. The flow is saved whole, so a visitor never meets a half-edited bot.
 */
export const chatbots = pgTable(
  'chatbots',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(false),
    /** Web inboxes of the account it answers in (checked on save; an inbox deleted later is simply not matched). */
    inboxIds: integer('inbox_ids').array().notNull().default(sql`'{}'::integer[]`),
    /** Higher first when several bots match a new conversation. */
    priority: integer('priority').notNull().default(0),
    conditions: jsonb('conditions').$type<ChatbotConditions>().notNull(),
    steps: jsonb('steps').$type<ChatbotStep[]>().notNull().default(sql`'[]'::jsonb`),
    createdById: integer('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('chatbots_account_idx').on(t.accountId)],
);

/** One bot talking in one conversation: where it is in the flow, and how it ended (the bot's figures count these). */
export const chatbotRuns = pgTable(
  'chatbot_runs',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    botId: integer('bot_id')
      .notNull()
      .references(() => chatbots.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    status: text('status').$type<RunStatus>().notNull().default('running'),
    /** The step waiting for the visitor's answer (a question, a detail to collect, a search). */
    waitingStepId: text('waiting_step_id'),
    /** The bot message that asked it: the widget and chat page show its buttons. */
    waitingMessageId: bigint('waiting_message_id', { mode: 'number' }),
    lastAnswer: text('last_answer'),
    /** Why it stopped: 'agent' replied, the visitor asked for a 'human', or the flow 'ended'. */
    endReason: text('end_reason'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('chatbot_runs_conversation_key').on(t.conversationId), index('chatbot_runs_bot_idx').on(t.accountId, t.botId)],
);
