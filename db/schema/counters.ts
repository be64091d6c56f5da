import { bigserial, index, integer, pgTable, smallint, text } from 'drizzle-orm/pg-core';

/**
 * Conversation counts as signed deltas (ADR 032): a trigger on conversations appends +1 for the row's new
 * (inbox, status, assignee, team, priority, source) and -1 for its old one, in the writer's transaction. Appending
 * never waits on another writer (a single counter row per group would serialise every new conversation of an
 * inbox); readers sum the account's rows and fold them into one row per group when they pile up.
 */
export const conversationCountDeltas = pgTable(
  'conversation_count_deltas',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id').notNull(),
    inboxId: integer('inbox_id').notNull(),
    status: text('status').notNull(),
    assigneeId: integer('assignee_id'),
    teamId: integer('team_id'),
    priority: smallint('priority').notNull(),
    sourceType: text('source_type').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [index('conversation_count_deltas_account_idx').on(t.accountId)],
);
