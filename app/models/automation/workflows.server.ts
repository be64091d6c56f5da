import { and, count, desc, eq, ilike, or, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { FEATURE_DENIED_MESSAGE, featureLimit, hasFeature } from '../plans/catalogue';
import { likePattern } from '../search/provider.server';
import { ACTION_REQUIRED, type RuleAction } from './rule-types';
import { findForeignReference } from './rule-references.server';
import { actionNotOfferedMessage, isActionOffered, workflowLimitMessage, type WorkflowBuilderInput, type WorkflowDialogInput } from './workflows.schemas';

/**
 * Workflows (/workflows): automation rules of kind 'workflow' that react to a domain event. Creation is bounded
 * by the plan (feature workflowAutomation/advanceWorkflows and its advanceWorkflowsLimit); the engine evaluates
 * active ones and writes the run log (run-history.server.ts reads it).
 */

export type Workflow = typeof schema.automationRules.$inferSelect;

const r = schema.automationRules;
export const WORKFLOW_PAGE_SIZE = 50;
/** A new workflow waits for this event until the builder changes it. */
export const DEFAULT_WORKFLOW_EVENT = 'conversation_created';

/** A refusal the user can act on: a message for a field of the form (or the whole form when field is null). */
export class WorkflowInputError extends Error {
  constructor(message: string, readonly field: string | null = null, readonly status = 400) {
    super(message);
  }
}

const actor = (actorId: number | null) => (actorId ? ({ type: 'user', id: actorId } as const) : ({ type: 'system' } as const));
const ofAccount = (accountId: number) => and(eq(r.accountId, accountId), eq(r.kind, 'workflow'));

/** defaultWorkflowCount (section 3): how many workflows the account has, whatever the search — what the plan's limit counts. */
export async function countWorkflows(opts: { accountId: number }, db: DbOrTx = getDb()) {
  const [row] = await db.select({ n: count() }).from(r).where(ofAccount(opts.accountId));
  return row.n;
}

export async function listWorkflows(opts: { accountId: number; term?: string; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? WORKFLOW_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const term = opts.term?.trim().slice(0, 100) ?? '';
  const where = term
    ? and(ofAccount(opts.accountId), or(ilike(r.name, likePattern(term)), ilike(r.description, likePattern(term))))
    : ofAccount(opts.accountId);
  const u = schema.users;
  const db = getDb();
  const [rows, [{ total }], defaultWorkflowCount] = await Promise.all([
    db
      .select({
        id: r.id,
        name: r.name,
        description: r.description,
        event: r.event,
        isActive: r.isActive,
        createdAt: r.createdAt,
        createdBy: sql<string | null>`nullif(trim(${u.firstName} || ' ' || ${u.lastName}), '')`,
      })
      .from(r)
      .leftJoin(u, and(eq(u.id, r.createdById), eq(u.accountId, opts.accountId)))
      .where(where)
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(r).where(where),
    countWorkflows(opts, db),
  ]);
  return { rows, total, page, pageSize, defaultWorkflowCount };
}

export async function getWorkflow(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(r)
    .where(and(ofAccount(opts.accountId), eq(r.id, opts.id)));
  return row;
}

async function planOf(db: DbOrTx, accountId: number, lock: boolean) {
  const q = db
    .select({ features: schema.plans.features })
    .from(schema.accounts)
    .innerJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId))
    .where(eq(schema.accounts.id, accountId));
  // Creations of one account queue behind this row lock, so two at once cannot both take the last place.
  const [row] = lock ? await q.for('update', { of: schema.accounts }) : await q;
  return row?.features ?? {};
}

export type WorkflowAllowance = {
  allowed: boolean;
  reason: 'feature' | 'limit' | null;
  message: string | null;
  limit: number;
  count: number;
};

/** Whether the account may create one more workflow, and why not. */
export async function workflowAllowance(opts: { accountId: number }, db: DbOrTx = getDb(), lock = false): Promise<WorkflowAllowance> {
  const features = await planOf(db, opts.accountId, lock);
  const limit = featureLimit(features, 'workflowAutomation/advanceWorkflowsLimit');
  const n = await countWorkflows(opts, db);
  if (!hasFeature(features, 'workflowAutomation/advanceWorkflows'))
    return {
      allowed: false,
      reason: 'feature',
      message: FEATURE_DENIED_MESSAGE,
      limit,
      count: n,
    };
  if (n >= limit)
    return {
      allowed: false,
      reason: 'limit',
      message: workflowLimitMessage(limit),
      limit,
      count: n,
    };
  return { allowed: true, reason: null, message: null, limit, count: n };
}

/** Creates an inactive workflow from the dialog's name and description; the builder gives it the rest. */
export async function createWorkflow(opts: { accountId: number; actorId: number | null } & WorkflowDialogInput) {
  return getDb().transaction(async (tx) => {
    const allowance = await workflowAllowance(opts, tx, true);
    if (!allowance.allowed) throw new WorkflowInputError(allowance.message!, null, 403);
    const [row] = await tx
      .insert(r)
      .values({
        accountId: opts.accountId,
        kind: 'workflow',
        name: opts.name.trim(),
        description: (opts.description ?? '').trim(),
        event: DEFAULT_WORKFLOW_EVENT,
        isActive: false,
        createdById: opts.actorId,
      })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'workflow_created',
      subjectType: 'workflow',
      subjectId: row.id,
      payload: { name: row.name, event: row.event },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/**
 * The users, tags, inboxes and companies the actions name must be the account's own: an id from another account
 * is refused as if none were chosen. Throws on the first unknown one, naming its field.
 */
async function checkReferences(tx: Tx, accountId: number, actions: RuleAction[]) {
  const foreign = await findForeignReference(tx, { accountId, actions });
  if (foreign) throw new WorkflowInputError(foreign.message, foreign.field);
}

/** Saves the whole rule from the builder. Returns the row, or undefined when the account has no such workflow. */
export async function updateWorkflow(opts: { accountId: number; actorId: number | null; id: number; input: WorkflowBuilderInput }) {
  const { input } = opts;
  // The schema says so too; the model holds the rule for any other caller.
  if (input.actions.length === 0) throw new WorkflowInputError(ACTION_REQUIRED, 'actions');
  input.actions.forEach((a, i) => {
    if (!isActionOffered(input.event, a.type)) throw new WorkflowInputError(actionNotOfferedMessage(a.type, input.event), `actions[${i}].type`);
  });
  return getDb().transaction(async (tx) => {
    const before = await getWorkflow(opts, tx);
    if (!before) return undefined;
    await checkReferences(tx, opts.accountId, input.actions);
    const [row] = await tx
      .update(r)
      .set({
        name: input.name.trim(),
        description: (input.description ?? '').trim(),
        event: input.event,
        conditions: input.conditions,
        conditionOperator: input.conditionOperator,
        filters: input.filters,
        actions: input.actions,
        updatedAt: new Date(),
      })
      .where(and(ofAccount(opts.accountId), eq(r.id, before.id)))
      .returning();
    const changed = (['name', 'description', 'event', 'conditions', 'conditionOperator', 'filters', 'actions'] as const).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify(row[k]),
    );
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'workflow_updated',
      subjectType: 'workflow',
      subjectId: row.id,
      payload: { changed, event: row.event, isActive: row.isActive },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** The status switch. A workflow without actions cannot be switched on: it would match and do nothing. */
export async function setWorkflowActive(opts: { accountId: number; actorId: number | null; id: number; isActive: boolean }) {
  return getDb().transaction(async (tx) => {
    const before = await getWorkflow(opts, tx);
    if (!before) return undefined;
    if (opts.isActive && before.actions.length === 0) throw new WorkflowInputError(ACTION_REQUIRED);
    if (before.isActive === opts.isActive) return before;
    const [row] = await tx
      .update(r)
      .set({ isActive: opts.isActive, updatedAt: new Date() })
      .where(and(ofAccount(opts.accountId), eq(r.id, before.id)))
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'workflow_updated',
      subjectType: 'workflow',
      subjectId: row.id,
      payload: {
        changed: ['isActive'],
        event: row.event,
        isActive: row.isActive,
      },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** Deletes the workflow; its run log goes with it (foreign key cascade). */
export async function deleteWorkflow(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(r)
      .where(and(ofAccount(opts.accountId), eq(r.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'workflow_deleted',
      subjectType: 'workflow',
      subjectId: row.id,
      payload: { name: row.name, event: row.event },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** The builder's form values for a saved workflow. */
export function workflowFormDefaults(w: Workflow) {
  return {
    name: w.name,
    description: w.description,
    event: w.event,
    conditionOperator: w.conditionOperator,
    conditions: w.conditions.map((c) => ({
      field: c.field,
      op: c.op === 'is' ? '' : c.op,
      value: c.value,
    })),
    filters: w.filters,
    actions: w.actions.map((a) => ({
      ...a,
      userId: a.userId ? String(a.userId) : undefined,
      inboxId: a.inboxId ? String(a.inboxId) : undefined,
      companyId: a.companyId ? String(a.companyId) : undefined,
      tagIds: a.tagIds?.map(String),
    })),
  };
}
