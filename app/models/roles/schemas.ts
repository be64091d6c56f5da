import { z } from 'zod';
import { ALL_PERMISSIONS, type Permission } from './permissions';
import { ROLE_NAME_REQUIRED_MESSAGE, ROLE_NAME_MAX_MESSAGE, ROLE_DESCRIPTION_MAX_MESSAGE, ROLE_PERMISSION_REQUIRED_MESSAGE } from './constants';
export * from './constants';

/** Role form (section 5, "Role"; section 4, "Role form"): name, optional description, at least one real permission. */
export const RoleSchema = z.object({
  role: z.string({ error: ROLE_NAME_REQUIRED_MESSAGE }).trim().min(1, ROLE_NAME_REQUIRED_MESSAGE).max(40, ROLE_NAME_MAX_MESSAGE),
  description: z.string().trim().max(150, ROLE_DESCRIPTION_MAX_MESSAGE).nullish(),
  permissions: z
    .array(z.enum(ALL_PERMISSIONS as [Permission, ...Permission[]], { error: 'Unknown permission' }), { error: ROLE_PERMISSION_REQUIRED_MESSAGE })
    .min(1, ROLE_PERMISSION_REQUIRED_MESSAGE),
});

export type RoleInput = z.infer<typeof RoleSchema>;
