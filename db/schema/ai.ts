import { index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';

/**
 * AI reply help (ADR 081): an account's own OpenAI-compatible server, which overrides the installation's. The key
 * is sealed (AES-256-GCM) and never read back to a page; a null cap means the installation's default.
 */
export const aiSettings = pgTable('ai_settings', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  baseUrl: text('base_url'),
  model: text('model'),
  apiKeySealed: text('api_key_sealed'),
  /** Tokens (prompt + completion) a calendar month (UTC); null: the installation's default. */
  monthlyTokenCap: integer('monthly_token_cap'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One row per AI call: who, which call, which model, how many tokens, how it ended. Never the text. */
export const aiRequests = pgTable(
  'ai_requests',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    conversationId: integer('conversation_id'),
    call: text('call').$type<'help-me-write' | 'modify-email-reply' | 'chat-reply-ai' | 'modify-chat-reply'>().notNull(),
    model: text('model').notNull(),
    status: text('status').$type<'ok' | 'error' | 'capped'>().notNull(),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    durationMs: integer('duration_ms').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_requests_account_created_idx').on(t.accountId, t.createdAt)],
);
