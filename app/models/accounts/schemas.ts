import { z } from 'zod';

export const RESERVED_DOMAINS = ['app', 'www', 'api', 'admin', 'mail', 'smtp', 'imap', 'help', 'docs', 'status', 'static', 'assets', 'ws', 'dev', 'parley'];
export const RESERVED_DOMAIN_MESSAGE = 'Invalid or reserved subdomain';

/** Account domain: trimmed; letters, digits and hyphen; 4 to 20 characters (section 5, "Shared"). */
export const DomainSchema = z
  .string({ error: 'Length must be at least 4 characters' })
  .trim()
  .min(4, 'Length must be at least 4 characters')
  .max(20, 'Length must be less than or equal to 20 characters')
  .regex(/^[A-Za-z0-9-]+$/, 'Domain should have only number , aplhabet or - ')
  .transform((d) => d.toLowerCase());

/** Short text: trimmed, 2 to 20 characters, with the specification's (misspelt) message. */
export const ShortTextSchema = z
  .string({ error: 'Length must me at least 2 charactes' })
  .trim()
  .min(2, 'Length must me at least 2 charactes')
  .max(20, 'Length must be less than or equal to 20 characters');

export const EmailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Length must be less than or equal to 254 characters')
  .pipe(z.email({ error: 'Enter a valid email address' }))
  .transform((e) => e.toLowerCase());

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

export const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-1000', '1000+'] as const;
export const INDUSTRIES = ['Software', 'E-commerce', 'Education', 'Finance', 'Healthcare', 'Agency', 'Other'] as const;

export const ExtraDetailsSchema = z.object({
  organisationName: z
    .string({ error: 'Organisation name is required' })
    .trim()
    .min(2, 'Length must me at least 2 charactes')
    .max(60, 'Length must be less than or equal to 60 characters'),
  companySize: z.enum(COMPANY_SIZES, { error: 'Choose a company size' }),
  industry: z.enum(INDUSTRIES, { error: 'Choose an industry' }),
});

export const ForgotPasswordSchema = z.object({ email: EmailSchema });
export const ForgotDomainSchema = z.object({ email: EmailSchema });

export const SetPasswordSchema = z
  .object({
    token: z.string().min(1, 'This link is invalid or has expired'),
    password: PasswordSchema,
    confirmPassword: z.string({ error: 'Passwords do not match' }),
  })
  .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'Passwords do not match' });

export const AccountSettingsSchema = z.object({
  name: z
    .string({ error: 'Organisation name is required' })
    .trim()
    .min(2, 'Length must me at least 2 charactes')
    .max(60, 'Length must be less than or equal to 60 characters'),
  supportEmail: z.union([z.literal('').transform(() => undefined), EmailSchema]).optional(),
  defaultTimezone: z.string().trim().min(1, 'Choose a time zone'),
  language: z.enum(['en', 'fr', 'de', 'es', 'pt', 'nl'], { error: 'Choose a language' }),
});
