import { bigint, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per migration run that changed the schema: which Parley version migrated, to which migration, from where
 * (ADR 154). An older build that meets a newer schema reads the newest row to name the version it should be
 * (db/migrate.ts), so these columns are a contract with every later release: add columns, never rename or drop these.
 */
export const schemaUpgrades = pgTable('schema_upgrades', {
  id: serial('id').primaryKey(),
  /** package.json's version of the build that migrated. */
  parleyVersion: text('parley_version').notNull(),
  /** The newest migration's tag after the run (`0035_schema_upgrades`). */
  migration: text('migration').notNull(),
  /** That migration's `when`, as drizzle records it in `drizzle.__drizzle_migrations.created_at`. */
  migrationCreatedAt: bigint('migration_created_at', { mode: 'number' }).notNull(),
  /** How many migrations this run applied. */
  migrationsApplied: integer('migrations_applied').notNull(),
  /** The host name of the process that migrated. */
  host: text('host'),
  migratedAt: timestamp('migrated_at', { withTimezone: true }).notNull().defaultNow(),
});
