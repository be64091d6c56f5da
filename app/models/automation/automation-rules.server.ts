import { and, asc, count, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { actorOf, emitEvent } from '../events/events.server';
import { SOURCE_INVALID, type AutomationRuleInput } from './automation-rules.schemas';
import { findForeignReference } from './rule-references.server';

/** Inbox automation rules share automation_rules with the workflows; this area only ever reads and writes its own kind. */
export type AutomationRule = typeof schema.automationRules.$inferSelect;

const t = schema.automationRules;
const KIND = 'inbox_rule' as const;
export const AUTOMATION_RULES_PAGE_SIZE = 50;

/** Input that only the database can judge (an inbox, user or tag of another account), with the form field it belongs to. */
export class AutomationRuleInputError extends Error {
  constructor(message: string, public field: string) {
    super(message);
  }
}

const mine = (accountId: number) => and(eq(t.accountId, accountId), eq(t.kind, KIND));

export async function listAutomationRules(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? AUTOMATION_RULES_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const [rows, [{ total }]] = await Promise.all([
    db
      .select()
      .from(t)
      .where(mine(opts.accountId))
      .orderBy(sql`lower(${t.name})`, asc(t.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(t).where(mine(opts.accountId)),
  ]);
  return { rows, total, page, pageSize };
}

export async function getAutomationRule(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(mine(opts.accountId), eq(t.id, opts.id)));
  return row;
}

/**
 * The inboxes (sources), users, tags and companies a rule names must be the account's own: an id of another
 * account is refused as if it did not exist. Throws on the first unknown one, naming its field.
 */
async function checkReferences(tx: Tx, accountId: number, input: AutomationRuleInput) {
  const foreign = await findForeignReference(tx, { accountId, actions: input.actions, sources: input.sources, sourceMessage: SOURCE_INVALID });
  if (foreign) throw new AutomationRuleInputError(foreign.message, foreign.field);
}

function values(input: AutomationRuleInput) {
  return {
    name: input.name.trim(),
    description: (input.description ?? '').trim(),
    event: input.event,
    sourceType: input.sourceType,
    sources: input.sources,
    conditionOperator: input.conditionOperator,
    conditions: input.conditions,
    actions: input.actions,
    isActive: input.isActive,
  };
}

export async function createAutomationRule(opts: { accountId: number; actorId: number | null; input: AutomationRuleInput }) {
  return getDb().transaction(async (tx) => {
    await checkReferences(tx, opts.accountId, opts.input);
    const [row] = await tx
      .insert(t)
      .values({
        accountId: opts.accountId,
        kind: KIND,
        createdById: opts.actorId,
        ...values(opts.input),
      })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'automation_rule_created',
      subjectType: 'automation_rule',
      subjectId: row.id,
      payload: { name: row.name, event: row.event, isActive: row.isActive },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}

/** Returns the updated row, or undefined when the account has no such rule. */
export async function updateAutomationRule(opts: { accountId: number; actorId: number | null; id: number; input: AutomationRuleInput }) {
  return getDb().transaction(async (tx) => {
    const before = await getAutomationRule(opts, tx);
    if (!before) return undefined;
    await checkReferences(tx, opts.accountId, opts.input);
    const [row] = await tx
      .update(t)
      .set({ ...values(opts.input), updatedAt: new Date() })
      .where(and(mine(opts.accountId), eq(t.id, before.id)))
      .returning();
    const changed = (['name', 'description', 'event', 'sourceType', 'sources', 'conditionOperator', 'conditions', 'actions', 'isActive'] as const).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify(row[k]),
    );
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'automation_rule_updated',
      subjectType: 'automation_rule',
      subjectId: row.id,
      payload: { changed },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}

/** The rule's run log goes with it (the foreign key cascades). */
export async function deleteAutomationRule(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(mine(opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'automation_rule_deleted',
      subjectType: 'automation_rule',
      subjectId: row.id,
      payload: { name: row.name },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}
