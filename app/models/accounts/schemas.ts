import { z } from 'zod';
import { EmailSchema } from './email-schema';
import { COMPANY_SIZES, IDLE_SIGN_OUT_CHOICES, INDUSTRIES, LANGUAGES } from './constants';

export { IDLE_SIGN_OUT_CHOICES } from './constants';
export * from './constants';
export { EmailSchema } from './email-schema';

/** Account domain: trimmed; letters, digits and hyphen; 4 to 20 characters (section 5, "Shared"). */
export const DomainSchema = z
  .string({ error: 'Length must be at least 4 characters' })
  .trim()
  .min(4, 'Length must be at least 4 characters')
  .max(20, 'Length must be less than or equal to 20 characters')
  .regex(/^[A-Za-z0-9-]+$/, 'Domain should have only number, alphabet or -')
  .transform((d) => d.toLowerCase());

/** Short text: trimmed, 2 to 20 characters, with the specification's (misspelt) message. */
export const ShortTextSchema = z
  .string({ error: 'Length must be at least 2 characters' })
  .trim()
  .min(2, 'Length must be at least 2 characters')
  .max(20, 'Length must be less than or equal to 20 characters');


/** Any zone the runtime's time-zone database knows (canonical names, aliases and UTC). */
export function isTimeZone(value: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const TimezoneSchema = z
  .string({ error: 'Choose a time zone' })
  .trim()
  .min(1, 'Choose a time zone')
  .refine(isTimeZone, 'Choose a time zone');

export const PasswordSchema = z
  .string({ error: 'Password is required' })
  .min(8, 'Password must be at least 8 characters')
  .max(128, 'Password must be less than or equal to 128 characters');

export const SignupSchema = z.object({
  domain: DomainSchema,
  firstName: ShortTextSchema,
  lastName: ShortTextSchema,
  email: EmailSchema,
  password: PasswordSchema,
});

export const DomainLookupSchema = z.object({ domain: DomainSchema });

export const SigninSchema = z.object({
  email: EmailSchema,
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required'),
  remember: z.boolean().optional(),
  redirectTo: z.string().optional(),
});

export const EmailCodeSchema = z.object({
  email: EmailSchema,
  code: z
    .string({ error: 'Enter the 6-digit code from the email' })
    .trim()
    .regex(/^\d{6}$/, 'Enter the 6-digit code from the email'),
});

export const ExtraDetailsSchema = z.object({
  organisationName: z
    .string({ error: 'Organisation name is required' })
    .trim()
    .min(2, 'Length must be at least 2 characters')
    .max(60, 'Length must be less than or equal to 60 characters'),
  companySize: z.enum(COMPANY_SIZES, { error: 'Choose a company size' }),
  industry: z.enum(INDUSTRIES, { error: 'Choose an industry' }),
});

export const ForgotPasswordSchema = z.object({ email: EmailSchema });
export const ForgotDomainSchema = z.object({ email: EmailSchema });
/** The verification page's "send the code again" form. */
export const ResendCodeSchema = z.object({ email: EmailSchema });

export const SetPasswordSchema = z
  .object({
    token: z.string().min(1, 'This link is invalid or has expired'),
    password: PasswordSchema,
    confirmPassword: z.string({ error: 'Passwords do not match' }),
  })
  .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords do not match' });

const LANGUAGE_CODES = LANGUAGES.map((l) => l.value) as [string, ...string[]];

export const AccountSettingsSchema = z.object({
  name: z
    .string({ error: 'Organisation name is required' })
    .trim()
    .min(2, 'Length must be at least 2 characters')
    .max(60, 'Length must be less than or equal to 60 characters'),
  // conform turns an empty field into undefined, so a plain optional email keeps the email message for bad input.
  supportEmail: EmailSchema.optional(),
  defaultTimezone: TimezoneSchema,
  language: z.enum(LANGUAGE_CODES, { error: 'Choose a language' }),
});

/** Idle sign-out choices in minutes; 0 is never (ADR 148). */

export const AccountSecuritySchema = z.object({
  requireTwoFactor: z.boolean().default(false),
  idleSignOutMinutes: z.coerce
    .number({ error: 'Choose when to sign out idle users' })
    .int('Choose when to sign out idle users')
    .refine((v) => (IDLE_SIGN_OUT_CHOICES as readonly number[]).includes(v), 'Choose when to sign out idle users'),
});
