import { and, asc, eq, sql } from 'drizzle-orm';
import { getDb, getSql, schema, type DbOrTx } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { singleton } from '../../utils/singleton.server';

/** A rule as the engine runs it. */
export type ActiveRule = Pick<
  typeof schema.automationRules.$inferSelect,
  'id' | 'kind' | 'event' | 'sourceType' | 'sources' | 'conditions' | 'conditionOperator' | 'filters' | 'actions'
>;

/** Every writer of automation_rules, accounts.plan_id and plans NOTIFYs this channel (a trigger, ADR 031). */
export const RULES_CHANNEL = 'parley_rules';

type State = {
  /** Set while a LISTEN connection keeps the cache honest; without it every call reads the database. */
  listening: boolean;
  stop?: () => Promise<void>;
  /** accountId → the account's active, runnable rules by event type (workflows dropped when the plan lacks them). */
  byAccount: Map<number, Promise<Map<string, ActiveRule[]>>>;
  /** Bumped on every invalidation, so that a load that raced with one is not kept. */
  generation: number;
};

const state = () => singleton<State>('automation-rule-cache', () => ({ listening: false, byAccount: new Map(), generation: 0 }));

/**
 * The account's active rules waiting for `type`, in id order. While the cache listens (the engine runs in this
 * process) they come from memory, loaded once per account in one read and dropped when a NOTIFY says the account's
 * rules or plan changed; otherwise from the database each time.
 */
export async function activeRulesFor(accountId: number, type: string, db?: DbOrTx): Promise<ActiveRule[]> {
  const s = state();
  if (!s.listening) return (await loadRules(accountId, db)).get(type) ?? [];
  let entry = s.byAccount.get(accountId);
  if (!entry) {
    const generation = s.generation;
    entry = loadRules(accountId, db);
    s.byAccount.set(accountId, entry);
    entry.then(
      () => {
        // Invalidated while loading: the next call reads again.
        if (s.generation !== generation && s.byAccount.get(accountId) === entry) s.byAccount.delete(accountId);
      },
      () => s.byAccount.delete(accountId),
    );
  }
  try {
    return (await entry).get(type) ?? [];
  } catch (err) {
    // Another caller's load (through its own transaction) failed: read through ours.
    if (!db) throw err;
    return (await loadRules(accountId, db)).get(type) ?? [];
  }
}

/** Whether the account has an active rule waiting for this event type (from memory when the cache listens). */
export async function hasActiveRules(accountId: number, type: string, db?: DbOrTx) {
  return (await activeRulesFor(accountId, type, db)).length > 0;
}

/** Whether answers come from memory (only then is skipping work on their basis cheap). */
export function ruleCacheListening() {
  return state().listening;
}

async function loadRules(accountId: number, db: DbOrTx = getDb()) {
  const r = schema.automationRules;
  const rows = await db
    .select({
      id: r.id,
      kind: r.kind,
      event: r.event,
      sourceType: r.sourceType,
      sources: r.sources,
      conditions: r.conditions,
      conditionOperator: r.conditionOperator,
      filters: r.filters,
      actions: r.actions,
    })
    .from(r)
    .where(
      and(
        eq(r.accountId, accountId),
        eq(r.isActive, true),
        // Workflows are a plan feature (advanceWorkflows): an account whose plan lost it keeps its workflows, but
        // they stop running — enforced here, not only on the screens.
        sql`(${r.kind} <> 'workflow' or coalesce((select (p.features -> 'workflowAutomation' ->> 'advanceWorkflows')::boolean
              from ${schema.accounts} a join ${schema.plans} p on p.id = a.plan_id where a.id = ${accountId}), false))`,
      ),
    )
    .orderBy(asc(r.id));
  const byEvent = new Map<string, ActiveRule[]>();
  for (const row of rows) {
    const list = byEvent.get(row.event) ?? [];
    list.push(row);
    byEvent.set(row.event, list);
  }
  return byEvent;
}

/** Drops what is known of one account (or of all, with no id). */
export function invalidateRules(accountId?: number) {
  const s = state();
  s.generation++;
  if (accountId === undefined) s.byAccount.clear();
  else s.byAccount.delete(accountId);
}

/**
 * Starts caching: LISTENs for rule and plan changes. On every (re)connection the whole cache is dropped, since
 * notifications sent while the connection was down are lost.
 */
export async function startRuleCache() {
  const s = state();
  if (s.stop) return;
  const listener = await getSql().listen(
    RULES_CHANNEL,
    (payload) => {
      const id = Number(payload);
      invalidateRules(payload === '*' || !Number.isInteger(id) ? undefined : id);
    },
    () => invalidateRules(),
  );
  s.listening = true;
  s.stop = async () => {
    s.listening = false;
    s.stop = undefined;
    invalidateRules();
    await listener.unlisten().catch((err) => getLogger().warn({ err: (err as Error).message }, 'rule cache unlisten failed'));
  };
}

export async function stopRuleCache() {
  await state().stop?.();
}
