import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';

/** Append-only log of everything that matters; the engine reacts to these rows (delivered by pg-boss). */
export const domainEvents = pgTable(
  'domain_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    subjectType: text('subject_type').notNull(),
    subjectId: text('subject_id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    actorType: text('actor_type').$type<'user' | 'system' | 'engine' | 'contact'>().notNull().default('system'),
    actorId: integer('actor_id'),
    causedByEventId: bigint('caused_by_event_id', { mode: 'number' }),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    /** Where a web request that wrote the event came from (the audit log, ADR 070); null for the engine and jobs. */
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('domain_events_account_idx').on(t.accountId, t.occurredAt),
    // A subject's events by type in log order (ADR 108 addendum): the analytics projection's look-ups of a
    // conversation's creation, latest assignment and first reply stop at the first row instead of reading all its events.
    index('domain_events_subject_idx').on(t.accountId, t.subjectType, t.subjectId, t.type, t.id),
    // The analytics projection's four look-ups of a conversation (ADR 127): its creation, its latest assignment, an
    // earlier reply by an agent, its tag changes. Each reads only its own rows (the tag changes, not every update), and
    // none can fall back, on a plan made with stale statistics, to reading the whole account's events of that type.
    index('domain_events_conversation_created_idx')
      .on(t.accountId, t.subjectId, t.id)
      .where(sql`subject_type = 'conversation' and type = 'conversation_created'`),
    index('domain_events_conversation_assigned_idx')
      .on(t.accountId, t.subjectId, t.id)
      .where(sql`subject_type = 'conversation' and type = 'conversation_assigned'`),
    index('domain_events_conversation_replies_idx')
      .on(t.accountId, t.subjectId, t.id)
      .where(sql`subject_type = 'conversation' and type = 'message_created' and actor_type = 'user' and (payload ->> 'kind') = 'outgoing'`),
    index('domain_events_conversation_tags_idx')
      .on(t.accountId, t.subjectId, t.id)
      .where(sql`subject_type = 'conversation' and type = 'conversation_updated' and (payload -> 'changed') ? 'tags'`),
    // The audit log's filters (ADR 070): by event type or by actor, newest first.
    index('domain_events_account_type_idx').on(t.accountId, t.type, t.occurredAt),
    index('domain_events_account_actor_idx').on(t.accountId, t.actorId, t.occurredAt),
  ],
);

/** Every mail Parley sends; without SMTP_URL this table is the development mailbox. */
export const outboundEmails = pgTable(
  'outbound_emails',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    transport: text('transport').$type<'smtp' | 'mailbox'>().notNull(),
    status: text('status').$type<'sent' | 'stored' | 'failed'>().notNull(),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('outbound_emails_to_idx').on(t.to),
    // The operator console's recent delivery failures (ADR 152): only the failed rows, newest first.
    index('outbound_emails_failed_idx')
      .on(t.createdAt)
      .where(sql`status = 'failed'`),
  ],
);

export const notifications = pgTable(
  'notifications',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    link: text('link'),
    eventId: bigint('event_id', { mode: 'number' }),
    /** What it is about (ADR 034): assigned, team_assigned, customer_message, mention, sla_warning, sla_breached. */
    kind: text('kind'),
    conversationId: integer('conversation_id'),
    /** Set when the batched email that carried it left (or was not wanted); null while one may still carry it. */
    emailedAt: timestamp('emailed_at', { withTimezone: true }),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('notifications_user_idx').on(t.accountId, t.userId, t.createdAt)],
);

/**
 * An agent's browser subscribed to desktop notifications (ADR 155): the push service endpoint and the keys the payload
 * is encrypted to (RFC 8291), made from Settings → Notification. One row per endpoint and account: the same browser
 * subscribed again by another agent of the account (a shared desk) now belongs to that agent. A 404 or 410 from the
 * push service deletes the row; any other failure is recorded on it (and shown on the settings page).
 */
export const agentPushSubscriptions = pgTable(
  'agent_push_subscriptions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    /** What the last failed send met (the push service's status, or the network error), without the endpoint. */
    lastFailure: text('last_failure'),
  },
  (t) => [
    uniqueIndex('agent_push_subscriptions_account_endpoint_key').on(t.accountId, t.endpoint),
    index('agent_push_subscriptions_user_idx').on(t.accountId, t.userId),
  ],
);

/** Engines write here every few seconds, so a web process can tell whether an engine is consuming events. */
export const engineHeartbeats = pgTable('engine_heartbeats', {
  id: text('id').primaryKey(),
  seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One row per (event, handler) that has run: a redelivered event never applies a handler's work twice. */
export const eventHandlings = pgTable(
  'event_handlings',
  {
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    handler: text('handler').notNull(),
    accountId: integer('account_id').notNull(),
    status: text('status').$type<'done' | 'failed'>().notNull(),
    result: jsonb('result').$type<Record<string, unknown>>(),
    error: text('error'),
    handledAt: timestamp('handled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.handler] })],
);

/**
 * Rate-limit windows shared by every Parley process (web, engine, several replicas): a fixed window per key
 * (e.g. `signin:<account>:<email>`). Installation-wide on purpose: keys name the account where it matters.
 * UNLOGGED (hand-written in migration 0026, ADR 112): no WAL per counted attempt; a crash forgets open windows.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    count: integer('count').notNull().default(0),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('rate_limits_reset_idx').on(t.resetAt)],
);
