import { sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { RuleVerdict, RunStep } from '../../../db/schema/automation';
import { evaluateRule, type Evaluation, type Facts } from '../../../engine/rules/evaluate';
import type { DomainEvent } from '../../../engine/handlers/types';
import { handHeldNotifies, holdNotifies, takeHeldNotifies } from '../../utils/live.server';
import { getLogger } from '../../utils/logger.server';
import { timed } from '../../../engine/profile';
import { applyAction, type NameMemo } from './actions.server';
import { applyActionsInBulk, applyCommutingInBulk, bulkCounts, bulkKind, COMMUTING_KINDS, forgetLive, newBulkMemo, type BulkKind, type BulkMemo } from './bulk-actions.server';
import { gatherFactsMany } from './facts.server';
import { activeRulesFor, type ActiveRule } from './rule-cache.server';
import { planAllows } from '../plans/enforce.server';
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
    factsOf = await timed('automation: facts', () => gatherFactsMany(withRules.map((w) => w.event)));
  } catch (err) {
    for (const w of withRules) out[w.at] = err as Error;
    return out;
  }
  const runs: RuleRun[] = [];
  // A plan without workflow automation (ADR 157): the rules are not evaluated, each gets a `plan_skipped` verdict
  // in the run log, so a rule that stopped acting says why. Read once per account of the batch.
  const planned = new Map<number, Promise<boolean>>();
  const automationAllowed = (accountId: number) => {
    let p = planned.get(accountId);
    if (!p) planned.set(accountId, (p = planAllows({ accountId, key: 'workflowAutomation/enabled' })));
    return p;
  };
  for (const [i, w] of withRules.entries()) {
    try {
      const facts = factsOf[i];
      if (!(await automationAllowed(w.event.accountId))) {
        runs.push({ at: w.at, event: w.event, rules: w.rules, facts, verdicts: planSkipped(w.rules) });
        continue;
      }
      const chain = w.event.actorType === 'engine' ? await engineActorsInChain(w.event) : { ruleIds: new Set<number>(), depth: 0 };
      runs.push({ at: w.at, event: w.event, rules: w.rules, facts, verdicts: decide(w.rules, facts, chain) });
    } catch (err) {
      out[w.at] = err as Error;
    }
  }

  // Every event's verdicts, one row per event (ADR 106), in one statement for the whole batch; a redelivery finds
  // the earlier row and its verdicts stand. The events where no rule matched (most) are finished by the same statement.
  let verdictsOf: Map<number, { verdicts: Record<string, RuleVerdict>; existed: boolean }>;
  try {
    verdictsOf = await timed('automation: verdicts', () => writeVerdicts(runs, opts.recordAs));
  } catch (err) {
    for (const r of runs) out[r.at] = err as Error;
    return out;
  }
  const long: { run: RuleRun; matched: Set<number> }[] = [];
  for (const run of runs) {
    const written = verdictsOf.get(run.event.id);
    const verdicts = written?.verdicts ?? {};
    // Delivered before (its verdicts were there): some of its actions may have ended already.
    run.redelivered = written?.existed ?? true;
    const matched = new Set(run.rules.filter((rule) => verdicts[String(rule.id)]?.step === 'matched').map((rule) => rule.id));
    if (!Object.values(verdicts).some((v) => v.step === 'matched')) out[run.at] = { rules: run.rules.length, matched: 0, applied: 0 };
    else long.push({ run, matched });
  }
  // The matched events' actions, set-based across the batch (ADR 109): a few transactions, each for whole
  // conversations' events (so two transactions never wait on each other's rows), `concurrency` at a time.
  const chunks = chunkByConversation(long, opts.concurrency ?? 1);
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      try {
        const outcomes = await timed('automation: actions transaction', () => applyRuleRuns(chunk, opts.recordAs));
        chunk.forEach((c, k) => (out[c.run.at] = outcomes[k]));
      } catch (err) {
        for (const c of chunk) out[c.run.at] = err as Error;
      }
    }
  };
  await timed('automation: actions (all lanes)', () => Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 1, chunks.length) }, lane)));
  return out;
}

/**
 * Splits the matched events into at most `lanes` transactions of at least a few events, never splitting one
 * conversation's (or, without one, one contact's) events: two transactions then never touch the same rows.
 */
function chunkByConversation<T extends { run: RuleRun }>(long: T[], lanes: number): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of long) {
    const { facts, event } = item.run;
    const k = facts.conversation ? `v${facts.conversation.id}` : facts.contact ? `c${facts.contact.id}` : `e${event.id}`;
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  const size = Math.max(8, Math.ceil(long.length / Math.max(1, lanes)));
  const chunks: T[][] = [];
  let current: T[] = [];
  for (const g of groups.values()) {
    current.push(...g);
    if (current.length >= size) {
      chunks.push(current);
      current = [];
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}

type RuleRun = { at: number; event: DomainEvent; rules: Rule[]; facts: Facts; verdicts: Record<string, RuleVerdict>; redelivered?: boolean };

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

/** The reason a rule did not run on a plan without workflow automation, as the run log shows it. */
export const PLAN_SKIPPED_REASON = 'the account’s plan does not include workflow automation';

function planSkipped(rules: Rule[]): Record<string, RuleVerdict> {
  return Object.fromEntries(rules.map((rule) => [String(rule.id), { step: 'plan_skipped', reason: PLAN_SKIPPED_REASON } satisfies RuleVerdict]));
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

type Step = { run: RuleRun; rule: Rule; index: number; action: RuleAction; line: ReturnType<typeof logLine>; n: number };
/** `conversationId`: the conversation an action opened or reused for a review or an anonymous answer (ADR 149), for its line. */
type Ended = { s: Step; step: 'action_applied' | 'action_skipped' | 'action_failed'; detail: Record<string, unknown>; conversationId?: number };

/** Another delivery of one of the transaction's events wrote some of its lines first: this one rolls back (see applyRuleRuns). */
class LinesTaken extends Error {}

/**
 * The matched rules' actions of several events in one transaction (ADR 109). The verdicts were written before
 * (writeVerdicts); `matched` is the rules whose verdict, the earlier one on a redelivery, is a match.
 * - Each action's run-log line, unique per (event, rule, action), is written once, with its outcome, in the statement
 *   that ends the transaction (ADR 139): the line and the action commit together. An event delivered before (its
 *   verdicts were there) first reads its lines: an action whose line is there ended in an earlier delivery and is not
 *   run again. Two deliveries of one event at once (a job that expired while it ran) take turns (a transaction lock
 *   per event); should the later one still miss the first's lines, the lines' insert catches it (`on conflict do
 *   nothing`): fewer lines written than actions ended means another delivery committed some, so this transaction
 *   rolls back whole and runs once more, reading the lines first. Exactly once, with one write per line.
 * - The actions go in steps: step k is the k-th action left to run of every event, so each event's actions keep their
 *   order. In a step, the actions that have a set-based form (tags and notes on conversations) run as one group per
 *   kind in a savepoint; if the group's statements fail, they run one by one. The others run one by one, each in its
 *   own savepoint, through the same domain functions as people's changes.
 * - A failing action rolls back its savepoint, writes `action_failed`, and its rule's later actions wait (no line)
 *   for the retry; that event answers an error, the others commit.
 * - The lines of all ended actions are one insert, the handler records another, in one statement.
 */
async function applyRuleRuns(items: { run: RuleRun; matched: Set<number> }[], recordAs: string | undefined): Promise<(RulesOutcome | Error)[]> {
  try {
    return await applyRuleRunsOnce(items, recordAs, false);
  } catch (err) {
    if (!(err instanceof LinesTaken)) throw err;
    getLogger().info({ events: items.map((i) => i.run.event.id) }, 'another delivery of these events wrote lines first; running them again');
    return applyRuleRunsOnce(items, recordAs, true);
  }
}

async function applyRuleRunsOnce(items: { run: RuleRun; matched: Set<number> }[], recordAs: string | undefined, readAll: boolean): Promise<(RulesOutcome | Error)[]> {
  const names: NameMemo = new Map();
  const stats = new Map<RuleRun, { matched: number; applied: number; failures: string[] }>();
  for (const { run, matched } of items) stats.set(run, { matched: run.rules.filter((r) => matched.has(r.id)).length, applied: 0, failures: [] });
  await getDb().transaction(async (tx) => {
    // Not waiting for this commit to reach the disk is safe: the jobs are completed later, by a commit that is
    // waited for and that comes after this one in the WAL, so a crash that loses this loses the completion too,
    // and the events are delivered again (ADR 031).
    // (Set in the first statement, below.)
    // The actions' live updates go out in one statement before the commit (ADR 043 addendum).
    holdNotifies(tx);
    // PARLEY_ENGINE_BULK=0 applies every action one by one through its domain function: what the set-based forms are
    // compared with (tests/integration/automation-bulk.test.ts) and measured against.
    const bulkOn = process.env.PARLEY_ENGINE_BULK !== '0';
    const planned: Step[] = items.flatMap(({ run, matched }) => {
      const line = logLine(run.event, run.facts);
      return run.rules
        .filter((rule) => matched.has(rule.id))
        .flatMap((rule) => (rule.actions as RuleAction[]).map((action, index) => ({ run, rule, index, action, line })));
    }).map((p, n) => ({ ...p, n }));
    // Two deliveries of one event at once (a job that expired while it ran) take turns: the later one then reads the
    // lines the first committed. Taken in the order of the events' ids, so two batches never wait on each other in a circle.
    await timed('automation: turn', () => takeTurns(tx, items.map(({ run }) => run.event.id)));
    // The actions that ended in an earlier delivery, for the events delivered before (most events: none to read).
    const again = items.filter(({ run }) => readAll || run.redelivered).map(({ run }) => run.event);
    const endedBefore = new Set(
      again.length === 0 ? [] : (await timed('automation: lines read', () => linesOf(tx, again))).map((r) => `${r.event_id}:${r.rule_id}:${r.action_index}`),
    );
    const sequences = items.map(({ run }) => planned.filter((p) => p.run === run && !endedBefore.has(`${run.event.id}:${p.rule.id}:${p.index}`)));
    const ended: Ended[] = [];
    const failedRules = new Set<string>();
    // Each event's actions in segments: a run of actions with a set-based form (tags and notes touch different rows,
    // so their order within the run does not matter) is one segment; any other action is a segment of its own.
    const segmentsOf = sequences.map((seq) => {
      const segments: { bulk: boolean; steps: Step[] }[] = [];
      for (const step of seq) {
        const kind = bulkOn ? bulkKind({ action: step.action, facts: step.run.facts }) : null;
        const bulk = kind !== null && COMMUTING_KINDS.includes(kind);
        const last = segments.at(-1);
        if (bulk && last?.bulk) last.steps.push(step);
        else segments.push({ bulk, steps: [step] });
      }
      return segments;
    });
    const longest = Math.max(0, ...segmentsOf.map((q) => q.length));
    const memo = newBulkMemo();
    for (const p of planned)
      if (p.action.type === 'assign_tag')
        for (const id of p.action.tagIds ?? []) {
          const ahead = memo.tagsAhead.get(p.run.event.accountId) ?? new Set<number>();
          // Only ids a tag can have: a bad one stays with its own action's read (and fails only its own group).
          if (Number.isInteger(id) && id > 0 && id <= 2_147_483_647) ahead.add(id);
          memo.tagsAhead.set(p.run.event.accountId, ahead);
        }
    for (let k = 0; k < longest; k++) {
      const singles: Step[] = [];
      const groups = new Map<BulkKind, Step[]>();
      const inStep = segmentsOf.flatMap((q) => q[k]?.steps ?? []);
      const order = new Map(inStep.map((step, n) => [step, n]));
      for (const step of inStep) {
        const { run, rule, index, action } = step;
        // After a failure the rule's later actions wait for the retry: their claims are given back.
        if (failedRules.has(`${run.event.id}:${rule.id}`)) continue;
        const offered = ACTIONS_BY_EVENT[run.event.type as keyof typeof ACTIONS_BY_EVENT] ?? [];
        if (!offered.includes(action.type)) {
          ended.push({ s: step, step: 'action_skipped', detail: { reason: `${action.type} is not offered for ${run.event.type}` } });
          continue;
        }
        const kind = bulkOn ? bulkKind({ action, facts: run.facts }) : null;
        if (kind) groups.set(kind, [...(groups.get(kind) ?? []), step]);
        else singles.push(step);
      }
      // A change of the conversation (assignment, priority, status) is a segment of its own: it takes its set-based
      // form even alone (ADR 128). A lone tag or note goes one by one, after its segment's groups, so that a failure of
      // the group before it still holds it back for the retry, as one by one. The step's tag and note groups run
      // together, in one savepoint with one read of their conversations and one insert of their events (ADR 131).
      const settled = (group: Step[], results: (string | null)[] | null) => {
        for (const [n, step] of group.entries()) {
          const result = results?.[n];
          if (result === null || result === undefined) singles.push(step);
          else {
            ended.push({ s: step, step: 'action_applied', detail: { result } });
            stats.get(step.run)!.applied++;
          }
        }
      };
      const commuting: { kind: 'tags' | 'notes'; group: Step[] }[] = [];
      for (const [kind, group] of groups) {
        if (!COMMUTING_KINDS.includes(kind)) continue;
        if (group.length === 1) singles.push(group[0]);
        else commuting.push({ kind: kind as 'tags' | 'notes', group });
      }
      if (commuting.length > 0) {
        const results = await timed('automation: bulk tags and notes', () => runCommuting(tx, commuting, memo));
        for (const [g, c] of commuting.entries()) settled(c.group, results?.[g] ?? null);
      }
      for (const [kind, group] of groups) {
        if (COMMUTING_KINDS.includes(kind)) continue;
        settled(group, await timed(`automation: bulk ${kind}`, () => runBulk(tx, kind, group, memo)));
      }
      // One by one in the step's order, so that a failure holds back its rule's later actions as it would one by one.
      singles.sort((a, b) => order.get(a)! - order.get(b)!);
      for (const step of singles) {
        const { run, rule, index, action } = step;
        if (failedRules.has(`${run.event.id}:${rule.id}`)) continue;
        // An action one by one may delete its conversation: the groups after it read which are there again.
        forgetLive(memo);
        const outcome = await timed(`automation: action ${action.type}`, () =>
          runAction(tx, { rule, action, event: run.event, facts: run.facts, names }),
        );
        if (outcome.step === 'action_failed') {
          stats.get(run)!.failures.push(`rule ${rule.id} action ${index + 1} (${action.type})`);
          ended.push({ s: step, ...outcome });
          failedRules.add(`${run.event.id}:${rule.id}`);
          continue;
        }
        ended.push({ s: step, ...outcome });
        if (outcome.step === 'action_applied') stats.get(run)!.applied++;
      }
    }
    // The engine's record that this handler ran each event whose actions all ended, in the same commit (see processEvent).
    const done = items.filter(({ run }) => stats.get(run)!.failures.length === 0);
    const records =
      recordAs && done.length > 0
        ? done.map(({ run }) => ({
            event_id: run.event.id,
            account_id: run.event.accountId,
            result: { rules: run.rules.length, matched: stats.get(run)!.matched, applied: stats.get(run)!.applied },
          }))
        : [];
    // The lines, the message counts, the handler records and the live updates: one statement (ADR 132, 139).
    await timed('automation: outcomes', () => finish(tx, { ended, counts: bulkCounts(memo), recordAs: recordAs ?? '', records }));
  });
  return items.map(({ run }) => {
    const s = stats.get(run)!;
    if (s.failures.length) return new ActionsFailedError(`automation actions failed: ${s.failures.join('; ')}`);
    return { rules: run.rules.length, matched: s.matched, applied: s.applied };
  });
}

/** A step's tag and note groups in one savepoint: each group's results, or null when the statements failed (then each runs one by one). */
function runCommuting(tx: Tx, commuting: { kind: 'tags' | 'notes'; group: Step[] }[], memo: BulkMemo): Promise<(string | null)[][] | null> {
  return inSavepoint(tx, memo, { kinds: commuting.map((c) => c.kind) }, (sp) =>
    applyCommutingInBulk(
      sp,
      commuting.map((c) => ({ kind: c.kind, items: c.group.map(bulkItem) })),
      memo,
    ),
  );
}

const bulkItem = (s: Step) => ({ accountId: s.run.event.accountId, action: s.action, facts: s.run.facts, cause: { eventId: s.run.event.id, ruleId: s.rule.id } });

/** One bulk group in a savepoint: its results, or null when its statements failed (then each runs one by one). */
function runBulk(tx: Tx, kind: BulkKind, group: Step[], memo: BulkMemo): Promise<(string | null)[] | null> {
  return inSavepoint(tx, memo, { kind, actions: group.length }, (sp) => applyActionsInBulk(sp, kind, group.map(bulkItem), memo));
}

/** Set-based writes in a savepoint, their live updates held; on failure null, with their updates and counts dropped. */
async function inSavepoint<T>(tx: Tx, memo: BulkMemo, what: Record<string, unknown>, apply: (sp: Tx) => Promise<T>): Promise<T | null> {
  let savepoint: Tx | null = null;
  const counted = memo.counts.length;
  try {
    return await tx.transaction(async (sp) => {
      savepoint = sp;
      holdNotifies(sp);
      const results = await apply(sp);
      handHeldNotifies(sp, tx);
      return results;
    });
  } catch (err) {
    if (savepoint) handHeldNotifies(savepoint, null);
    // The savepoint's messages rolled back: so do their counts.
    memo.counts.length = counted;
    getLogger().warn({ ...what, err: (err as Error).message }, 'bulk automation actions failed; running them one by one');
    return null;
  }
}

/**
 * The verdicts of a batch's events, one row per event, in one statement without waiting for the disk (see
 * applyRuleRun for why that is safe). A verdict is made once per (event, rule): when a row is already there (a
 * redelivery, or a concurrent delivery whose commit the insert waits for) its verdicts stand and only rules it lacks
 * are added. An event none of whose verdicts is a match gets the handler's record in the same statement: it is done.
 * Returns each event's verdicts as they stand, and whether its row was there before (then some of its actions may
 * have ended already: see applyRuleRunsOnce).
 */
async function writeVerdicts(runs: RuleRun[], recordAs: string | undefined): Promise<Map<number, { verdicts: Record<string, RuleVerdict>; existed: boolean }>> {
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
  const written = await getDb().execute<{ event_id: number; verdicts: Record<string, RuleVerdict>; existed: boolean }>(sql`
    with sync as (select set_config('synchronous_commit', 'off', true) as v),
    x as (
      select * from jsonb_to_recordset(${rows}::jsonb)
        as x(account_id int, event_id bigint, event_type text, verdicts jsonb, conversation_id int, contact_id int, rules int)
    ),
    w as (
      insert into ${v} as v (event_id, account_id, event_type, verdicts, conversation_id, contact_id)
      select x.event_id, x.account_id, x.event_type, x.verdicts, x.conversation_id, x.contact_id from x order by x.event_id
      on conflict (event_id) do update set verdicts = excluded.verdicts || v.verdicts
      -- xmax is 0 on a row this statement inserted, the updating transaction's id on one it found.
      returning v.event_id, v.account_id, v.verdicts, (v.xmax <> 0) as existed
    ),
    h as (
      insert into ${schema.eventHandlings} (event_id, handler, account_id, status, result)
      select w.event_id, ${recordAs ?? ''}, w.account_id, 'done', jsonb_build_object('rules', x.rules, 'matched', 0, 'applied', 0)
        from w join x on x.event_id = w.event_id
       where ${recordAs !== undefined} and not jsonb_path_exists(w.verdicts, '$.* ? (@.step == "matched")')
      on conflict (event_id, handler) do update set status = 'done', result = excluded.result, error = null, handled_at = now()
      returning 1
    )
    select w.event_id, w.verdicts, w.existed, (select count(*) from h)::int as recorded, (select count(*) from sync)::int as sync from w`);
  return new Map(written.map((r) => [Number(r.event_id), { verdicts: r.verdicts, existed: Boolean(r.existed) }]));
}

/** The events' turns (a lock each until the commit), in the statement that stops the commit from waiting for the disk. */
async function takeTurns(tx: Tx, eventIds: number[]) {
  const ids = [...new Set(eventIds)].sort((a, b) => a - b);
  await tx.execute(sql`
    select set_config('synchronous_commit', 'off', true) as sync,
           (select count(pg_advisory_xact_lock(hashtext('automation_event'), (id % 2147483647)::int)) from unnest(${`{${ids.join(',')}}`}::bigint[]) as id) as turns`);
}

/** The run-log lines of the actions that ended in an earlier delivery of these events (each in its own account). */
function linesOf(tx: Tx, events: DomainEvent[]) {
  const log = schema.automationRunLog;
  const ids = (pick: (e: DomainEvent) => number) => `{${[...new Set(events.map(pick))].join(',')}}`;
  return tx.execute<{ event_id: number; rule_id: number; action_index: number }>(sql`
    select event_id, rule_id, action_index from ${log}
     where ${log.eventId} = any(${ids((e) => e.id)}::bigint[]) and ${log.accountId} = any(${ids((e) => e.accountId)}::int[])
       and ${log.actionIndex} is not null and ${log.step} in ('action_applied', 'action_skipped')`);
}

/**
 * The end of an actions transaction in one statement (ADR 132), each part a data-modifying CTE on its own table:
 * - the ended actions' run-log lines, each written once with its outcome (ADR 139): an applied action's result, a
 *   skipped one's reason; a line another delivery wrote first is not written again, and this transaction rolls back;
 * - the message counts the set-based groups added (`bulkCounts`);
 * - the handler records of the events whose actions all ended;
 * - the transaction's held live updates (they reach clients at commit, ADR 043 addendum).
 */
async function finish(
  tx: Tx,
  opts: {
    ended: Ended[];
    counts: ReturnType<typeof bulkCounts>;
    recordAs: string;
    records: { event_id: number; account_id: number; result: RulesOutcome }[];
  },
) {
  const log = schema.automationRunLog;
  // In the order the actions were planned (event, rule, action), as the claims were written before ADR 139.
  const lines = JSON.stringify(
    [...opts.ended]
      .sort((a, b) => a.s.n - b.s.n)
      .map(({ s, step, detail, conversationId }) => {
        const l = s.line(s.rule, step, detail, { index: s.index, type: s.action.type });
        if (conversationId) l.conversationId = conversationId;
        return {
          account_id: l.accountId,
          event_id: l.eventId,
          event_type: l.eventType,
          rule_id: l.ruleId,
          step: l.step,
          action_index: l.actionIndex,
          action_type: l.actionType,
          detail: l.detail,
          conversation_id: l.conversationId,
          contact_id: l.contactId,
        };
      }),
  );
  const live = takeHeldNotifies(tx);
  const parts = [
    opts.ended.length > 0 &&
      sql`l as (insert into ${log} (account_id, event_id, event_type, rule_id, step, action_index, action_type, detail, conversation_id, contact_id)
      select x.account_id, x.event_id, x.event_type, x.rule_id, x.step, x.action_index, x.action_type, x.detail, x.conversation_id, x.contact_id
        from jsonb_to_recordset(${lines}::jsonb)
          as x(account_id int, event_id bigint, event_type text, rule_id int, step text, action_index int, action_type text, detail jsonb, conversation_id int, contact_id int)
      on conflict do nothing
      returning 1)`,
    opts.counts && sql`c as (${opts.counts} returning 1)`,
    opts.records.length > 0 &&
      sql`h as (insert into ${schema.eventHandlings} (event_id, handler, account_id, status, result)
      select x.event_id, ${opts.recordAs}, x.account_id, 'done', x.result
        from jsonb_to_recordset(${JSON.stringify(opts.records)}::jsonb) as x(event_id bigint, account_id int, result jsonb)
      on conflict (event_id, handler) do update set status = 'done', result = excluded.result, error = null, handled_at = now()
      returning 1)`,
  ].filter((p): p is ReturnType<typeof sql> => Boolean(p));
  if (parts.length === 0) {
    if (live) await tx.execute(sql`select ${live} as notified`);
    return;
  }
  const [row] = await tx.execute<{ lines: number }>(
    sql`with ${sql.join(parts, sql`, `)} select ${opts.ended.length > 0 ? sql`(select count(*) from l)::int` : sql`0`} as lines, ${live ?? sql`0`} as notified`,
  );
  if (Number(row.lines) < opts.ended.length) throw new LinesTaken(`${opts.ended.length - Number(row.lines)} run-log lines were written by another delivery`);
}

/** One action in its own savepoint: a skipped or failed action leaves nothing half-done, and the others stand. */
async function runAction(
  tx: Tx,
  opts: {
    rule: Rule;
    action: RuleAction;
    event: DomainEvent;
    facts: Facts;
    names: NameMemo;
  },
): Promise<{ step: 'action_applied' | 'action_skipped' | 'action_failed'; detail: Record<string, unknown>; conversationId?: number }> {
  const { rule, action, event, facts, names } = opts;
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
      return { step: 'action_applied' as const, detail: { result: result.result }, ...(result.conversationId ? { conversationId: result.conversationId } : {}) };
    });
  } catch (err) {
    // The savepoint rolled back: so do its live updates.
    if (savepoint) handHeldNotifies(savepoint, null);
    if (err instanceof RolledBack) return { step: 'action_skipped', detail: { reason: err.message } };
    // A database error reaches us wrapped by the ORM ("Failed query: …"): its cause says what went wrong.
    const cause = (err as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : (err as Error).message ?? String(err);
    getLogger().warn({ eventId: event.id, ruleId: rule.id, action: action.type, err: message }, 'automation action failed');
    // Its line is written with the others' (finish), in the rules' order.
    return { step: 'action_failed', detail: { error: message.slice(0, 1000) } };
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
