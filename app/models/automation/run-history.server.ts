import { sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { RunStep } from '../../../db/schema/automation';

/**
 * Reads the run log the engine writes (automation_run_log, one row per step, and automation_event_verdicts, one row
 * per event with every rule's verdict: ADR 106). A run is one (event, rule): its lines are a `matched`/`not_matched`/
 * `loop_skipped`/`plan_skipped` (ADR 157) verdict and then one line per action; its state is derived from them (runState, pure).
 */

export type RunState = 'matched' | 'not_matched' | 'loop_skipped' | 'plan_skipped' | 'applied' | 'partly_failed' | 'failed';
export const RUN_STATE_LABELS: Record<RunState, string> = {
  matched: 'Matched, nothing done',
  not_matched: 'Not matched',
  loop_skipped: 'Skipped (loop)',
  plan_skipped: 'Skipped (not in plan)',
  applied: 'Applied',
  partly_failed: 'Partly failed',
  failed: 'Failed',
};

export type RunLine = {
  id: number;
  step: RunStep;
  actionIndex: number | null;
  actionType: string | null;
  detail: Record<string, unknown>;
  createdAt: Date;
};

export type Run = {
  eventId: number;
  eventType: string;
  ruleId: number;
  ruleName: string;
  conversationId: number | null;
  contactId: number | null;
  startedAt: Date;
  state: RunState;
  lines: RunLine[];
};

/**
 * The state of one run from its lines. A loop guard's skip wins (nothing else ran); a run that did not match
 * is not_matched; a matched run is judged by its action lines: all that ran applied → applied, some failed and
 * some applied → partly_failed, failed and none applied → failed; no action applied nor failed (none yet, or
 * all skipped) → matched.
 */
export function runState(lines: readonly { step: RunStep }[]): RunState {
  const has = (step: RunStep) => lines.some((l) => l.step === step);
  if (has('loop_skipped')) return 'loop_skipped';
  if (has('plan_skipped')) return 'plan_skipped';
  if (has('not_matched') && !has('matched')) return 'not_matched';
  const applied = has('action_applied');
  const failed = has('action_failed');
  if (failed) return applied ? 'partly_failed' : 'failed';
  return applied ? 'applied' : 'matched';
}

/** A line's one-sentence explanation: the verdict's reason, an action's result, reason or error. */
export function describeLine(line: Pick<RunLine, 'step' | 'detail'>): string {
  const d = line.detail ?? {};
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : '');
  return text('error') || text('reason') || text('result');
}

const log = schema.automationRunLog;
const rules = schema.automationRules;
export const RUNS_PAGE_SIZE = 20;

type LogRow = typeof log.$inferSelect & { ruleName: string };

function groupRuns(rows: LogRow[], order: { eventId: number; ruleId: number }[]): Run[] {
  const byKey = new Map<string, LogRow[]>();
  for (const row of rows) {
    const key = `${row.eventId}:${row.ruleId}`;
    const list = byKey.get(key) ?? [];
    list.push(row);
    byKey.set(key, list);
  }
  return order.flatMap(({ eventId, ruleId }) => {
    const lines = byKey.get(`${eventId}:${ruleId}`);
    if (!lines?.length) return [];
    const first = lines[0];
    return [
      {
        eventId,
        eventType: first.eventType,
        ruleId,
        ruleName: first.ruleName,
        conversationId: lines.find((l) => l.conversationId !== null)?.conversationId ?? null,
        contactId: lines.find((l) => l.contactId !== null)?.contactId ?? null,
        startedAt: first.createdAt,
        state: runState(lines),
        lines: lines.map((l) => ({
          id: l.id,
          step: l.step,
          actionIndex: l.actionIndex,
          actionType: l.actionType,
          detail: l.detail,
          createdAt: l.createdAt,
        })),
      },
    ];
  });
}

const verdicts = schema.automationEventVerdicts;

/**
 * The lines of the given (event, rule) runs: the run log's, and each rule's verdict from the event's verdicts row
 * (ADR 106) as the line the run log used to hold (same id for the verdicts of one event, which are different runs).
 */
async function linesOf(accountId: number, keys: { eventId: number; ruleId: number }[]): Promise<LogRow[]> {
  if (keys.length === 0) return [];
  const eventIds = [...new Set(keys.map((k) => k.eventId))];
  const ruleIds = [...new Set(keys.map((k) => k.ruleId))];
  const rows = await getDb().execute<{
    id: number;
    account_id: number;
    event_id: number;
    event_type: string;
    rule_id: number;
    step: RunStep;
    action_index: number | null;
    action_type: string | null;
    detail: Record<string, unknown>;
    conversation_id: number | null;
    contact_id: number | null;
    created_at: string | Date;
    rule_name: string;
  }>(sql`
    select l.*, r.name as rule_name from (
      select id, account_id, event_id, event_type, rule_id, step, action_index, action_type, detail, conversation_id, contact_id, created_at
        from ${log} where ${log.accountId} = ${accountId} and ${log.eventId} in ${eventIds} and ${log.ruleId} in ${ruleIds}
      union all
      select v.id, v.account_id, v.event_id, v.event_type, k.key::int, k.value->>'step', null, null, k.value - 'step', v.conversation_id, v.contact_id, v.created_at
        from ${verdicts} v cross join lateral jsonb_each(v.verdicts) k
       where v.account_id = ${accountId} and v.event_id in ${eventIds} and k.key::int in ${ruleIds}
    ) l join ${rules} r on r.id = l.rule_id and r.account_id = ${accountId}
    order by l.id, l.action_index nulls first`);
  return rows.map((r) => ({
    id: Number(r.id),
    accountId: Number(r.account_id),
    eventId: Number(r.event_id),
    eventType: r.event_type,
    ruleId: Number(r.rule_id),
    step: r.step,
    actionIndex: r.action_index === null ? null : Number(r.action_index),
    actionType: r.action_type,
    detail: r.detail,
    conversationId: r.conversation_id === null ? null : Number(r.conversation_id),
    contactId: r.contact_id === null ? null : Number(r.contact_id),
    createdAt: new Date(r.created_at),
    ruleName: r.rule_name,
  }));
}

type RunKey = { eventId: number; ruleId: number };
const keysOf = (rows: { event_id: number; rule_id: number }[]): RunKey[] => rows.map((r) => ({ eventId: Number(r.event_id), ruleId: Number(r.rule_id) }));

/** One workflow's runs, newest first, a page at a time. */
export async function listRuleRuns(opts: { accountId: number; ruleId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? RUNS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  // A run's lines are in the run log (actions, and verdicts written before ADR 106) and in its event's verdicts row.
  const runsOfRule = sql`
    select ${log.eventId} as event_id, ${log.id} as id from ${log} where ${log.accountId} = ${opts.accountId} and ${log.ruleId} = ${opts.ruleId}
    union all
    select event_id, id from ${verdicts} where account_id = ${opts.accountId} and verdicts ? ${String(opts.ruleId)}`;
  const db = getDb();
  const [order, [{ total }]] = await Promise.all([
    db.execute<{ event_id: number; rule_id: number }>(sql`
      select event_id, ${opts.ruleId}::int as rule_id from (${runsOfRule}) x group by event_id order by max(id) desc
       limit ${pageSize} offset ${(page - 1) * pageSize}`),
    db.execute<{ total: number }>(sql`select count(distinct event_id)::int as total from (${runsOfRule}) x`),
  ]);
  const keys = keysOf([...order]);
  const runs = groupRuns(await linesOf(opts.accountId, keys), keys);
  return { runs, total: Number(total), page, pageSize };
}

/** The runs that touched one conversation (any rule), newest first — for the conversation page. */
export async function listConversationRuns(opts: { accountId: number; conversationId: number; limit?: number }) {
  const order = keysOf([
    ...(await getDb().execute<{ event_id: number; rule_id: number }>(sql`
      select event_id, rule_id from (
        select ${log.eventId} as event_id, ${log.ruleId} as rule_id, ${log.id} as id from ${log}
         where ${log.accountId} = ${opts.accountId} and ${log.conversationId} = ${opts.conversationId}
        union all
        select v.event_id, k::int, v.id from ${verdicts} v cross join lateral jsonb_object_keys(v.verdicts) k
         where v.account_id = ${opts.accountId} and v.conversation_id = ${opts.conversationId}
      ) x group by event_id, rule_id order by max(id) desc limit ${opts.limit ?? 20}`)),
  ]);
  const keys = new Set(order.map((o) => `${o.eventId}:${o.ruleId}`));
  // linesOf reads the cross product of the events and rules: keep only the pairs that are runs of this conversation.
  const rows = (await linesOf(opts.accountId, order)).filter((l) => keys.has(`${l.eventId}:${l.ruleId}`));
  return groupRuns(rows, order);
}
