import { and, asc, count, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { isRowId } from '../../utils/route-id';

export const TEAM_NAME_TAKEN_MESSAGE = 'A team with this name already exists';
export const TEAM_FOREIGN_MEMBER_MESSAGE = 'Team members must be users of this account';

/** Bad input found by a rule the form schema cannot see (uniqueness, membership). Routes answer it with a 400. */
export class TeamInputError extends Error {
  constructor(
    message: string,
    readonly field: 'name' | 'assigneeIds',
  ) {
    super(message);
  }
}

export type Team = typeof schema.teams.$inferSelect;
export const TEAM_SORTS = ['name', 'createdAt'] as const;

const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === '23505';

export async function listTeams(opts: { accountId: number; page?: number; pageSize?: number; sort?: (typeof TEAM_SORTS)[number]; dir?: 'asc' | 'desc' }) {
  const db = getDb();
  const pageSize = opts.pageSize ?? 20;
  const page = Math.max(1, opts.page ?? 1);
  const column = opts.sort === 'createdAt' ? schema.teams.createdAt : sql`lower(${schema.teams.name})`;
  const rows = await db
    .select({
      id: schema.teams.id,
      name: schema.teams.name,
      description: schema.teams.description,
      createdAt: schema.teams.createdAt,
      memberCount: sql<number>`count(${schema.teamMembers.userId})::int`,
    })
    .from(schema.teams)
    .leftJoin(schema.teamMembers, eq(schema.teamMembers.teamId, schema.teams.id))
    .where(eq(schema.teams.accountId, opts.accountId))
    .groupBy(schema.teams.id)
    .orderBy(opts.dir === 'desc' ? desc(column) : asc(column), asc(schema.teams.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [{ total }] = await db.select({ total: count() }).from(schema.teams).where(eq(schema.teams.accountId, opts.accountId));
  return { rows, total, page, pageSize };
}

/** One team of the account with its members' ids, or undefined (another account's id looks like a missing one). */
export async function getTeam(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [team] = await db
    .select()
    .from(schema.teams)
    .where(and(eq(schema.teams.id, opts.id), eq(schema.teams.accountId, opts.accountId)));
  if (!team) return undefined;
  const members = await db
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
    .from(schema.teamMembers)
    .innerJoin(schema.users, eq(schema.users.id, schema.teamMembers.userId))
    .where(and(eq(schema.teamMembers.teamId, team.id), eq(schema.users.accountId, opts.accountId)))
    .orderBy(asc(schema.users.firstName), asc(schema.users.id));
  return { ...team, members, memberIds: members.map((m) => m.id) };
}

/** The users a team can be made of: everyone of the account. */
export async function listTeamCandidates(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
    .from(schema.users)
    .where(eq(schema.users.accountId, opts.accountId))
    .orderBy(asc(schema.users.firstName), asc(schema.users.lastName), asc(schema.users.id));
}

async function checkMembers(tx: Tx, accountId: number, memberIds: number[]) {
  const ids = [...new Set(memberIds)];
  if (ids.length === 0) throw new TeamInputError('Team member must be specified', 'assigneeIds');
  if (!ids.every(isRowId)) throw new TeamInputError(TEAM_FOREIGN_MEMBER_MESSAGE, 'assigneeIds');
  const found = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), inArray(schema.users.id, ids)));
  if (found.length !== ids.length) throw new TeamInputError(TEAM_FOREIGN_MEMBER_MESSAGE, 'assigneeIds');
  return ids;
}

async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  const [clash] = await tx
    .select({ id: schema.teams.id })
    .from(schema.teams)
    .where(
      and(
        eq(schema.teams.accountId, accountId),
        sql`lower(${schema.teams.name}) = ${name.toLowerCase()}`,
        exceptId ? ne(schema.teams.id, exceptId) : undefined,
      ),
    );
  if (clash) throw new TeamInputError(TEAM_NAME_TAKEN_MESSAGE, 'name');
}

async function setMembers(tx: Tx, teamId: number, memberIds: number[]) {
  await tx.delete(schema.teamMembers).where(eq(schema.teamMembers.teamId, teamId));
  await tx.insert(schema.teamMembers).values(memberIds.map((userId) => ({ teamId, userId })));
}

function cleanDescription(description: string | null | undefined) {
  const d = description?.trim();
  return d ? d : null;
}

export async function createTeam(opts: { accountId: number; actorId: number; name: string; description?: string | null; memberIds: number[] }) {
  const name = opts.name.trim();
  try {
    return await getDb().transaction(async (tx) => {
      const memberIds = await checkMembers(tx, opts.accountId, opts.memberIds);
      await checkNameFree(tx, opts.accountId, name);
      const [team] = await tx
        .insert(schema.teams)
        .values({ accountId: opts.accountId, name, description: cleanDescription(opts.description) })
        .returning();
      await setMembers(tx, team.id, memberIds);
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'team_created',
        subjectType: 'team',
        subjectId: team.id,
        payload: { name: team.name, memberIds },
        actor: { type: 'user', id: opts.actorId },
      });
      return team;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new TeamInputError(TEAM_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

/** Returns the updated team, or undefined when the account has no such team. */
export async function updateTeam(opts: { accountId: number; actorId: number; id: number; name: string; description?: string | null; memberIds: number[] }) {
  const name = opts.name.trim();
  try {
    return await getDb().transaction(async (tx) => {
      const before = await getTeam({ accountId: opts.accountId, id: opts.id }, tx);
      if (!before) return undefined;
      const memberIds = await checkMembers(tx, opts.accountId, opts.memberIds);
      await checkNameFree(tx, opts.accountId, name, before.id);
      const [team] = await tx
        .update(schema.teams)
        .set({ name, description: cleanDescription(opts.description), updatedAt: new Date() })
        .where(and(eq(schema.teams.id, before.id), eq(schema.teams.accountId, opts.accountId)))
        .returning();
      await setMembers(tx, team.id, memberIds);
      const added = memberIds.filter((id) => !before.memberIds.includes(id));
      const removed = before.memberIds.filter((id) => !memberIds.includes(id));
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'team_updated',
        subjectType: 'team',
        subjectId: team.id,
        payload: { name: team.name, previousName: before.name, memberIds, added, removed },
        actor: { type: 'user', id: opts.actorId },
      });
      return team;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new TeamInputError(TEAM_NAME_TAKEN_MESSAGE, 'name');
    throw err;
  }
}

/** Returns false when the account has no such team. Memberships go with it. */
export async function deleteTeam(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [team] = await tx
      .delete(schema.teams)
      .where(and(eq(schema.teams.id, opts.id), eq(schema.teams.accountId, opts.accountId)))
      .returning();
    if (!team) return false;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'team_deleted',
      subjectType: 'team',
      subjectId: team.id,
      payload: { name: team.name },
      actor: { type: 'user', id: opts.actorId },
    });
    return true;
  });
}
