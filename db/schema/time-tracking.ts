import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { conversations } from './inbox';
import { users } from './users';

/**
 * Time an agent spent on a conversation (ADR 071): a manual entry, or a timer (durationSeconds null while it runs).
 * The contact and company totals go through the conversation, so moving a conversation moves its time.
 */
export const timeEntries = pgTable(
  'time_entries',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    /** Null while the timer runs. */
    durationSeconds: integer('duration_seconds'),
    note: text('note').notNull().default(''),
    billable: boolean('billable').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('time_entries_conversation_idx').on(t.accountId, t.conversationId),
    index('time_entries_user_idx').on(t.accountId, t.userId, t.startedAt),
    // One running timer per agent and conversation: a second Start (double click, two tabs) is refused by the database.
    uniqueIndex('time_entries_running_idx').on(t.accountId, t.userId, t.conversationId).where(sql`${t.durationSeconds} is null`),
  ],
);
