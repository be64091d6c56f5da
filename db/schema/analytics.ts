import { bigint, date, doublePrecision, index, integer, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** The columns every counter table is keyed by first: account, metric, dimension and key (ADR 090). */
const counterKey = () => ({
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  metric: text('metric').notNull(),
  dim: text('dim').notNull(),
  key: text('key').notNull(),
});

/**
 * Analytics projections (ADR 090): counters per account, UTC hour, metric and dimension, kept by the engine's
 * analytics handler as domain events arrive and rebuilt from the event log by `npm run parley -- analytics rebuild`.
 * `dim` is 'all' (key '') or one of inbox, channel, team, agent, tag, policy, priority, target; `n` counts, `total`
 * sums (seconds for durations, points for ratings).
 */
export const analyticsCounters = pgTable(
  'analytics_counters',
  {
    ...counterKey(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
    total: doublePrecision('total').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.metric, t.dim, t.key, t.hour] })],
);

/**
 * Duration histograms (first response, resolution) for medians and percentiles: bin b holds the durations s with
 * floor(4·log2(1+s)) = b (a bin spans 19 % of its value).
 */
export const analyticsDurations = pgTable(
  'analytics_durations',
  {
    ...counterKey(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    bin: smallint('bin').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.metric, t.dim, t.key, t.hour, t.bin] })],
);

/** The ledger of events already counted: a redelivered event finds its line and is not counted twice. */
export const analyticsAppliedEvents = pgTable(
  'analytics_applied_events',
  {
    eventId: bigint('event_id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id').notNull(),
    appliedAt: timestamp('applied_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('analytics_applied_events_account_idx').on(t.accountId)],
);

/**
 * The counters summed per local day of the account (ADR 125): a two-year range reads 730 day rows per key instead of
 * 17,520 hour rows. Filled from the hour rows for closed days by the roll-up job and by the rebuild, never by the
 * engine's projection; `analytics_rollups` says up to which day (and in which zone) they are complete.
 */
export const analyticsCountersDaily = pgTable(
  'analytics_counters_daily',
  {
    ...counterKey(),
    day: date('day', { mode: 'string' }).notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
    total: doublePrecision('total').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.metric, t.dim, t.key, t.day] })],
);

/** The duration histograms per local day (ADR 125). */
export const analyticsDurationsDaily = pgTable(
  'analytics_durations_daily',
  {
    ...counterKey(),
    day: date('day', { mode: 'string' }).notNull(),
    bin: smallint('bin').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.metric, t.dim, t.key, t.day, t.bin] })],
);

/**
 * Per account: the day rows are complete for every local day up to `throughDay` in `timeZone`, for every projected
 * event with an id up to `throughEventId` (ADR 125). A read uses them only for its zone, and only up to the day before
 * the earliest event after `throughEventId`.
 */
export const analyticsRollups = pgTable('analytics_rollups', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  timeZone: text('time_zone').notNull(),
  throughDay: date('through_day', { mode: 'string' }),
  throughEventId: bigint('through_event_id', { mode: 'number' }).notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
