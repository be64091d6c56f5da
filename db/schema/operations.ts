import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The operator's console (ADR 152): the people who run this installation, apart from the accounts' users. Named by
 * the command line only (`npm run parley -- operator add EMAIL`); nothing on the web makes one.
 */
export const operators = pgTable(
  'operators',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    /** scrypt (app/utils/password.server.ts); null until the operator has set one through the link the CLI printed. */
    passwordHash: text('password_hash'),
    /** sha256 of the one-time set-password link's token the CLI printed; cleared once used. */
    setupTokenHash: text('setup_token_hash'),
    setupTokenExpiresAt: timestamp('setup_token_expires_at', { withTimezone: true }),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('operators_email_key').on(sql`lower(${t.email})`), uniqueIndex('operators_setup_token_key').on(t.setupTokenHash)],
);

/** An operator's signed-in browser: a host-only cookie on APP_HOST holds the id (signed), the row holds the rest. */
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    /** sha256 of the cookie's random id: a read of this table signs nobody in. */
    idHash: text('id_hash').primaryKey(),
    operatorId: integer('operator_id')
      .notNull()
      .references(() => operators.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId)],
);

/**
 * The installation's audit log: what operators (and the command line) did, to which account, when. No foreign keys:
 * an entry outlives the operator who was removed and the account that was deleted (its domain is kept as text).
 */
export const operatorAuditEntries = pgTable(
  'operator_audit_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Who: the operator's email at the time, or `command line` for the CLI. */
    actor: text('actor').notNull(),
    operatorId: integer('operator_id'),
    /** What: `account.suspend`, `account.resume`, `account.plan`, `account.delete`, `operator.add`, `operator.remove`, `operator.signin`... */
    action: text('action').notNull(),
    accountId: integer('account_id'),
    accountDomain: text('account_domain'),
    /** Plain facts (plan keys, the export archive's path and size, counts); never a secret. */
    details: jsonb('details').$type<Record<string, string | number | boolean | null>>().notNull().default({}),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('operator_audit_entries_created_idx').on(t.createdAt), index('operator_audit_entries_account_idx').on(t.accountId)],
);

/**
 * The processes of the installation, for the console's status page: each web and engine process writes its row once
 * a minute (one small write; ADR 142 keeps idle costs low) and deletes it when it stops. A row older than three
 * minutes is a process that died without saying so.
 */
export const nodeHeartbeats = pgTable('node_heartbeats', {
  nodeId: text('node_id').primaryKey(),
  /** `web`, `web+engine` (the inline engine) or `engine`. */
  role: text('role').notNull(),
  version: text('version').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
});
