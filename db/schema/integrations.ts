import { boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { conversations } from './inbox';
import { users } from './users';

/**
 * One connected provider per account (ADR 078). Tokens and secrets are sealed with AES-256-GCM
 * (app/utils/secret-box.server.ts): these columns never hold a usable token.
 */
export const integrationConnections = pgTable(
  'integration_connections',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** shopify, bigcommerce, hubspot, pipedrive, github, asana, clickup. */
    provider: text('provider').notNull(),
    /** Who or what was connected: the shop's domain, the GitHub login, the store hash. */
    externalAccount: text('external_account').notNull().default(''),
    accessTokenSealed: text('access_token_sealed').notNull(),
    refreshTokenSealed: text('refresh_token_sealed'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    scopes: text('scopes').notNull().default(''),
    /** Signs the provider's webhooks to this connection (sealed); null when the provider signs with the app's secret. */
    webhookSecretSealed: text('webhook_secret_sealed'),
    /** Provider options: { defaultRepo, reopenOnClose, hookedRepos }. */
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    connectedByUserId: integer('connected_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('integration_connections_provider_key').on(t.accountId, t.provider), index('integration_connections_external_idx').on(t.provider, t.externalAccount)],
);

/** An issue or task at a provider linked to a conversation (created from it or linked by hand). */
export const integrationLinks = pgTable(
  'integration_links',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    /** The provider's key for the item: "owner/repo#12" for GitHub, the task gid for Asana, the task id for ClickUp. */
    externalId: text('external_id').notNull(),
    title: text('title').notNull().default(''),
    url: text('url').notNull().default(''),
    /** open or closed, as the provider last said. */
    status: text('status').notNull().default('open'),
    /** When the item closes, the conversation is reopened too. */
    reopenOnClose: boolean('reopen_on_close').notNull().default(false),
    createdByUserId: integer('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('integration_links_key').on(t.accountId, t.conversationId, t.provider, t.externalId),
    index('integration_links_external_idx').on(t.accountId, t.provider, t.externalId),
  ],
);

export const ORDER_IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type OrderImportStatus = (typeof ORDER_IMPORT_STATUSES)[number];

/**
 * An import of a store's past orders as sales (ADR 118), run as a job: its progress (pages read, orders seen) and
 * what it recorded, or why it failed. Sales themselves go through the one sales path (idempotent per order).
 */
export const integrationOrderImports = pgTable(
  'integration_order_imports',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** shopify or bigcommerce. */
    provider: text('provider').notNull(),
    /** The shop or store hash the orders were read from. */
    externalAccount: text('external_account').notNull().default(''),
    /** Orders created on or after this day only (null: all). */
    since: timestamp('since', { withTimezone: true }),
    status: text('status').$type<OrderImportStatus>().notNull().default('queued'),
    pages: integer('pages').notNull().default(0),
    /** Orders read from the store. */
    seen: integer('seen').notNull().default(0),
    /** Sales recorded by this import. */
    recorded: integer('recorded').notNull().default(0),
    /** Orders recorded before (by the webhook or an earlier import): not counted twice. */
    existing: integer('existing').notNull().default(0),
    /** Orders that are not sales (cancelled, declined, without an amount). */
    skipped: integer('skipped').notNull().default(0),
    message: text('message'),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('integration_order_imports_account_idx').on(t.accountId, t.provider, t.id)],
);
