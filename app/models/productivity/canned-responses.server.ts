import { and, asc, count, eq, ilike, ne, or, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { CANNED_NAME_TAKEN_MESSAGE } from './schemas';
import { cleanQuery, FieldInputError, likePattern, paging, recordChange } from './shared.server';

export type CannedResponse = typeof schema.cannedResponses.$inferSelect;

const c = schema.cannedResponses;

function cannedWhere(accountId: number, q?: string | null) {
  const query = cleanQuery(q);
  return and(eq(c.accountId, accountId), query ? or(ilike(c.name, likePattern(query)), ilike(c.message, likePattern(query))) : undefined);
}

/** The account's canned responses matching `q` (in the name or the message), by name: what the reply box offers. */
export async function listCannedResponses(opts: { accountId: number; q?: string | null; limit?: number }, db: DbOrTx = getDb()): Promise<CannedResponse[]> {
  return db
    .select()
    .from(c)
    .where(cannedWhere(opts.accountId, opts.q))
    .orderBy(sql`lower(${c.name})`, asc(c.id))
    .limit(opts.limit ?? 500);
}

/** One page of them for the settings list. */
export async function pageCannedResponses(opts: { accountId: number; q?: string | null; page?: number; pageSize?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const db = getDb();
  const where = cannedWhere(opts.accountId, opts.q);
  const rows = await db.select().from(c).where(where).orderBy(sql`lower(${c.name})`, asc(c.id)).limit(pageSize).offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(c).where(where);
  return { rows, total, page, pageSize };
}

export async function getCannedResponse(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)));
  return row;
}

/** Two responses of one account with the same name could not be told apart in the reply box's picker. */
async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  // Serialises concurrent saves of one account so that the check cannot race.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('canned_responses'), ${accountId})`);
  const [clash] = await tx
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.accountId, accountId), sql`lower(${c.name}) = ${name.toLowerCase()}`, exceptId ? ne(c.id, exceptId) : undefined));
  if (clash) throw new FieldInputError(CANNED_NAME_TAKEN_MESSAGE, 'name');
}

export async function createCannedResponse(opts: { accountId: number; actorId: number | null; name: string; message: string }) {
  const name = opts.name.trim();
  const message = opts.message.trim();
  return getDb().transaction(async (tx) => {
    await checkNameFree(tx, opts.accountId, name);
    const [row] = await tx.insert(c).values({ accountId: opts.accountId, name, message }).returning();
    await recordChange(tx, { ...opts, type: 'canned_response_created', subjectType: 'canned_response', subjectId: row.id, payload: { name } });
    return row;
  });
}

/** Returns the updated response, or undefined when the account has no such one. */
export async function updateCannedResponse(opts: { accountId: number; actorId: number | null; id: number; name: string; message: string }) {
  const name = opts.name.trim();
  const message = opts.message.trim();
  return getDb().transaction(async (tx) => {
    const before = await getCannedResponse(opts, tx);
    if (!before) return undefined;
    await checkNameFree(tx, opts.accountId, name, before.id);
    const [row] = await tx
      .update(c)
      .set({ name, message, updatedAt: new Date() })
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, before.id)))
      .returning();
    await recordChange(tx, {
      ...opts,
      type: 'canned_response_updated',
      subjectType: 'canned_response',
      subjectId: row.id,
      payload: { name, previousName: before.name, messageChanged: before.message !== message },
    });
    return row;
  });
}

/** Returns false when the account has no such response. */
export async function deleteCannedResponse(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'canned_response_deleted', subjectType: 'canned_response', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}
