import { customType, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { inboxes } from './inbox';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** The parts of a channel whose health is tracked: reading mail, sending mail, the SMS provider, the social APIs. */
export const CHANNEL_PARTS = ['imap', 'smtp', 'sms', 'facebook', 'twitter'] as const;
export type ChannelPart = (typeof CHANNEL_PARTS)[number];

/** A certificate a server offered that the system's CAs do not trust: what the admin is shown to pin. */
export type OfferedCertificate = { fingerprint: string; subject: string; issuer: string; validTo: string; pem: string };

/**
 * One row per inbox and part (see ADR 024): when it last worked, the last error in plain words, and since when
 * it has been failing (null while it works). Written by the part itself (IMAP reader, sender, webhooks, API calls).
 */
export const channelHealth = pgTable(
  'channel_health',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    part: text('part').$type<ChannelPart>().notNull(),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
    lastError: text('last_error'),
    failingSince: timestamp('failing_since', { withTimezone: true }),
    /** The untrusted certificate seen on the last failed TLS handshake, for the admin to pin. */
    offeredCertificate: jsonb('offered_certificate').$type<OfferedCertificate>(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('channel_health_inbox_part_idx').on(t.inboxId, t.part), index('channel_health_account_idx').on(t.accountId)],
);

/**
 * Mail that could not be stored even after cleaning (see ADR 024): kept raw with the database's reason, listed
 * for admins, retryable. The channel moves on past it.
 */
export const quarantinedEmails = pgTable(
  'quarantined_emails',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    via: text('via').$type<'smtp' | 'imap' | 'http'>().notNull(),
    reason: text('reason').notNull(),
    raw: bytea('raw').notNull(),
    recipients: jsonb('recipients').$type<string[]>().notNull().default([]),
    envelopeFrom: text('envelope_from'),
    attempts: integer('attempts').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('quarantined_emails_inbox_idx').on(t.accountId, t.inboxId)],
);
