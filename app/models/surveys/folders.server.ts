import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { recordChange } from '../productivity/shared.server';
import { DEFAULT_FOLDER_NAME } from './constants';

export type SurveyFolder = typeof schema.surveyFolders.$inferSelect;
const f = schema.surveyFolders;

/** Bad input the form schema cannot see (a folder name taken, a folder of another account). Routes answer 400 (or 404). */
export class SurveyInputError extends Error {
  constructor(
    message: string,
    readonly field?: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Who is asking: private folders are seen by their users, their creator and the account's admins. */
export type Viewer = { userId: number; isAdmin: boolean };

/** The account's default folder, General, public (section 3): made the first time anyone needs it. */
export async function ensureDefaultFolder(opts: { accountId: number }, db: DbOrTx = getDb()): Promise<SurveyFolder> {
  const [found] = await db
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.isDefault, true)));
  if (found) return found;
  await db
    .insert(f)
    .values({ accountId: opts.accountId, name: DEFAULT_FOLDER_NAME, isPublic: true, isDefault: true })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.isDefault, true)));
  return row;
}

/** SQL: the folder is visible to the viewer. */
export function folderVisible(viewer: Viewer) {
  if (viewer.isAdmin) return sql`true`;
  return sql`(${f.isPublic} or ${viewer.userId} = any(${f.userIds}) or ${f.createdById} = ${viewer.userId})`;
}

/** The folders the viewer may see, General first, with their survey counts. */
export async function listFolders(opts: { accountId: number; viewer: Viewer }, db: DbOrTx = getDb()) {
  await ensureDefaultFolder(opts, db);
  const s = schema.surveys;
  return db
    .select({
      id: f.id,
      name: f.name,
      isPublic: f.isPublic,
      isDefault: f.isDefault,
      userIds: f.userIds,
      surveyCount: sql<number>`(select count(*)::int from ${s} where ${s.accountId} = ${f.accountId} and ${s.folderId} = ${f.id})`,
    })
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), folderVisible(opts.viewer)))
    .orderBy(sql`${f.isDefault} desc`, asc(sql`lower(${f.name})`), asc(f.id));
}

export async function getFolder(opts: { accountId: number; id: number; viewer?: Viewer }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(f)
    .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id), opts.viewer ? folderVisible(opts.viewer) : sql`true`));
  return row;
}

/** Only users of the account can be given a private folder. */
async function accountUserIds(tx: Tx, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  const rows = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), inArray(schema.users.id, ids)));
  if (rows.length !== new Set(ids).size) throw new SurveyInputError('Choose users of this account', 'userIds');
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === '23505';
const NAME_TAKEN = 'A folder with this name already exists';

export async function createFolder(opts: { accountId: number; actorId: number | null; name: string; isPublic: boolean; userIds: number[] }) {
  try {
    return await getDb().transaction(async (tx) => {
      await ensureDefaultFolder(opts, tx);
      const userIds = opts.isPublic ? [] : await accountUserIds(tx, opts.accountId, opts.userIds);
      const [row] = await tx
        .insert(f)
        .values({ accountId: opts.accountId, name: opts.name.trim(), isPublic: opts.isPublic, userIds, createdById: opts.actorId })
        .returning();
      await recordChange(tx, { ...opts, type: 'survey_folder_created', subjectType: 'survey_folder', subjectId: row.id, payload: { name: row.name, isPublic: row.isPublic } });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new SurveyInputError(NAME_TAKEN, 'name');
    throw err;
  }
}

/** General cannot be renamed or made private. */
export async function updateFolder(opts: { accountId: number; actorId: number | null; id: number; name: string; isPublic: boolean; userIds: number[] }) {
  try {
    return await getDb().transaction(async (tx) => {
      const current = await getFolder(opts, tx);
      if (!current) return undefined;
      if (current.isDefault) throw new SurveyInputError('The General folder cannot be changed', 'name');
      const userIds = opts.isPublic ? [] : await accountUserIds(tx, opts.accountId, opts.userIds);
      const [row] = await tx
        .update(f)
        .set({ name: opts.name.trim(), isPublic: opts.isPublic, userIds, updatedAt: new Date() })
        .where(and(eq(f.accountId, opts.accountId), eq(f.id, opts.id)))
        .returning();
      await recordChange(tx, { ...opts, type: 'survey_folder_updated', subjectType: 'survey_folder', subjectId: row.id, payload: { name: row.name, isPublic: row.isPublic } });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new SurveyInputError(NAME_TAKEN, 'name');
    throw err;
  }
}

/** Deletes a folder; its surveys move to General. General itself cannot be deleted. */
export async function deleteFolder(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const current = await getFolder(opts, tx);
    if (!current) return false;
    if (current.isDefault) throw new SurveyInputError('The General folder cannot be deleted');
    const general = await ensureDefaultFolder(opts, tx);
    const moved = await tx
      .update(schema.surveys)
      .set({ folderId: general.id })
      .where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.folderId, current.id)))
      .returning({ id: schema.surveys.id });
    await tx.delete(f).where(and(eq(f.accountId, opts.accountId), eq(f.id, current.id)));
    await recordChange(tx, { ...opts, type: 'survey_folder_deleted', subjectType: 'survey_folder', subjectId: current.id, payload: { name: current.name, surveysMoved: moved.length } });
    return true;
  });
}
