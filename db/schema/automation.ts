import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import type { RoutingRuleType } from './automation-constants';
import { inboxes } from './inbox';
import { teams, users } from './users';
import type { RuleAction, RuleCondition, RuleFilter } from '../../app/models/automation/rule-types';

/** One open period of a week day: day 0 (Sunday) to 6, times 'HH:mm' in the business hours' time zone. */
export type BusinessTiming = { day: number; startTime: string; endTime: string };
/** A closed local day, 'YYYY-MM-DD' in the business hours' time zone. */
export type BusinessHoliday = { name: string; dateVal: string };

export const businessHours = pgTable(
  'business_hours',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    timezone: text('timezone').notNull(),
    /** Open around the clock (24x7): timings are kept but not used. */
    allDay: boolean('all_day').notNull().default(false),
    haveHolidays: boolean('have_holidays').notNull().default(false),
    timings: jsonb('timings').$type<BusinessTiming[]>().notNull().default([]),
    holidays: jsonb('holidays').$type<BusinessHoliday[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('business_hours_account_idx').on(t.accountId)],
);

// ---------------------------------------------------------------------------------------------------------
// Rules: workflows (/workflows) and inbox automation rules (Settings → Automations) are one table, one
// evaluator and one run log. Their shapes are in app/models/automation/rule-types.ts.

export type RuleKind = 'workflow' | 'inbox_rule';

export const automationRules = pgTable(
  'automation_rules',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<RuleKind>().notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** The trigger event ("when"): a domain event type. */
    event: text('event').notNull(),
    /** Inbox rules: the source type and the inboxes they watch (empty = every inbox). */
    sourceType: text('source_type'),
    sources: jsonb('sources').$type<number[]>().notNull().default([]),
    conditions: jsonb('conditions').$type<RuleCondition[]>().notNull().default([]),
    conditionOperator: text('condition_operator').$type<'and' | 'or'>().notNull().default('and'),
    filters: jsonb('filters').$type<RuleFilter[]>().notNull().default([]),
    actions: jsonb('actions').$type<RuleAction[]>().notNull().default([]),
    isActive: boolean('is_active').notNull().default(false),
    createdById: integer('created_by_id').references(() => users.id, {
      onDelete: 'set null',
    }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('automation_rules_list_idx').on(t.accountId, t.kind, t.createdAt), index('automation_rules_event_idx').on(t.accountId, t.event)],
);

/**
 * The append-only run log. A run is one (event, rule): it reads `matched` or `not_matched` (with the condition
 * that decided), then one line per action (`action_applied`, `action_skipped`, `action_failed`). A run's state
 * is derived from its lines. The unique index on ended actions is the idempotency key: an action and its
 * `action_applied` line commit in one transaction, so a redelivered event cannot apply it twice.
 */
export type RunStep = 'matched' | 'not_matched' | 'loop_skipped' | 'plan_skipped' | 'action_applied' | 'action_skipped' | 'action_failed';

export const automationRunLog = pgTable(
  'automation_run_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    eventType: text('event_type').notNull(),
    ruleId: integer('rule_id')
      .notNull()
      .references(() => automationRules.id, { onDelete: 'cascade' }),
    step: text('step').$type<RunStep>().notNull(),
    actionIndex: smallint('action_index'),
    actionType: text('action_type'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    conversationId: integer('conversation_id'),
    contactId: integer('contact_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // An action ends once (applied or skipped; failures may repeat across retries); a run is decided once.
    uniqueIndex('automation_run_log_action_uq')
      .on(t.eventId, t.ruleId, t.actionIndex)
      .where(sql`step in ('action_applied', 'action_skipped')`),
    uniqueIndex('automation_run_log_decision_uq')
      .on(t.eventId, t.ruleId)
      .where(sql`action_index is null`),
    index('automation_run_log_rule_idx').on(t.accountId, t.ruleId, t.id),
    index('automation_run_log_conversation_idx')
      .on(t.accountId, t.conversationId, t.id)
      .where(sql`conversation_id is not null`),
    index('automation_run_log_event_idx').on(t.eventId),
  ],
);

/** One rule's verdict on an event, as kept in automation_event_verdicts (the line's detail without the step). */
export type RuleVerdict = { step: 'matched' | 'not_matched' | 'loop_skipped' | 'plan_skipped'; reason?: string; decidedBy?: unknown };

/**
 * The verdicts of every rule evaluated for one event, in one row (ADR 106): keyed by rule id. The row is the
 * decision's idempotency key (a redelivery finds it and keeps the earlier verdicts); the run log then holds only
 * the action lines. Its id comes from the run log's sequence, so runs are ordered across both tables. Readers
 * (run-history.server.ts, the workflows report) see each verdict as the per-rule line the run log used to hold.
 */
export const automationEventVerdicts = pgTable(
  'automation_event_verdicts',
  {
    eventId: bigint('event_id', { mode: 'number' }).primaryKey(),
    id: bigint('id', { mode: 'number' })
      .notNull()
      .default(sql`nextval('automation_run_log_id_seq')`),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    verdicts: jsonb('verdicts').$type<Record<string, RuleVerdict>>().notNull(),
    conversationId: integer('conversation_id'),
    contactId: integer('contact_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('automation_event_verdicts_account_idx').on(t.accountId, t.id),
    index('automation_event_verdicts_conversation_idx')
      .on(t.accountId, t.conversationId, t.id)
      .where(sql`conversation_id is not null`),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Routing (Settings → Automations → Routing): one rule per inbox.

export { ROUTING_RULES, type RoutingRuleType } from './automation-constants';
/** A URL subrule: a visitor whose page URL matches goes to the user. condition is a text match operator. */
export type RoutingSubrule = {
  value: string;
  condition: 'contains' | 'equals' | 'startsWith' | 'endsWith';
  userId: number;
};

export const routingRules = pgTable(
  'routing_rules',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    inboxId: integer('inbox_id')
      .notNull()
      .references(() => inboxes.id, { onDelete: 'cascade' }),
    rule: text('rule').$type<RoutingRuleType>().notNull(),
    /** Most open conversations an agent may hold through this rule (null: no limit). */
    assignLimit: integer('assign_limit'),
    /** The team rule hands out among this team's members. */
    teamId: integer('team_id').references(() => teams.id, {
      onDelete: 'set null',
    }),
    subrules: jsonb('subrules').$type<RoutingSubrule[]>().notNull().default([]),
    /** Round robin's cursor: the user who got the last conversation. */
    lastAssignedUserId: integer('last_assigned_user_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('routing_rules_inbox_uq').on(t.inboxId), index('routing_rules_account_idx').on(t.accountId)],
);

/** Which agents are connected now (written by the websocket server, read by routing's active_agents rule). */
export const agentPresence = pgTable(
  'agent_presence',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    connections: integer('connections').notNull().default(0),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('agent_presence_account_idx').on(t.accountId)],
);

// ---------------------------------------------------------------------------------------------------------
// SLA policies (Settings → Automations → SLA Policy)

export const SLA_UNITS = ['minute', 'hour', 'day', 'month'] as const;
export type SlaUnit = (typeof SLA_UNITS)[number];
export type SlaTarget = {
  priority: 'critical' | 'high' | 'medium' | 'low' | 'default';
  response: { value: number; unit: SlaUnit };
  resolve: { value: number; unit: SlaUnit };
};

export const slaPolicies = pgTable(
  'sla_policies',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The inboxes the policy covers; empty = every inbox without a policy of its own. */
    inboxIds: jsonb('inbox_ids').$type<number[]>().notNull().default([]),
    targets: jsonb('targets').$type<SlaTarget[]>().notNull(),
    isEscalate: boolean('is_escalate').notNull().default(false),
    escalateTo: jsonb('escalate_to').$type<string[]>().notNull().default([]),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sla_policies_account_idx').on(t.accountId)],
);
