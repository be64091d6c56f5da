import { and, asc, countDistinct, desc, eq, inArray, max } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { RunStep } from '../../../db/schema/automation';

/**
 * Reads the run log the engine writes (automation_run_log, one row per step). A run is one (event, rule): its
 * lines are a `matched`/`not_matched`/`loop_skipped` verdict and then one line per action; its state is derived
 * from them (runState, pure).
 */

export type RunState = 'matched' | 'not_matched' | 'loop_skipped' | 'applied' | 'partly_failed' | 'failed';
export const RUN_STATE_LABELS: Record<RunState, string> = {
  matched: 'Matched, nothing done',
  not_matched: 'Not matched',
  loop_skipped: 'Skipped (loop)',
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

async function linesOf(accountId: number, keys: { eventId: number; ruleId: number }[]) {
  if (keys.length === 0) return [];
  const eventIds = [...new Set(keys.map((k) => k.eventId))];
  const ruleIds = [...new Set(keys.map((k) => k.ruleId))];
  const rows = await getDb()
    .select({ row: log, ruleName: rules.name })
    .from(log)
    .innerJoin(rules, and(eq(rules.id, log.ruleId), eq(rules.accountId, accountId)))
    .where(and(eq(log.accountId, accountId), inArray(log.eventId, eventIds), inArray(log.ruleId, ruleIds)))
    .orderBy(asc(log.id));
  return rows.map((x) => ({ ...x.row, ruleName: x.ruleName }));
}

/** One workflow's runs, newest first, a page at a time. */
export async function listRuleRuns(opts: { accountId: number; ruleId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? RUNS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const where = and(eq(log.accountId, opts.accountId), eq(log.ruleId, opts.ruleId));
  const db = getDb();
  const [order, [{ total }]] = await Promise.all([
    db
      .select({ eventId: log.eventId, ruleId: log.ruleId })
      .from(log)
      .where(where)
      .groupBy(log.eventId, log.ruleId)
      .orderBy(desc(max(log.id)))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ total: countDistinct(log.eventId) })
      .from(log)
      .where(where),
  ]);
  const runs = groupRuns(await linesOf(opts.accountId, order), order);
  return { runs, total, page, pageSize };
}

/** The runs that touched one conversation (any rule), newest first — for the conversation page. */
export async function listConversationRuns(opts: { accountId: number; conversationId: number; limit?: number }) {
  const order = await getDb()
    .select({ eventId: log.eventId, ruleId: log.ruleId })
    .from(log)
    .where(and(eq(log.accountId, opts.accountId), eq(log.conversationId, opts.conversationId)))
    .groupBy(log.eventId, log.ruleId)
    .orderBy(desc(max(log.id)))
    .limit(opts.limit ?? 20);
  const keys = new Set(order.map((o) => `${o.eventId}:${o.ruleId}`));
  // linesOf reads the cross product of the events and rules: keep only the pairs that are runs of this conversation.
  const rows = (await linesOf(opts.accountId, order)).filter((l) => keys.has(`${l.eventId}:${l.ruleId}`));
  return groupRuns(rows, order);
}
