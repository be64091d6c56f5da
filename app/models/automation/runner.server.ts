import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { RunStep } from '../../../db/schema/automation';
import { evaluateRule, type Evaluation, type Facts } from '../../../engine/rules/evaluate';
import type { DomainEvent } from '../../../engine/handlers/types';
import { getLogger } from '../../utils/logger.server';
import { applyAction } from './actions.server';
import { gatherFacts } from './facts.server';
import { ACTIONS_BY_EVENT, INBOX_RULE_EVENTS, WORKFLOW_EVENTS, type RuleAction } from './rule-types';

/** Every event type some rule can wait for. */
export const RULE_EVENTS = [...new Set<string>([...WORKFLOW_EVENTS, ...INBOX_RULE_EVENTS])];

/** How long a chain of automation-made events may grow before rules stop reacting (a guard against A→B→A loops). */
export const MAX_CHAIN = 8;

type Rule = Pick<
  typeof schema.automationRules.$inferSelect,
  'id' | 'event' | 'sourceType' | 'sources' | 'conditions' | 'conditionOperator' | 'filters' | 'actions'
>;
type LogLine = typeof schema.automationRunLog.$inferInsert;

export class ActionsFailedError extends Error {}
/** Undoes a skipped action's partial writes (its savepoint) while keeping the reason. */
class RolledBack extends Error {}

/**
 * Runs the account's active rules waiting for this event: each rule's decision (with what decided it) and each
 * action's outcome go to the run log. Idempotent: a decision is made once per (event, rule) and reused on
 * redelivery; an action and its `action_applied` line commit together, so an action already ended is never
 * applied again. An unexpected failure is logged (`action_failed`), the rule's later actions wait, and the error
 * is rethrown so that the job is retried with backoff (and ends in the dead letters if it keeps failing).
 */
export async function runRulesForEvent(event: DomainEvent) {
  if (!RULE_EVENTS.includes(event.type)) return { rules: 0 };
  const db = getDb();
  const r = schema.automationRules;
  const rules = await db
    .select({
      id: r.id,
      event: r.event,
      sourceType: r.sourceType,
      sources: r.sources,
      conditions: r.conditions,
      conditionOperator: r.conditionOperator,
      filters: r.filters,
      actions: r.actions,
    })
    .from(schema.automationRules)
    .where(
      and(
        eq(schema.automationRules.accountId, event.accountId),
        eq(schema.automationRules.event, event.type),
        eq(schema.automationRules.isActive, true),
        // Workflows are a plan feature (advanceWorkflows): an account whose plan lost it keeps its workflows, but
        // they stop running — enforced here, not only on the screens.
        sql`(${r.kind} <> 'workflow' or coalesce((select (p.features -> 'workflowAutomation' ->> 'advanceWorkflows')::boolean
              from ${schema.accounts} a join ${schema.plans} p on p.id = a.plan_id where a.id = ${event.accountId}), false))`,
      ),
    )
    .orderBy(schema.automationRules.id);
  if (rules.length === 0) return { rules: 0 };

  const facts = await gatherFacts(event);
  const enginesInChain = event.actorType === 'engine' ? await engineActorsInChain(event) : { ruleIds: new Set<number>(), depth: 0 };
  const line = (rule: Rule, step: RunStep, detail: Record<string, unknown>, action?: { index: number; type: string }): LogLine => ({
    accountId: event.accountId,
    eventId: event.id,
    eventType: event.type,
    ruleId: rule.id,
    step,
    actionIndex: action?.index ?? null,
    actionType: action?.type ?? null,
    detail,
    conversationId: facts.conversation?.id ?? null,
    contactId: facts.contact?.id ?? null,
  });

  const decisions: LogLine[] = rules.map((rule) => {
    if (enginesInChain.ruleIds.has(rule.id) || enginesInChain.depth >= MAX_CHAIN) {
      const reason = enginesInChain.ruleIds.has(rule.id)
        ? 'the event was caused by this rule’s own actions'
        : `the chain of automated events reached ${MAX_CHAIN}`;
      return line(rule, 'loop_skipped', { reason });
    }
    const evaluation: Evaluation = evaluateRule(rule, facts);
    return line(rule, evaluation.matched ? 'matched' : 'not_matched', {
      reason: evaluation.reason,
      ...(evaluation.decidedBy ? { decidedBy: evaluation.decidedBy } : {}),
    });
  });
  // A decision is made once per (event, rule): on a redelivery the insert finds the earlier one, which stands (the
  // first actions may have changed the facts since).
  const inserted = new Set(
    (await db.insert(schema.automationRunLog).values(decisions).onConflictDoNothing().returning({ ruleId: schema.automationRunLog.ruleId })).map(
      (r) => r.ruleId,
    ),
  );
  const decided = new Map(decisions.filter((d) => inserted.has(d.ruleId)).map((d) => [d.ruleId, d.step]));
  if (inserted.size < rules.length) {
    const earlier = await db
      .select({ ruleId: schema.automationRunLog.ruleId, step: schema.automationRunLog.step })
      .from(schema.automationRunLog)
      .where(
        and(eq(schema.automationRunLog.eventId, event.id), eq(schema.automationRunLog.accountId, event.accountId), isNull(schema.automationRunLog.actionIndex)),
      );
    for (const e of earlier) if (!inserted.has(e.ruleId)) decided.set(e.ruleId, e.step);
  }
  const toRun = rules.filter((rule) => decided.get(rule.id) === 'matched');

  const failures: string[] = [];
  let applied = 0;
  for (const rule of toRun) {
    const offered = ACTIONS_BY_EVENT[event.type as keyof typeof ACTIONS_BY_EVENT] ?? [];
    for (const [index, action] of (rule.actions as RuleAction[]).entries()) {
      if (!offered.includes(action.type)) {
        await db
          .insert(schema.automationRunLog)
          .values(line(rule, 'action_skipped', { reason: `${action.type} is not offered for ${event.type}` }, { index, type: action.type }))
          .onConflictDoNothing();
        continue;
      }
      const outcome = await runAction({
        rule,
        index,
        action,
        event,
        facts,
        line,
      });
      if (outcome === 'failed') {
        failures.push(`rule ${rule.id} action ${index + 1} (${action.type})`);
        break;
      }
      if (outcome === 'applied') applied++;
    }
  }
  if (failures.length) throw new ActionsFailedError(`automation actions failed: ${failures.join('; ')}`);
  return { rules: rules.length, matched: toRun.length, applied };
}

async function runAction(opts: {
  rule: Rule;
  index: number;
  action: RuleAction;
  event: DomainEvent;
  facts: Facts;
  line: (rule: Rule, step: RunStep, detail: Record<string, unknown>, action?: { index: number; type: string }) => LogLine;
}): Promise<'applied' | 'skipped' | 'done-before' | 'failed'> {
  const { rule, index, action, event, facts, line } = opts;
  const where = { index, type: action.type };
  try {
    return await getDb().transaction(async (tx) => {
      // Claim the action first: a concurrent or earlier run that ended it makes this insert a no-op.
      const [claim] = await tx
        .insert(schema.automationRunLog)
        .values(line(rule, 'action_applied', {}, where))
        .onConflictDoNothing()
        .returning({ id: schema.automationRunLog.id });
      if (!claim) return 'done-before';
      // A savepoint, so that a skipped action leaves nothing half-done behind.
      const outcome = await tx
        .transaction(async (sp) => {
          const result = await applyAction(sp, {
            accountId: event.accountId,
            action,
            facts,
            cause: { eventId: event.id, ruleId: rule.id },
          });
          if (!result.applied) throw new RolledBack(result.reason);
          return result;
        })
        .catch((err) => {
          if (err instanceof RolledBack) return { applied: false as const, reason: err.message };
          throw err;
        });
      await tx
        .update(schema.automationRunLog)
        .set(outcome.applied ? { detail: { result: outcome.result } } : { step: 'action_skipped', detail: { reason: outcome.reason } })
        .where(eq(schema.automationRunLog.id, claim.id));
      return outcome.applied ? 'applied' : 'skipped';
    });
  } catch (err) {
    // A database error reaches us wrapped by the ORM ("Failed query: …"): its cause says what went wrong.
    const cause = (err as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : (err as Error).message ?? String(err);
    getLogger().warn({ eventId: event.id, ruleId: rule.id, action: action.type, err: message }, 'automation action failed');
    await getDb()
      .insert(schema.automationRunLog)
      .values(line(rule, 'action_failed', { error: message.slice(0, 1000) }, where));
    return 'failed';
  }
}

/** The rules whose actions led to this event (following its causes), and how many automated steps the chain has. */
async function engineActorsInChain(event: DomainEvent) {
  const rows = await getDb().execute<{
    actor_type: string;
    actor_id: number | null;
    depth: number;
  }>(sql`
    with recursive chain as (
      select id, caused_by_event_id, actor_type, actor_id, 1 as depth from ${schema.domainEvents}
       where id = ${event.id} and account_id = ${event.accountId}
      union all
      select e.id, e.caused_by_event_id, e.actor_type, e.actor_id, chain.depth + 1 from ${schema.domainEvents} e
        join chain on e.id = chain.caused_by_event_id
       where chain.depth < ${MAX_CHAIN + 1} and e.account_id = ${event.accountId}
    )
    select actor_type, actor_id, depth from chain`);
  const ruleIds = new Set<number>();
  let depth = 0;
  for (const r of rows) {
    if (r.actor_type === 'engine' && r.actor_id !== null) ruleIds.add(Number(r.actor_id));
    if (r.actor_type === 'engine') depth++;
  }
  return { ruleIds, depth };
}
