import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';

/**
 * What the processes of one installation share so that N web and engine nodes behave as one (house rule 15). Every
 * row names the node that wrote it (`nodeId()`), so that a node's rows can be told from another's, refreshed by its
 * heartbeat, and left to expire when it dies.
 */

/**
 * Single-runner work (an inbox's IMAP connection, a periodic sweep): one holder per key at a time, until expiresAt.
 * A holder renews before it expires; anyone may take an expired lease (ADR in app/models/cluster/leases.server.ts).
 */
export const clusterLeases = pgTable('cluster_leases', {
  /** What is held, `area:id` (`imap:12`, `presence:sweep`). */
  key: text('key').primaryKey(),
  holder: text('holder').notNull(),
  acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * An agent's open sockets on one node. `agent_presence` (one row per user) is the cluster's sum of the fresh rows
 * here, kept by the same writers; a dead node's rows stop counting when their lastSeenAt is older than the TTL.
 */
export const agentPresenceNodes = pgTable(
  'agent_presence_nodes',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    connections: integer('connections').notNull().default(0),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.nodeId] }), index('agent_presence_nodes_node_idx').on(t.nodeId)],
);

/**
 * Who is looking at which conversation: one row per agent socket (node + connection), refreshed by the node's
 * heartbeat. The conversation is what the browser said it views (no foreign key: a hint, read only with the account).
 */
export const conversationViewers = pgTable(
  'conversation_viewers',
  {
    nodeId: text('node_id').notNull(),
    connectionId: text('connection_id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.nodeId, t.connectionId] }),
    index('conversation_viewers_conversation_idx').on(t.accountId, t.conversationId),
  ],
);
