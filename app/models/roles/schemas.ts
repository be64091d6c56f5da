import { z } from 'zod';
import { ALL_PERMISSIONS, PERMISSION_GROUPS, type Permission, type PermissionGroup } from './permissions';

export const ROLE_NAME_REQUIRED_MESSAGE = 'Role Name is not allowed to be empty';
export const ROLE_NAME_MAX_MESSAGE = 'Role Name should have a length of 40 characters or less';
export const ROLE_DESCRIPTION_MAX_MESSAGE = 'Description length must be less than or equal to 150 characters';
export const ROLE_PERMISSION_REQUIRED_MESSAGE = 'Select at least one permission';

/** Role form (section 5, "Role"; section 4, "Role form"): name, optional description, at least one real permission. */
export const RoleSchema = z.object({
  role: z.string({ error: ROLE_NAME_REQUIRED_MESSAGE }).trim().min(1, ROLE_NAME_REQUIRED_MESSAGE).max(40, ROLE_NAME_MAX_MESSAGE),
  description: z.string().trim().max(150, ROLE_DESCRIPTION_MAX_MESSAGE).nullish(),
  permissions: z
    .array(z.enum(ALL_PERMISSIONS as [Permission, ...Permission[]], { error: 'Unknown permission' }), { error: ROLE_PERMISSION_REQUIRED_MESSAGE })
    .min(1, ROLE_PERMISSION_REQUIRED_MESSAGE),
});

export type RoleInput = z.infer<typeof RoleSchema>;

export const PERMISSION_GROUP_NAMES = Object.keys(PERMISSION_GROUPS) as PermissionGroup[];

export function isPermissionGroup(value: unknown): value is PermissionGroup {
  return typeof value === 'string' && (PERMISSION_GROUP_NAMES as string[]).includes(value);
}

/** Selects or clears one group's permissions in a list, keeping the others and the catalogue's order. */
export function toggleGroup(current: readonly string[], group: PermissionGroup, select: boolean): Permission[] {
  const inGroup = new Set<string>(PERMISSION_GROUPS[group]);
  const chosen = new Set(current.filter((p) => !inGroup.has(p)));
  if (select) for (const p of inGroup) chosen.add(p);
  return ALL_PERMISSIONS.filter((p) => chosen.has(p));
}
