import { sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { RuleVerdict, RunStep } from '../../../db/schema/automation';
import { evaluateRule, type Evaluation, type Facts } from '../../../engine/rules/evaluate';
import type { DomainEvent } from '../../../engine/handlers/types';
import { handHeldNotifies, holdNotifies, sendHeldNotifies } from '../../utils/live.server';
import { getLogger } from '../../utils/logger.server';
import { applyAction, type NameMemo } from './actions.server';
import { gatherFactsMany } from './facts.server';
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
 * Runs the account's active rules waiting for this event: the rules' verdicts (with what decided each) go to the
 * event's one verdicts row (ADR 106) and each action's outcome to the run log. Idempotent: a verdict is made once per
 * (event, rule) and reused on redelivery; an action and its `action_applied` line commit together, so an action already ended is never
 * applied again. An unexpected failure is logged (`action_failed`), the rule's later actions wait, and the error
 * is rethrown so that the job is retried with backoff (and ends in the dead letters if it keeps failing).
 */
export async function runRulesForEvent(event: DomainEvent, opts: { recordAs?: string } = {}) {
  const [outcome] = await runRulesForEvents([event], opts);
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

export type RulesOutcome = { rules: number; matched?: number; applied?: number };

/**
 * `runRulesForEvent` for a fetched batch of events (ADR 043): the rules from memory, the facts of every event in one
 * query, every verdict evaluated in memory; the verdicts of the whole batch (one row per event) and the handler records
 * of the events where no rule matched (most) in one statement (ADR 106); each event with a matched rule then applies its
 * actions in its own transaction, `concurrency` at a time. One event's failure is its own: the answer at its index is
 * the error, the others stand.
 */
export async function runRulesForEvents(events: DomainEvent[], opts: { recordAs?: string; concurrency?: number } = {}): Promise<(RulesOutcome | Error)[]> {
  const out: (RulesOutcome | Error)[] = events.map(() => ({ rules: 0 }));
  const withRules: { at: number; event: DomainEvent; rules: Rule[] }[] = [];
  for (const [at, event] of events.entries()) {
    if (!RULE_EVENTS.includes(event.type)) continue;
    // From memory while the engine runs (ADR 031): most events meet no rule and cost no read at all.
    const rules: Rule[] = await activeRulesFor(event.accountId, event.type);
    if (rules.length > 0) withRules.push({ at, event, rules });
  }
  if (withRules.length === 0) return out;

  let factsOf: Facts[];
  try {
    factsOf = await gatherFactsMany(withRules.map((w) => w.event));
  } catch (err) {
    for (const w of withRules) out[w.at] = err as Error;
    return out;
  }
  const runs: RuleRun[] = [];
  for (const [i, w] of withRules.entries()) {
    try {
      const facts = factsOf[i];
      const chain = w.event.actorType === 'engine' ? await engineActorsInChain(w.event) : { ruleIds: new Set<number>(), depth: 0 };
      runs.push({ at: w.at, event: w.event, rules: w.rules, facts, verdicts: decide(w.rules, facts, chain) });
    } catch (err) {
      out[w.at] = err as Error;
    }
  }

  // Every event's verdicts, one row per event (ADR 106), in one statement for the whole batch; a redelivery finds
  // the earlier row and its verdicts stand. The events where no rule matched (most) are finished by the same statement.
  let verdictsOf: Map<number, Record<string, RuleVerdict>>;
  try {
    verdictsOf = await writeVerdicts(runs, opts.recordAs);
  } catch (err) {
    for (const r of runs) out[r.at] = err as Error;
    return out;
  }
  const long: { run: RuleRun; matched: Set<number> }[] = [];
  for (const run of runs) {
    const verdicts = verdictsOf.get(run.event.id) ?? {};
    const matched = new Set(run.rules.filter((rule) => verdicts[String(rule.id)]?.step === 'matched').map((rule) => rule.id));
    if (!Object.values(verdicts).some((v) => v.step === 'matched')) out[run.at] = { rules: run.rules.length, matched: 0, applied: 0 };
    else long.push({ run, matched });
  }
  let next = 0;
  const lane = async () => {
    while (next < long.length) {
      const { run, matched } = long[next++];
      try {
        out[run.at] = await applyRuleRun(run, matched, opts.recordAs);
      } catch (err) {
        out[run.at] = err as Error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 1, long.length) }, lane));
  return out;
}

type RuleRun = { at: number; event: DomainEvent; rules: Rule[]; facts: Facts; verdicts: Record<string, RuleVerdict> };

function logLine(event: DomainEvent, facts: Facts) {
  return (rule: Rule, step: RunStep, detail: Record<string, unknown>, action?: { index: number; type: string }): LogLine => ({
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
}

function decide(rules: Rule[], facts: Facts, enginesInChain: { ruleIds: Set<number>; depth: number }): Record<string, RuleVerdict> {
  const verdicts: Record<string, RuleVerdict> = {};
  for (const rule of rules) {
    if (enginesInChain.ruleIds.has(rule.id) || enginesInChain.depth >= MAX_CHAIN) {
      const reason = enginesInChain.ruleIds.has(rule.id)
        ? 'the event was caused by this rule’s own actions'
        : `the chain of automated events reached ${MAX_CHAIN}`;
      verdicts[String(rule.id)] = { step: 'loop_skipped', reason };
      continue;
    }
    const evaluation: Evaluation = evaluateRule(rule, facts);
    verdicts[String(rule.id)] = {
      step: evaluation.matched ? 'matched' : 'not_matched',
      reason: evaluation.reason,
      ...(evaluation.decidedBy ? { decidedBy: evaluation.decidedBy } : {}),
    };
  }
  return verdicts;
}

/**
 * One event's matched rules' actions, in one transaction (one commit per event, not one per action). The verdicts
 * were written before (writeVerdicts); `matched` is the rules whose verdict, the earlier one on a redelivery, is a match.
 */
async function applyRuleRun(run: RuleRun, matchedRules: Set<number>, recordAs: string | undefined): Promise<RulesOutcome> {
  const { event, rules, facts } = run;
  const line = logLine(event, facts);
  const names: NameMemo = new Map();
  // Each action still claims its own line and runs in its own savepoint.
  const failures: string[] = [];
  let applied = 0;
  let matched = 0;
  await getDb().transaction(async (tx) => {
    // Not waiting for this commit to reach the disk is safe: the job is completed later, by a commit that is
    // waited for and that comes after this one in the WAL, so a crash that loses this loses the completion too,
    // and the event is delivered again (ADR 031).
    await tx.execute(sql`select set_config('synchronous_commit', 'off', true)`);
    const toRun = rules.filter((rule) => matchedRules.has(rule.id));
    matched = toRun.length;
    const offered = ACTIONS_BY_EVENT[event.type as keyof typeof ACTIONS_BY_EVENT] ?? [];
    // The actions' live updates go out in one statement before the commit (ADR 043 addendum).
    holdNotifies(tx);
    // Every action of the matched rules is claimed in one statement (ADR 043 addendum): its line, unique per
    // (event, rule, action), is written as applied and corrected below once the action has ended. A line that is
    // already there was ended by an earlier delivery (or a concurrent one, whose commit the insert waits for): it stands.
    const planned = toRun.flatMap((rule) => (rule.actions as RuleAction[]).map((action, index) => ({ rule, index, action })));
    const claimed = new Set(
      planned.length === 0
        ? []
        : (
            await tx
              .insert(schema.automationRunLog)
              .values(planned.map((p) => line(p.rule, 'action_applied', { result: '' }, { index: p.index, type: p.action.type })))
              .onConflictDoNothing()
              .returning({ ruleId: schema.automationRunLog.ruleId, index: schema.automationRunLog.actionIndex })
          ).map((r) => `${r.ruleId}:${r.index}`),
    );
    const ended: { ruleId: number; index: number; step: 'action_applied' | 'action_skipped'; detail: Record<string, unknown> }[] = [];
    const unclaimed: { ruleId: number; index: number }[] = [];
    for (const rule of toRun) {
      let failed = false;
      for (const [index, action] of (rule.actions as RuleAction[]).entries()) {
        if (!claimed.has(`${rule.id}:${index}`)) continue;
        // After a failure the rule's later actions wait for the retry: their claims are given back.
        if (failed) {
          unclaimed.push({ ruleId: rule.id, index });
          continue;
        }
        if (!offered.includes(action.type)) {
          ended.push({ ruleId: rule.id, index, step: 'action_skipped', detail: { reason: `${action.type} is not offered for ${event.type}` } });
          continue;
        }
        const outcome = await runAction(tx, { rule, index, action, event, facts, line, names });
        if (outcome.step === 'action_failed') {
          failures.push(`rule ${rule.id} action ${index + 1} (${action.type})`);
          unclaimed.push({ ruleId: rule.id, index });
          failed = true;
          continue;
        }
        ended.push({ ruleId: rule.id, index, ...outcome });
        if (outcome.step === 'action_applied') applied++;
      }
    }
    await endClaims(tx, event, ended, unclaimed);
    // The engine's record that this handler ran the event, in the same commit (see processEvent).
    if (recordAs && failures.length === 0) {
      const result = { rules: rules.length, matched, applied };
      await tx
        .insert(schema.eventHandlings)
        .values({ eventId: event.id, handler: recordAs, accountId: event.accountId, status: 'done', result })
        .onConflictDoUpdate({
          target: [schema.eventHandlings.eventId, schema.eventHandlings.handler],
          set: { status: 'done', result, error: null, handledAt: new Date() },
        });
    }
    await sendHeldNotifies(tx);
  });
  if (failures.length) throw new ActionsFailedError(`automation actions failed: ${failures.join('; ')}`);
  return { rules: rules.length, matched, applied };
}

/**
 * The verdicts of a batch's events, one row per event, in one statement without waiting for the disk (see
 * applyRuleRun for why that is safe). A verdict is made once per (event, rule): when a row is already there (a
 * redelivery, or a concurrent delivery whose commit the insert waits for) its verdicts stand and only rules it lacks
 * are added. An event none of whose verdicts is a match gets the handler's record in the same statement: it is done.
 * Returns each event's verdicts as they stand.
 */
async function writeVerdicts(runs: RuleRun[], recordAs: string | undefined): Promise<Map<number, Record<string, RuleVerdict>>> {
  if (runs.length === 0) return new Map();
  const rows = JSON.stringify(
    [...runs]
      .sort((a, b) => a.event.id - b.event.id)
      .map((r) => ({
        account_id: r.event.accountId,
        event_id: r.event.id,
        event_type: r.event.type,
        verdicts: r.verdicts,
        conversation_id: r.facts.conversation?.id ?? null,
        contact_id: r.facts.contact?.id ?? null,
        rules: r.rules.length,
      })),
  );
  const v = schema.automationEventVerdicts;
  const written = await getDb().execute<{ event_id: number; verdicts: Record<string, RuleVerdict> }>(sql`
    with sync as (select set_config('synchronous_commit', 'off', true) as v),
    x as (
      select * from jsonb_to_recordset(${rows}::jsonb)
        as x(account_id int, event_id bigint, event_type text, verdicts jsonb, conversation_id int, contact_id int, rules int)
    ),
    w as (
      insert into ${v} as v (event_id, account_id, event_type, verdicts, conversation_id, contact_id)
      select x.event_id, x.account_id, x.event_type, x.verdicts, x.conversation_id, x.contact_id from x order by x.event_id
      on conflict (event_id) do update set verdicts = excluded.verdicts || v.verdicts
      returning v.event_id, v.account_id, v.verdicts
    ),
    h as (
      insert into ${schema.eventHandlings} (event_id, handler, account_id, status, result)
      select w.event_id, ${recordAs ?? ''}, w.account_id, 'done', jsonb_build_object('rules', x.rules, 'matched', 0, 'applied', 0)
        from w join x on x.event_id = w.event_id
       where ${recordAs !== undefined} and not jsonb_path_exists(w.verdicts, '$.* ? (@.step == "matched")')
      on conflict (event_id, handler) do update set status = 'done', result = excluded.result, error = null, handled_at = now()
      returning 1
    )
    select w.event_id, w.verdicts, (select count(*) from h)::int as recorded, (select count(*) from sync)::int as sync from w`);
  return new Map(written.map((r) => [Number(r.event_id), r.verdicts]));
}

/**
 * The claimed lines' outcomes in one statement: an applied action's result, a skipped one's reason. The claims of
 * actions that did not run (a failure earlier in their rule) are removed, so a retry claims and runs them.
 */
async function endClaims(
  tx: Tx,
  event: DomainEvent,
  ended: { ruleId: number; index: number; step: 'action_applied' | 'action_skipped'; detail: Record<string, unknown> }[],
  unclaimed: { ruleId: number; index: number }[],
) {
  const log = schema.automationRunLog;
  if (ended.length > 0) {
    const rows = JSON.stringify(ended.map((e) => ({ rule_id: e.ruleId, action_index: e.index, step: e.step, detail: e.detail })));
    await tx.execute(sql`
      update ${log} set step = x.step, detail = x.detail
        from jsonb_to_recordset(${rows}::jsonb) as x(rule_id int, action_index int, step text, detail jsonb)
       where ${log.accountId} = ${event.accountId} and ${log.eventId} = ${event.id} and ${log.ruleId} = x.rule_id
         and ${log.actionIndex} = x.action_index and ${log.step} = 'action_applied'`);
  }
  if (unclaimed.length > 0) {
    const rows = JSON.stringify(unclaimed.map((u) => ({ rule_id: u.ruleId, action_index: u.index })));
    await tx.execute(sql`
      delete from ${log} using jsonb_to_recordset(${rows}::jsonb) as x(rule_id int, action_index int)
       where ${log.accountId} = ${event.accountId} and ${log.eventId} = ${event.id} and ${log.ruleId} = x.rule_id
         and ${log.actionIndex} = x.action_index and ${log.step} = 'action_applied'`);
  }
}

/** One claimed action in its own savepoint: a skipped or failed action leaves nothing half-done, and the others stand. */
async function runAction(
  tx: Tx,
  opts: {
    rule: Rule;
    index: number;
    action: RuleAction;
    event: DomainEvent;
    facts: Facts;
    line: (rule: Rule, step: RunStep, detail: Record<string, unknown>, action?: { index: number; type: string }) => LogLine;
    names: NameMemo;
  },
): Promise<{ step: 'action_applied' | 'action_skipped'; detail: Record<string, unknown> } | { step: 'action_failed' }> {
  const { rule, index, action, event, facts, line, names } = opts;
  let savepoint: Tx | null = null;
  try {
    return await tx.transaction(async (sp) => {
      savepoint = sp;
      holdNotifies(sp);
      const result = await applyAction(sp, {
        accountId: event.accountId,
        action,
        facts,
        cause: { eventId: event.id, ruleId: rule.id },
        names,
      });
      if (!result.applied) throw new RolledBack(result.reason);
      handHeldNotifies(sp, tx);
      return { step: 'action_applied' as const, detail: { result: result.result } };
    });
  } catch (err) {
    // The savepoint rolled back: so do its live updates.
    if (savepoint) handHeldNotifies(savepoint, null);
    if (err instanceof RolledBack) return { step: 'action_skipped', detail: { reason: err.message } };
    // A database error reaches us wrapped by the ORM ("Failed query: …"): its cause says what went wrong.
    const cause = (err as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : (err as Error).message ?? String(err);
    getLogger().warn({ eventId: event.id, ruleId: rule.id, action: action.type, err: message }, 'automation action failed');
    await tx.insert(schema.automationRunLog).values(line(rule, 'action_failed', { error: message.slice(0, 1000) }, { index, type: action.type }));
    return { step: 'action_failed' };
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
