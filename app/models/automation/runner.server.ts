import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { RunStep } from '../../../db/schema/automation';
import { evaluateRule, type Evaluation, type Facts } from '../../../engine/rules/evaluate';
import type { DomainEvent } from '../../../engine/handlers/types';
import { getLogger } from '../../utils/logger.server';
import { applyAction } from './actions.server';
import { gatherFacts } from './facts.server';
import { activeRulesFor, type ActiveRule } from './rule-cache.server';
import { ACTIONS_BY_EVENT, INBOX_RULE_EVENTS, WORKFLOW_EVENTS, type RuleAction } from './rule-types';

/** Every event type some rule can wait for. */
export const RULE_EVENTS = [...new Set<string>([...WORKFLOW_EVENTS, ...INBOX_RULE_EVENTS])];

/** How long a chain of automation-made events may grow before rules stop reacting (a guard against A→B→A loops). */
export const MAX_CHAIN = 8;

type Rule = ActiveRule;
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
export async function runRulesForEvent(event: DomainEvent, opts: { recordAs?: string } = {}) {
  if (!RULE_EVENTS.includes(event.type)) return { rules: 0 };
  // From memory while the engine runs (ADR 031): most events meet no rule and cost no read at all.
  const rules: Rule[] = await activeRulesFor(event.accountId, event.type);
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

  // Most events match no rule: then the decisions and the handler's record are one statement (one round trip, one
  // commit). Only a first delivery may take this path; a redelivery (some decisions already there) goes the long
  // way below, which reuses the earlier decisions and finishes what they left.
  if (!decisions.some((d) => d.step === 'matched')) {
    const inserted = await insertDecisionsAlone(event, decisions, opts.recordAs);
    if (inserted === decisions.length) return { rules: rules.length, matched: 0, applied: 0 };
  }

  // The decisions and every action of the event commit together, in one transaction (one commit per event, not
  // one per action). Each action still claims its own line and runs in its own savepoint.
  const failures: string[] = [];
  let applied = 0;
  let matched = 0;
  await getDb().transaction(async (tx) => {
    // Not waiting for this commit to reach the disk is safe: the job is completed later, by a commit that is
    // waited for and that comes after this one in the WAL, so a crash that loses this loses the completion too,
    // and the event is delivered again (ADR 031).
    await tx.execute(sql`select set_config('synchronous_commit', 'off', true)`);
    // A decision is made once per (event, rule): on a redelivery the insert finds the earlier one, which stands (the
    // first actions may have changed the facts since). A concurrent delivery waits here until this one commits.
    const inserted = new Set(
      (await tx.insert(schema.automationRunLog).values(decisions).onConflictDoNothing().returning({ ruleId: schema.automationRunLog.ruleId })).map(
        (r) => r.ruleId,
      ),
    );
    const decided = new Map(decisions.filter((d) => inserted.has(d.ruleId)).map((d) => [d.ruleId, d.step]));
    if (inserted.size < rules.length) {
      const earlier = await tx
        .select({ ruleId: schema.automationRunLog.ruleId, step: schema.automationRunLog.step })
        .from(schema.automationRunLog)
        .where(
          and(
            eq(schema.automationRunLog.eventId, event.id),
            eq(schema.automationRunLog.accountId, event.accountId),
            isNull(schema.automationRunLog.actionIndex),
          ),
        );
      for (const e of earlier) if (!inserted.has(e.ruleId)) decided.set(e.ruleId, e.step);
    }
    const toRun = rules.filter((rule) => decided.get(rule.id) === 'matched');
    matched = toRun.length;
    const offered = ACTIONS_BY_EVENT[event.type as keyof typeof ACTIONS_BY_EVENT] ?? [];
    for (const rule of toRun) {
      for (const [index, action] of (rule.actions as RuleAction[]).entries()) {
        if (!offered.includes(action.type)) {
          await tx
            .insert(schema.automationRunLog)
            .values(line(rule, 'action_skipped', { reason: `${action.type} is not offered for ${event.type}` }, { index, type: action.type }))
            .onConflictDoNothing();
          continue;
        }
        const outcome = await runAction(tx, { rule, index, action, event, facts, line });
        if (outcome === 'failed') {
          failures.push(`rule ${rule.id} action ${index + 1} (${action.type})`);
          break;
        }
        if (outcome === 'applied') applied++;
      }
    }
    // The engine's record that this handler ran the event, in the same commit (see processEvent).
    if (opts.recordAs && failures.length === 0) {
      const result = { rules: rules.length, matched, applied };
      await tx
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: opts.recordAs, accountId: event.accountId, status: 'done', result })
        .onConflictDoUpdate({
          target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
          set: { status: 'done', result, error: null, handledAt: new Date() },
        });
    }
  });
  if (failures.length) throw new ActionsFailedError(`automation actions failed: ${failures.join('; ')}`);
  return { rules: rules.length, matched, applied };
}

/**
 * The decisions (none matched) and, when all of them are new, the handler's record, in one statement without waiting
 * for the disk (see the transaction below for why that is safe). Returns how many decisions were new.
 */
async function insertDecisionsAlone(event: DomainEvent, decisions: LogLine[], recordAs: string | undefined) {
  const l = decisions[0];
  const lines = JSON.stringify(decisions.map((d) => ({ rule_id: d.ruleId, step: d.step, detail: d.detail })));
  const result = { rules: decisions.length, matched: 0, applied: 0 };
  const [row] = await getDb().execute<{ inserted: number }>(sql`
    with sync as (select set_config('synchronous_commit', 'off', true) as v),
    d as (
      insert into ${schema.automationRunLog} (account_id, event_id, event_type, rule_id, step, detail, conversation_id, contact_id)
      select ${event.accountId}, ${event.id}, ${event.type}, x.rule_id, x.step, x.detail, ${l.conversationId ?? null}::int, ${l.contactId ?? null}::int
        from jsonb_to_recordset(${lines}::jsonb) as x(rule_id int, step text, detail jsonb)
      on conflict do nothing
      returning rule_id
    ),
    h as (
      insert into ${schema.eventHandlings} (event_id, handler, account_id, status, result)
      select ${event.id}, ${recordAs ?? ''}, ${event.accountId}, 'done', ${JSON.stringify(result)}::jsonb
       where ${recordAs !== undefined} and (select count(*) from d) = ${decisions.length}
      on conflict (event_id, handler) do update set status = 'done', result = excluded.result, error = null, handled_at = now()
      returning 1
    )
    select (select count(*) from d)::int as inserted, (select count(*) from h)::int as recorded, (select count(*) from sync)::int as sync`);
  return Number(row.inserted);
}

/** An action already ended by an earlier or concurrent delivery: its savepoint's writes are undone. */
class DoneBefore extends Error {}

async function runAction(
  tx: Tx,
  opts: {
    rule: Rule;
    index: number;
    action: RuleAction;
    event: DomainEvent;
    facts: Facts;
    line: (rule: Rule, step: RunStep, detail: Record<string, unknown>, action?: { index: number; type: string }) => LogLine;
  },
): Promise<'applied' | 'skipped' | 'done-before' | 'failed'> {
  const { rule, index, action, event, facts, line } = opts;
  const where = { index, type: action.type };
  try {
    // A savepoint per action: a skipped or failed action leaves nothing half-done, and the others stand.
    return await tx.transaction(async (sp) => {
      const result = await applyAction(sp, {
        accountId: event.accountId,
        action,
        facts,
        cause: { eventId: event.id, ruleId: rule.id },
      });
      if (!result.applied) throw new RolledBack(result.reason);
      // The claim: unique per (event, rule, action). If another delivery ended this action first, the insert
      // finds its line (after waiting for its commit) and this savepoint's writes are undone.
      const [claim] = await sp
        .insert(schema.automationRunLog)
        .values(line(rule, 'action_applied', { result: result.result }, where))
        .onConflictDoNothing()
        .returning({ id: schema.automationRunLog.id });
      if (!claim) throw new DoneBefore();
      return 'applied' as const;
    });
  } catch (err) {
    if (err instanceof DoneBefore) return 'done-before';
    if (err instanceof RolledBack) {
      const [claim] = await tx
        .insert(schema.automationRunLog)
        .values(line(rule, 'action_skipped', { reason: err.message }, where))
        .onConflictDoNothing()
        .returning({ id: schema.automationRunLog.id });
      return claim ? 'skipped' : 'done-before';
    }
    // A database error reaches us wrapped by the ORM ("Failed query: …"): its cause says what went wrong.
    const cause = (err as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : (err as Error).message ?? String(err);
    getLogger().warn({ eventId: event.id, ruleId: rule.id, action: action.type, err: message }, 'automation action failed');
    await tx.insert(schema.automationRunLog).values(line(rule, 'action_failed', { error: message.slice(0, 1000) }, where));
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
