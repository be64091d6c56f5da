import { and, asc, count, eq, ilike, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { TAG_NAME_TAKEN_MESSAGE, type TagColour } from './schemas';
import { cleanQuery, FieldInputError, isUniqueViolation, likePattern, paging, recordChange } from './shared.server';

export type Tag = typeof schema.tags.$inferSelect;
export type TagWithCount = Tag & { conversationCount: number };

const t = schema.tags;

function tagWhere(accountId: number, q?: string | null) {
  const query = cleanQuery(q);
  return and(eq(t.accountId, accountId), query ? ilike(t.name, likePattern(query)) : undefined);
}

/** How many live conversations of the account carry the tag ("labels/counts"). */
function conversationCount(accountId: number) {
  return sql<number>`(
    select count(*)::int from ${schema.conversationTags} ct
    join ${schema.conversations} c on c.id = ct.conversation_id and c.account_id = ${accountId} and c.deleted_at is null
    where ct.account_id = ${accountId} and ct.tag_id = ${t}."id"
  )`;
}

const tagColumns = (accountId: number) => ({
  id: t.id,
  accountId: t.accountId,
  name: t.name,
  color: t.color,
  createdAt: t.createdAt,
  conversationCount: conversationCount(accountId),
});

/** Every tag of the account (optionally matching `q`), by name, with its conversation count: what the inbox offers. */
export async function listTags(opts: { accountId: number; q?: string | null }, db: DbOrTx = getDb()): Promise<TagWithCount[]> {
  return db
    .select(tagColumns(opts.accountId))
    .from(t)
    .where(tagWhere(opts.accountId, opts.q))
    .orderBy(sql`lower(${t.name})`, asc(t.id));
}

/** One page of the account's tags for the settings list. */
export async function pageTags(opts: { accountId: number; q?: string | null; page?: number; pageSize?: number }) {
  const { page, pageSize, offset } = paging(opts);
  const db = getDb();
  const where = tagWhere(opts.accountId, opts.q);
  const rows = await db.select(tagColumns(opts.accountId)).from(t).where(where).orderBy(sql`lower(${t.name})`, asc(t.id)).limit(pageSize).offset(offset);
  const [{ total }] = await db.select({ total: count() }).from(t).where(where);
  return { rows, total, page, pageSize };
}

/** Tag id to number of live conversations carrying it, for every tag of the account that has any. */
export async function countTagConversations(opts: { accountId: number }) {
  const rows = await getDb()
    .select({ tagId: schema.conversationTags.tagId, n: sql<number>`count(*)::int` })
    .from(schema.conversationTags)
    .innerJoin(
      schema.conversations,
      and(eq(schema.conversations.id, schema.conversationTags.conversationId), eq(schema.conversations.accountId, opts.accountId), sql`${schema.conversations.deletedAt} is null`),
    )
    .where(eq(schema.conversationTags.accountId, opts.accountId))
    .groupBy(schema.conversationTags.tagId);
  return Object.fromEntries(rows.map((r) => [r.tagId, r.n])) as Record<number, number>;
}

/** One tag of the account with its count, or undefined (another account's id looks like a missing one). */
export async function getTag(opts: { accountId: number; id: number }, db: DbOrTx = getDb()): Promise<TagWithCount | undefined> {
  const [row] = await db
    .select(tagColumns(opts.accountId))
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  const [clash] = await tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, accountId), sql`lower(${t.name}) = ${name.toLowerCase()}`, exceptId ? ne(t.id, exceptId) : undefined));
  if (clash) throw new FieldInputError(TAG_NAME_TAKEN_MESSAGE, 'name');
}

/** Names are unique per account, whatever their case. */
export async function createTag(opts: { accountId: number; actorId: number | null; name: string; color: TagColour }) {
  const name = opts.name.trim();
  try {
    return await getDb().transaction(async (tx) => {
      await checkNameFree(tx, opts.accountId, name);
      const [tag] = await tx.insert(t).values({ accountId: opts.accountId, name, color: opts.color }).returning();
      await recordChange(tx, { ...opts, type: 'tag_created', subjectType: 'tag', subjectId: tag.id, payload: { name: tag.name, color: tag.color } });
      return tag;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new FieldInputError(TAG_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

/** Returns the updated tag, or undefined when the account has no such tag. */
export async function updateTag(opts: { accountId: number; actorId: number | null; id: number; name: string; color: TagColour }) {
  const name = opts.name.trim();
  try {
    return await getDb().transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(t)
        .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
        .for('update');
      if (!before) return undefined;
      await checkNameFree(tx, opts.accountId, name, before.id);
      const [tag] = await tx
        .update(t)
        .set({ name, color: opts.color })
        .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
        .returning();
      await recordChange(tx, {
        ...opts,
        type: 'tag_updated',
        subjectType: 'tag',
        subjectId: tag.id,
        payload: { name: tag.name, color: tag.color, previousName: before.name, previousColor: before.color },
      });
      return tag;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new FieldInputError(TAG_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

/** Returns false when the account has no such tag; the tag leaves every conversation that carried it. */
export async function deleteTag(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [tag] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!tag) return false;
    await recordChange(tx, { ...opts, type: 'tag_deleted', subjectType: 'tag', subjectId: tag.id, payload: { name: tag.name } });
    return true;
  });
}
