import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { ALL_PERMISSIONS, isPermission, type Permission } from './permissions';

export const ROLE_NAME_TAKEN_MESSAGE = 'A role with this name already exists';
export const ROLE_IN_USE_MESSAGE = 'This role is assigned to users. Move them to another role first.';
export const OWNER_ROLE_LOCKED_MESSAGE = 'The Owner role cannot be edited.';
export const DEFAULT_ROLE_DELETE_MESSAGE = 'Default roles cannot be deleted.';

/** A rule the form schema cannot see (uniqueness, default roles, roles in use). Routes answer it with a 400. */
export class RoleInputError extends Error {
  constructor(
    message: string,
    readonly field: 'role' | 'permissions' | null = null,
  ) {
    super(message);
  }
}

export type Role = typeof schema.roles.$inferSelect;

const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === '23505';

// Default roles first, in rank order, then custom roles by name.
const roleOrder = [
  sql`case ${schema.roles.kind} when 'owner' then 0 when 'admin' then 1 when 'agent' then 2 else 3 end`,
  sql`lower(${schema.roles.name})`,
  asc(schema.roles.id),
];

const roleWithCount = {
  id: schema.roles.id,
  name: schema.roles.name,
  description: schema.roles.description,
  kind: schema.roles.kind,
  permissions: schema.roles.permissions,
  createdAt: schema.roles.createdAt,
  userCount: sql<number>`count(${schema.users.id})::int`,
};

// Users are counted through a join on the same account, so that a stray row elsewhere can never add to a count.
const holders = and(eq(schema.users.roleId, schema.roles.id), eq(schema.users.accountId, schema.roles.accountId));

/** Every role of the account with the number of users holding it (for pickers and the roles page). */
export async function listRoles(opts: { accountId: number }) {
  return getDb()
    .select(roleWithCount)
    .from(schema.roles)
    .leftJoin(schema.users, holders)
    .where(eq(schema.roles.accountId, opts.accountId))
    .groupBy(schema.roles.id)
    .orderBy(...roleOrder);
}

/** One page of the account's roles, with user counts. */
export async function listRolesPage(opts: { accountId: number; page?: number; pageSize?: number }) {
  const db = getDb();
  const pageSize = opts.pageSize ?? 20;
  const page = Math.max(1, opts.page ?? 1);
  const rows = await db
    .select(roleWithCount)
    .from(schema.roles)
    .leftJoin(schema.users, holders)
    .where(eq(schema.roles.accountId, opts.accountId))
    .groupBy(schema.roles.id)
    .orderBy(...roleOrder)
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [{ total }] = await db.select({ total: count() }).from(schema.roles).where(eq(schema.roles.accountId, opts.accountId));
  return { rows, total, page, pageSize };
}

/** One role of the account, or undefined (another account's id looks like a missing one). */
export async function getRole(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [role] = await db
    .select()
    .from(schema.roles)
    .where(and(eq(schema.roles.id, opts.id), eq(schema.roles.accountId, opts.accountId)));
  return role;
}

/** The users who have a role (GET users/role/{id}). */
export async function listRoleUsers(opts: { accountId: number; roleId: number }) {
  return getDb()
    .select({
      id: schema.users.id,
      firstName: schema.users.firstName,
      lastName: schema.users.lastName,
      email: schema.users.email,
      status: schema.users.status,
      hasAccess: schema.users.hasAccess,
    })
    .from(schema.users)
    .where(and(eq(schema.users.roleId, opts.roleId), eq(schema.users.accountId, opts.accountId)))
    .orderBy(asc(schema.users.firstName), asc(schema.users.lastName), asc(schema.users.id));
}

function cleanPermissions(permissions: readonly string[]): Permission[] {
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw new RoleInputError(`Unknown permission: ${unknown.join(', ')}`, 'permissions');
  const chosen = new Set(permissions);
  const list = ALL_PERMISSIONS.filter((p) => chosen.has(p));
  if (list.length === 0) throw new RoleInputError('Select at least one permission', 'permissions');
  return list;
}

function cleanDescription(description: string | null | undefined) {
  const d = description?.trim();
  return d ? d : null;
}

async function checkNameFree(tx: Tx, accountId: number, name: string, exceptId?: number) {
  const [clash] = await tx
    .select({ id: schema.roles.id })
    .from(schema.roles)
    .where(and(eq(schema.roles.accountId, accountId), sql`lower(${schema.roles.name}) = ${name.toLowerCase()}`, exceptId ? ne(schema.roles.id, exceptId) : undefined));
  if (clash) throw new RoleInputError(ROLE_NAME_TAKEN_MESSAGE, 'role');
}

export async function createRole(opts: { accountId: number; actorId: number; name: string; description?: string | null; permissions: readonly string[] }) {
  const name = opts.name.trim();
  const permissions = cleanPermissions(opts.permissions);
  try {
    return await getDb().transaction(async (tx) => {
      await checkNameFree(tx, opts.accountId, name);
      const [role] = await tx
        .insert(schema.roles)
        .values({ accountId: opts.accountId, name, description: cleanDescription(opts.description), permissions, kind: null })
        .returning();
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'role_created',
        subjectType: 'role',
        subjectId: role.id,
        payload: { name: role.name, permissions },
        actor: { type: 'user', id: opts.actorId },
      });
      return role;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new RoleInputError(ROLE_NAME_TAKEN_MESSAGE, 'role');
    throw err;
  }
}

/**
 * Returns the updated role, or undefined when the account has no such role. Admin and Agent may be
 * renamed and given other permissions; the Owner role stays as it is, so that someone can always administer.
 */
export async function updateRole(opts: { accountId: number; actorId: number; id: number; name: string; description?: string | null; permissions: readonly string[] }) {
  const name = opts.name.trim();
  const permissions = cleanPermissions(opts.permissions);
  try {
    return await getDb().transaction(async (tx) => {
      const before = await getRole({ accountId: opts.accountId, id: opts.id }, tx);
      if (!before) return undefined;
      if (before.kind === 'owner') throw new RoleInputError(OWNER_ROLE_LOCKED_MESSAGE);
      await checkNameFree(tx, opts.accountId, name, before.id);
      const [role] = await tx
        .update(schema.roles)
        .set({ name, description: cleanDescription(opts.description), permissions, updatedAt: new Date() })
        .where(and(eq(schema.roles.id, before.id), eq(schema.roles.accountId, opts.accountId)))
        .returning();
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'role_updated',
        subjectType: 'role',
        subjectId: role.id,
        payload: {
          name: role.name,
          previousName: before.name,
          added: permissions.filter((p) => !before.permissions.includes(p)),
          removed: before.permissions.filter((p) => !(permissions as string[]).includes(p)),
        },
        actor: { type: 'user', id: opts.actorId },
      });
      return role;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new RoleInputError(ROLE_NAME_TAKEN_MESSAGE, 'role');
    throw err;
  }
}

/** Returns false when the account has no such role. Default roles and roles still held by users stay. */
export async function deleteRole(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    // Locks the role so that no one is given it between the check and the delete.
    const [role] = await tx
      .select()
      .from(schema.roles)
      .where(and(eq(schema.roles.id, opts.id), eq(schema.roles.accountId, opts.accountId)))
      .for('update');
    if (!role) return false;
    if (role.kind) throw new RoleInputError(DEFAULT_ROLE_DELETE_MESSAGE);
    const [{ holders }] = await tx
      .select({ holders: count() })
      .from(schema.users)
      .where(and(eq(schema.users.roleId, role.id), eq(schema.users.accountId, opts.accountId)));
    if (holders > 0) throw new RoleInputError(ROLE_IN_USE_MESSAGE);
    await tx.delete(schema.roles).where(and(eq(schema.roles.id, role.id), eq(schema.roles.accountId, opts.accountId)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'role_deleted',
      subjectType: 'role',
      subjectId: role.id,
      payload: { name: role.name },
      actor: { type: 'user', id: opts.actorId },
    });
    return true;
  });
}
