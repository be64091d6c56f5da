/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import { ALL_PERMISSIONS, PERMISSION_GROUPS, type Permission, type PermissionGroup } from './permissions';

export const ROLE_NAME_REQUIRED_MESSAGE = 'Role Name is not allowed to be empty';

export const ROLE_NAME_MAX_MESSAGE = 'Role Name should have a length of 40 characters or less';

export const ROLE_DESCRIPTION_MAX_MESSAGE = 'Description length must be less than or equal to 150 characters';

export const ROLE_PERMISSION_REQUIRED_MESSAGE = 'Select at least one permission';

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
