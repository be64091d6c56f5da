import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { revokeUserSessions } from '../auth/sessions.server';
import { emitEvent } from '../events/events.server';

type RoleKind = 'owner' | 'admin' | 'agent' | null;

/** Who is acting: the rules below depend on the actor's own role. */
export type UserActor = { id: number; roleKind: RoleKind };

export type UserStatusLabel = 'Active' | 'Invited' | 'Access refused';

export function userStatusLabel(user: { status: 'pending' | 'active'; hasAccess: boolean }): UserStatusLabel {
  if (!user.hasAccess) return 'Access refused';
  return user.status === 'pending' ? 'Invited' : 'Active';
}

export const USER_SORT_COLUMNS = ['name', 'email', 'role', 'status', 'lastSignIn'] as const;
export type UserSortColumn = (typeof USER_SORT_COLUMNS)[number];

const statusRank = sql<number>`case when not ${schema.users.hasAccess} then 2 when ${schema.users.status} = 'pending' then 1 else 0 end`;

const SORT_EXPRESSIONS: Record<UserSortColumn, SQL[]> = {
  name: [sql`lower(${schema.users.firstName})`, sql`lower(${schema.users.lastName})`],
  email: [sql`lower(${schema.users.email})`],
  role: [sql`lower(${schema.roles.name})`],
  status: [statusRank],
  lastSignIn: [sql`${schema.users.lastSignInAt}`],
};

const listColumns = {
  id: schema.users.id,
  email: schema.users.email,
  firstName: schema.users.firstName,
  lastName: schema.users.lastName,
  status: schema.users.status,
  hasAccess: schema.users.hasAccess,
  invitedAt: schema.users.invitedAt,
  lastSignInAt: schema.users.lastSignInAt,
  avatarColor: schema.users.avatarColor,
  avatarType: schema.users.avatarType,
  roleId: schema.roles.id,
  roleName: schema.roles.name,
  roleKind: schema.roles.kind,
};

/** One page of the account's users with their role, sorted by one of the list's columns. */
export async function listUsers(opts: { accountId: number; page: number; pageSize: number; sort: UserSortColumn; dir: 'asc' | 'desc' }) {
  const db = getDb();
  const order = opts.dir === 'desc' ? desc : asc;
  const nulls = opts.dir === 'desc' ? sql`nulls last` : sql`nulls first`;
  const rows = await db
    .select(listColumns)
    .from(schema.users)
    .innerJoin(schema.roles, and(eq(schema.roles.id, schema.users.roleId), eq(schema.roles.accountId, opts.accountId)))
    .where(eq(schema.users.accountId, opts.accountId))
    .orderBy(...SORT_EXPRESSIONS[opts.sort].map((e) => sql`${order(e)} ${nulls}`), asc(schema.users.id))
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize);
  const [{ total }] = await db.select({ total: count() }).from(schema.users).where(eq(schema.users.accountId, opts.accountId));
  return { rows: rows.map((r) => ({ ...r, hasAvatar: Boolean(r.avatarType), statusLabel: userStatusLabel(r) })), total };
}

export async function getUser(opts: { accountId: number; userId: number }) {
  const [row] = await getDb()
    .select(listColumns)
    .from(schema.users)
    .innerJoin(schema.roles, and(eq(schema.roles.id, schema.users.roleId), eq(schema.roles.accountId, opts.accountId)))
    .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
  return row ? { ...row, hasAvatar: Boolean(row.avatarType), statusLabel: userStatusLabel(row) } : undefined;
}

/** The roles the actor may hand out: every role of the account, the Owner role only by an owner. */
export async function listAssignableRoles(opts: { accountId: number; actor: UserActor }) {
  const roles = await getDb()
    .select({ id: schema.roles.id, name: schema.roles.name, kind: schema.roles.kind })
    .from(schema.roles)
    .where(eq(schema.roles.accountId, opts.accountId))
    .orderBy(asc(schema.roles.id));
  return roles.filter((r) => r.kind !== 'owner' || opts.actor.roleKind === 'owner');
}

export const USER_RULE_MESSAGES = {
  ownerRoleOnlyByOwner: 'Only an owner can give the Owner role',
  ownerOnlyByOwner: 'Only an owner can edit the account owner',
  ownerRoleFixed: "The account owner's role cannot be changed",
  ownerAccessFixed: "The account owner's access cannot be refused",
  ownerNotDeletable: 'The account owner cannot be deleted',
  selfAccess: 'You cannot refuse your own access',
  selfDelete: 'You cannot delete yourself',
  stillReferenced: 'This user is still referenced by other records and cannot be deleted',
} as const;

export type UserChangeResult =
  | { ok: true }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_role' }
  | { ok: false; reason: 'forbidden'; message: string };

const forbidden = (message: string): UserChangeResult => ({ ok: false, reason: 'forbidden', message });

/**
 * Checks that a role may be given to someone invited, before the invitation is written: it must be a role
 * of this account, and the Owner role only comes from an owner.
 */
export async function checkRoleAssignable(opts: { accountId: number; actor: UserActor; roleId: number }): Promise<UserChangeResult> {
  const [role] = await getDb()
    .select({ kind: schema.roles.kind })
    .from(schema.roles)
    .where(and(eq(schema.roles.id, opts.roleId), eq(schema.roles.accountId, opts.accountId)));
  if (!role) return { ok: false, reason: 'invalid_role' };
  if (role.kind === 'owner' && opts.actor.roleKind !== 'owner') return forbidden(USER_RULE_MESSAGES.ownerRoleOnlyByOwner);
  return { ok: true };
}

/** Locks and reads the target user with their role's kind, inside the caller's transaction. */
async function lockTarget(tx: Tx, opts: { accountId: number; userId: number }) {
  const [row] = await tx
    .select({ user: schema.users, roleKind: schema.roles.kind })
    .from(schema.users)
    .innerJoin(schema.roles, eq(schema.roles.id, schema.users.roleId))
    .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)))
    .for('update', { of: schema.users });
  return row;
}

/** Edits another user's names and role. The owner's role never changes; only owners edit owners or make owners. */
export async function updateUser(opts: { accountId: number; actor: UserActor; userId: number; firstName: string; lastName: string; roleId: number }) {
  return getDb().transaction(async (tx): Promise<UserChangeResult> => {
    const target = await lockTarget(tx, opts);
    if (!target) return { ok: false, reason: 'not_found' };
    const [role] = await tx
      .select({ id: schema.roles.id, kind: schema.roles.kind })
      .from(schema.roles)
      .where(and(eq(schema.roles.id, opts.roleId), eq(schema.roles.accountId, opts.accountId)));
    if (!role) return { ok: false, reason: 'invalid_role' };
    if (target.roleKind === 'owner') {
      if (opts.actor.roleKind !== 'owner') return forbidden(USER_RULE_MESSAGES.ownerOnlyByOwner);
      if (role.id !== target.user.roleId) return forbidden(USER_RULE_MESSAGES.ownerRoleFixed);
    }
    if (role.kind === 'owner' && role.id !== target.user.roleId && opts.actor.roleKind !== 'owner') {
      return forbidden(USER_RULE_MESSAGES.ownerRoleOnlyByOwner);
    }
    const changed = [
      target.user.firstName !== opts.firstName && 'firstName',
      target.user.lastName !== opts.lastName && 'lastName',
      target.user.roleId !== role.id && 'roleId',
    ].filter(Boolean);
    await tx
      .update(schema.users)
      .set({ firstName: opts.firstName, lastName: opts.lastName, roleId: role.id, updatedAt: new Date() })
      .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'user_updated',
      subjectType: 'user',
      subjectId: opts.userId,
      payload: { changed, ...(changed.includes('roleId') ? { fromRoleId: target.user.roleId, toRoleId: role.id } : {}) },
      actor: { type: 'user', id: opts.actor.id },
    });
    return { ok: true };
  });
}

/**
 * Gives or refuses a user access to the account. Refusing signs them out everywhere at once; nobody can
 * refuse themselves or the owner.
 */
export async function setUserAccess(opts: { accountId: number; actor: UserActor; userId: number; hasAccess: boolean }) {
  const result = await getDb().transaction(async (tx): Promise<UserChangeResult> => {
    const target = await lockTarget(tx, opts);
    if (!target) return { ok: false, reason: 'not_found' };
    if (!opts.hasAccess) {
      if (target.user.id === opts.actor.id) return forbidden(USER_RULE_MESSAGES.selfAccess);
      if (target.roleKind === 'owner') return forbidden(USER_RULE_MESSAGES.ownerAccessFixed);
    }
    if (target.user.hasAccess === opts.hasAccess) return { ok: true };
    await tx
      .update(schema.users)
      .set({ hasAccess: opts.hasAccess, updatedAt: new Date() })
      .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'user_access_changed',
      subjectType: 'user',
      subjectId: opts.userId,
      payload: { hasAccess: opts.hasAccess },
      actor: { type: 'user', id: opts.actor.id },
    });
    return { ok: true };
  });
  if (result.ok && !opts.hasAccess) await revokeUserSessions({ accountId: opts.accountId, userId: opts.userId });
  return result;
}

/** Deletes a user of the account (their sessions, tokens and team memberships go with them). */
export async function deleteUser(opts: { accountId: number; actor: UserActor; userId: number }) {
  try {
    return await getDb().transaction(async (tx): Promise<UserChangeResult> => {
      const target = await lockTarget(tx, opts);
      if (!target) return { ok: false, reason: 'not_found' };
      if (target.user.id === opts.actor.id) return forbidden(USER_RULE_MESSAGES.selfDelete);
      if (target.roleKind === 'owner') return forbidden(USER_RULE_MESSAGES.ownerNotDeletable);
      await tx.delete(schema.users).where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'user_deleted',
        subjectType: 'user',
        subjectId: opts.userId,
        payload: { email: target.user.email, firstName: target.user.firstName, lastName: target.user.lastName, roleId: target.user.roleId },
        actor: { type: 'user', id: opts.actor.id },
      });
      return { ok: true };
    });
  } catch (err) {
    // Records of later areas may point at the user without cascading (a foreign key violation).
    if ((err as { cause?: { code?: string } }).cause?.code === '23503') return forbidden(USER_RULE_MESSAGES.stillReferenced);
    throw err;
  }
}

/** Active users of the account who can be @mentioned in a note (ADR 034), by name. */
export async function listMentionableUsers(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.hasAccess, true), eq(schema.users.status, 'active')))
    .orderBy(asc(schema.users.firstName), asc(schema.users.lastName));
}
