import { z } from 'zod';
import { DATE_FORMATS } from '../../utils/format';
import { EmailSchema, PasswordSchema, ShortTextSchema, TimezoneSchema } from '../accounts/schemas';
import { MAX_ROW_ID } from '../../utils/route-id';
import { MAX_AVATAR_BYTES, AVATAR_SIZE_MESSAGE } from './constants';
export * from './constants';

export { isTimeZone, TimezoneSchema } from '../accounts/schemas';

export const ProfileSchema = z.object({
  firstName: ShortTextSchema,
  lastName: ShortTextSchema,
  dateFormat: z.string({ error: 'Choose a date format' }).refine((v) => DATE_FORMATS.includes(v), 'Choose a date format'),
  timeFormat: z.enum(['12', '24'], { error: 'Choose a time format' }),
  timezone: TimezoneSchema,
});

export const AvatarSchema = z.object({
  // The declared type comes from the file name, so only the server's look at the bytes decides the type.
  avatar: z.file({ error: 'Choose an image' }).max(MAX_AVATAR_BYTES, AVATAR_SIZE_MESSAGE),
});

export const ChangePasswordSchema = z
  .object({
    currentPassword: z.string({ error: 'Current password is required' }).min(1, 'Current password is required'),
    newPassword: PasswordSchema,
    confirmPassword: z.string({ error: 'Passwords do not match' }),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords do not match' });

export const NotificationPreferencesSchema = z.object({
  emailOnAssignment: z.boolean().default(false),
  emailOnMention: z.boolean().default(false),
  emailOnNewConversation: z.boolean().default(false),
  emailOnCustomerMessage: z.boolean().default(false),
  emailOnSla: z.boolean().default(false),
  browserPush: z.boolean().default(false),
});

const RoleIdSchema = z.number({ error: 'Choose a role' }).int('Choose a role').positive('Choose a role').max(MAX_ROW_ID, 'Choose a role');

export const InviteUserSchema = z.object({
  email: EmailSchema,
  firstName: ShortTextSchema,
  lastName: ShortTextSchema,
  roleId: RoleIdSchema,
});

export const EditUserSchema = z.object({
  firstName: ShortTextSchema,
  lastName: ShortTextSchema,
  roleId: RoleIdSchema,
});

export const UserIdSchema = z.object({ userId: z.number({ error: 'Unknown user' }).int().positive() });

export const UserAccessSchema = z.object({
  userId: z.number({ error: 'Unknown user' }).int().positive().optional(),
  access: z.enum(['give', 'refuse'], { error: 'Choose whether to give or refuse access' }),
});

/** A 6-digit code (app or email) or a recovery code; which one it is, the server works out. */
export const TwoFactorCodeSchema = z.object({
  code: z
    .string({ error: 'Enter the code' })
    .trim()
    .min(6, 'Enter the 6-digit code or a recovery code')
    .max(20, 'Enter the 6-digit code or a recovery code'),
  redirectTo: z.string().optional(),
});

export const DisableTwoFactorSchema = z
  .object({
    password: z.string().max(200).optional(),
    code: z.string().trim().max(20).optional(),
  })
  .refine((v) => Boolean(v.password || v.code), { path: ['password'], message: 'Enter your current password or a code' });

export const EmailChangeSchema = z.object({
  newEmail: EmailSchema,
  password: z.string({ error: 'Current password is required' }).min(1, 'Current password is required').max(200),
});
