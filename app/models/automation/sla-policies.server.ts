import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { actorOf, emitEvent } from '../events/events.server';
import { SLA_INBOX_INVALID, type SlaPolicyInput } from './sla-policies.schemas';

export type SlaPolicy = typeof schema.slaPolicies.$inferSelect;

const t = schema.slaPolicies;
export const SLA_POLICIES_PAGE_SIZE = 50;

/** Input that only the database can judge (an inbox of another account, an inbox already covered); shown on its field. */
export class SlaPolicyInputError extends Error {
  constructor(public field: 'inboxIds', message: string) {
    super(message);
  }
}

export async function listSlaPolicies(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? SLA_POLICIES_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const where = eq(t.accountId, opts.accountId);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select()
      .from(t)
      .where(where)
      .orderBy(sql`lower(${t.name})`, asc(t.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(t).where(where),
  ]);
  return { rows, total, page, pageSize };
}

export async function getSlaPolicy(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

/**
 * The policy whose targets an inbox's conversations are held to: the active policy that lists the inbox, else
 * the active catch-all policy (no inboxes listed), else none. Two candidates of one kind: the oldest wins
 * (an inbox can be listed by one policy only, so this concerns catch-alls).
 */
export async function findPolicyForInbox(opts: { accountId: number; inboxId: number }, db: DbOrTx = getDb()): Promise<SlaPolicy | null> {
  const [row] = await db
    .select()
    .from(t)
    .where(
      and(
        eq(t.accountId, opts.accountId),
        eq(t.isActive, true),
        // Only for an inbox of the same account: a foreign inbox id gets no policy, not this account's catch-all.
        sql`exists (select 1 from ${schema.inboxes} where ${schema.inboxes.id} = ${opts.inboxId} and ${schema.inboxes.accountId} = ${opts.accountId})`,
        sql`(${t.inboxIds} @> ${JSON.stringify([opts.inboxId])}::jsonb or ${t.inboxIds} = '[]'::jsonb)`,
      ),
    )
    .orderBy(sql`case when ${t.inboxIds} = '[]'::jsonb then 1 else 0 end`, asc(t.id))
    .limit(1);
  return row ?? null;
}

/** Inboxes must be the account's, and each may be listed by one policy only. */
async function checkInboxes(tx: Tx, opts: { accountId: number; inboxIds: number[]; exceptId?: number }) {
  if (opts.inboxIds.length === 0) return;
  const inboxes = await tx
    .select({ id: schema.inboxes.id, name: schema.inboxes.name })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), inArray(schema.inboxes.id, opts.inboxIds)));
  if (inboxes.length !== opts.inboxIds.length) throw new SlaPolicyInputError('inboxIds', SLA_INBOX_INVALID);
  // Serialises writers of one account's policies, so that two saves cannot both take the same inbox.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('sla_policies'), ${opts.accountId})`);
  const others = await tx
    .select({ name: t.name, inboxIds: t.inboxIds })
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), opts.exceptId ? ne(t.id, opts.exceptId) : undefined));
  for (const inbox of inboxes) {
    const taken = others.find((p) => p.inboxIds.includes(inbox.id));
    if (taken) throw new SlaPolicyInputError('inboxIds', `The inbox ${inbox.name} already has the SLA policy ${taken.name}`);
  }
}

function values(input: SlaPolicyInput) {
  return {
    name: input.name.trim(),
    inboxIds: input.inboxIds,
    targets: input.targets,
    isEscalate: input.isEscalate,
    escalateTo: input.isEscalate ? input.escalateTo : [],
    isActive: input.isActive,
  };
}

export async function createSlaPolicy(opts: { accountId: number; actorId: number | null } & SlaPolicyInput) {
  return getDb().transaction(async (tx) => {
    await checkInboxes(tx, opts);
    const [row] = await tx
      .insert(t)
      .values({ accountId: opts.accountId, ...values(opts) })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'sla_policy_created',
      subjectType: 'sla_policy',
      subjectId: row.id,
      payload: {
        name: row.name,
        inboxIds: row.inboxIds,
        isActive: row.isActive,
      },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}

/** Returns the updated row, or undefined when the account has no such policy. */
export async function updateSlaPolicy(
  opts: {
    accountId: number;
    actorId: number | null;
    id: number;
  } & SlaPolicyInput,
) {
  return getDb().transaction(async (tx) => {
    const before = await getSlaPolicy(opts, tx);
    if (!before) return undefined;
    await checkInboxes(tx, { ...opts, exceptId: before.id });
    const [row] = await tx
      .update(t)
      .set({ ...values(opts), updatedAt: new Date() })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
      .returning();
    const changed = (['name', 'inboxIds', 'targets', 'isEscalate', 'escalateTo', 'isActive'] as const).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify(row[k]),
    );
    // Due times of open conversations are computed from the policy: the engine recomputes them on this event.
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'sla_policy_updated',
      subjectType: 'sla_policy',
      subjectId: row.id,
      payload: {
        changed,
        inboxIds: row.inboxIds,
        previousInboxIds: before.inboxIds,
      },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}

export async function deleteSlaPolicy(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'sla_policy_deleted',
      subjectType: 'sla_policy',
      subjectId: row.id,
      payload: { name: row.name, inboxIds: row.inboxIds },
      actor: actorOf(opts.actorId),
    });
    return row;
  });
}
