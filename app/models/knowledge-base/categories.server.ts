import { and, asc, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { recordChange } from '../productivity/shared.server';
import { slugify } from './constants';

export type KbCategory = typeof schema.kbCategories.$inferSelect;

const c = schema.kbCategories;
const a = schema.kbArticles;

/** A knowledge base's categories in their order, with the count of articles (not trashed) in each. */
export async function listCategories(opts: { accountId: number; knowledgeBaseId: number }, db: DbOrTx = getDb()) {
  return db
    .select({
      id: c.id,
      name: c.name,
      description: c.description,
      slug: c.slug,
      position: c.position,
      updatedAt: c.updatedAt,
      articleCount: sql<number>`(select count(*)::int from ${a} where ${a.accountId} = ${c.accountId} and ${a.categoryId} = ${c.id} and ${a.trashedAt} is null)`,
    })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId)))
    .orderBy(asc(c.position), asc(c.id));
}

export async function getCategory(opts: { accountId: number; knowledgeBaseId: number; id: number }, db: DbOrTx = getDb()): Promise<KbCategory | undefined> {
  const [row] = await db
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId), eq(c.id, opts.id)));
  return row;
}

type Who = { accountId: number; actorId: number | null; knowledgeBaseId: number };

export async function createCategory(opts: Who & { name: string; description?: string }) {
  const name = opts.name.trim();
  return getDb().transaction(async (tx) => {
    const [{ next }] = await tx
      .select({ next: sql<number>`coalesce(max(${c.position}), 0)::int + 1` })
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId)));
    const [row] = await tx
      .insert(c)
      .values({
        accountId: opts.accountId,
        knowledgeBaseId: opts.knowledgeBaseId,
        name,
        description: opts.description?.trim() ?? '',
        slug: slugify(name),
        position: next,
      })
      .returning();
    await recordChange(tx, { ...opts, type: 'kb_category_created', subjectType: 'kb_category', subjectId: row.id, payload: { name } });
    return row;
  });
}

export async function updateCategory(opts: Who & { id: number; name: string; description?: string }) {
  const name = opts.name.trim();
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(c)
      .set({ name, description: opts.description?.trim() ?? '', slug: slugify(name), updatedAt: new Date() })
      .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId), eq(c.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await recordChange(tx, { ...opts, type: 'kb_category_updated', subjectType: 'kb_category', subjectId: row.id, payload: { name } });
    return row;
  });
}

/** Deletes a category; its articles stay, without a category. */
export async function deleteCategory(opts: Who & { id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId), eq(c.id, opts.id)))
      .returning();
    if (!row) return false;
    await recordChange(tx, { ...opts, type: 'kb_category_deleted', subjectType: 'kb_category', subjectId: row.id, payload: { name: row.name } });
    return true;
  });
}

/**
 * Places `id` between `prevId` and `nextId` (section 7's updateCategorySequence: either may be absent at an end),
 * renumbering the list 1..n. Ids of other knowledge bases or accounts are ignored. Returns false when `id` is not ours.
 */
export async function setCategorySequence(opts: Who & { id: number; prevId?: number | null; nextId?: number | null }) {
  return getDb().transaction(async (tx) => {
    const ids = await lockedOrder(tx, opts);
    return reorder(tx, ids, opts, (order) =>
      tx.execute(
        sql`update ${c} set position = o.ord from unnest(${sql.raw(`array[${order.join(',')}]::int[]`)}) with ordinality as o(id, ord) where ${
          c.id
        } = o.id and ${c.accountId} = ${opts.accountId}`,
      ),
    );
  });
}

/** Move up / move down (the no-JavaScript reordering): the neighbour becomes the prev or next. */
export async function moveCategory(opts: Who & { id: number; direction: 'up' | 'down' }) {
  const ids = (await listCategories(opts)).map((r) => r.id);
  const i = ids.indexOf(opts.id);
  if (i < 0) return false;
  if (opts.direction === 'up') return i === 0 ? true : setCategorySequence({ ...opts, prevId: ids[i - 2] ?? null, nextId: ids[i - 1] });
  return i === ids.length - 1 ? true : setCategorySequence({ ...opts, prevId: ids[i + 1], nextId: ids[i + 2] ?? null });
}

async function lockedOrder(tx: Tx, opts: { accountId: number; knowledgeBaseId: number }) {
  const rows = await tx
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.knowledgeBaseId, opts.knowledgeBaseId)))
    .orderBy(asc(c.position), asc(c.id))
    .for('update');
  return rows.map((r) => r.id);
}

/** The shared prev/next placement of categories and articles. */
export async function reorder(
  _tx: Tx,
  ids: number[],
  opts: { id: number; prevId?: number | null; nextId?: number | null },
  write: (order: number[]) => Promise<unknown>,
) {
  if (!ids.includes(opts.id)) return false;
  const rest = ids.filter((x) => x !== opts.id);
  let at = 0;
  if (opts.prevId && rest.includes(opts.prevId)) at = rest.indexOf(opts.prevId) + 1;
  else if (opts.nextId && rest.includes(opts.nextId)) at = rest.indexOf(opts.nextId);
  else if (!opts.prevId && !opts.nextId) at = 0;
  rest.splice(at, 0, opts.id);
  if (rest.every((x) => Number.isInteger(x))) await write(rest);
  return true;
}
