import { z } from 'zod';
import { EmailSchema, ShortTextSchema } from '../accounts/schemas';
import { isCountryCode } from './countries';
import { phoneSchema } from '../../utils/phone-schema';
import { MAX_ROW_ID } from '../../utils/route-id';

/**
 * Contact and company phone: optional, digits only, 4 to 16 (section 5 "Contact"), or with its country code a plus and
 * 4 to 14 ("phone digits 4 to 16 (or plus and 4 to 14)", section 9), read as people type it (ADR 036).
 */
export const CrmPhoneSchema = phoneSchema({
  international: true,
  min: 4,
  max: 16,
  invalid: 'Enter a valid phone number',
  tooShort: 'Length must be at least 4 characters',
  tooLong: 'Length must be less than or equal to 16 characters',
});

export const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
export const INVALID_DOMAIN_MESSAGE = 'Invalid Domain';

/** A host name such as example.com (lower-cased); a leading scheme or www. is tolerated and dropped. */
export const CrmDomainSchema = z
  .string()
  .trim()
  .transform((d) => d.replace(/^https?:\/\//i, '').replace(/\/.*$/, '').replace(/^www\./i, '').toLowerCase())
  .refine((d) => DOMAIN_RE.test(d), INVALID_DOMAIN_MESSAGE)
  .optional();

/** The host of a web address, with or without its scheme; null when it has no valid domain. */
export function hostOf(value: string): string | null {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
    if (!['http:', 'https:'].includes(url.protocol)) return null;
    return DOMAIN_RE.test(url.hostname) ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

export const WEBSITE_MESSAGE = 'Website should have a valid uri';

export const CountrySchema = z
  .string()
  .trim()
  .refine((c) => isCountryCode(c), 'Choose a country from the list')
  .optional();

const addressFields = {
  country: CountrySchema,
  locality: z.string().trim().max(100, 'Length must be less than or equal to 100 characters').optional(),
  streetAddress: z.string().trim().max(200, 'Length must be less than or equal to 200 characters').optional(),
  postalCode: z.string().trim().max(20, 'Length must be less than or equal to 20 characters').optional(),
};
export { addressFields };

export const TagIdsSchema = z.array(z.coerce.number().int().positive()).max(100).default([]);

/** The first form (create): names and email required; phone, company name and domain optional. */
export const ContactCreateSchema = z.object({
  firstName: z.string({ error: 'First Name is required' }).trim().min(1, 'First Name is required').max(100, 'Length must be less than or equal to 100 characters'),
  lastName: z.string({ error: 'Last Name is required' }).trim().min(1, 'Last Name is required').max(100, 'Length must be less than or equal to 100 characters'),
  email: EmailSchema,
  phone: CrmPhoneSchema,
  companyName: ShortTextSchema.optional(),
  companyDomain: CrmDomainSchema,
});
export type ContactCreateInput = z.infer<typeof ContactCreateSchema>;

/** The second form (edit): first name required, last name may be empty; website 2 to 200 and a valid uri. */
export const ContactEditSchema = z.object({
  firstName: z.string({ error: 'First Name is required' }).trim().min(1, 'First Name is required').max(100, 'Length must be less than or equal to 100 characters'),
  lastName: z.string().trim().max(100, 'Length must be less than or equal to 100 characters').optional(),
  email: EmailSchema.optional(),
  phone: CrmPhoneSchema,
  title: z.string().trim().max(100, 'Length must be less than or equal to 100 characters').optional(),
  website: z
    .string()
    .trim()
    .min(2, 'Length must be at least 2 characters')
    .max(200, 'Length must be less than or equal to 200 characters')
    .refine((w) => hostOf(w) !== null, WEBSITE_MESSAGE)
    .optional(),
  companyName: ShortTextSchema.optional(),
  assigneeId: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
  ...addressFields,
  tagIds: TagIdsSchema,
});
export type ContactEditInput = z.infer<typeof ContactEditSchema>;

/** Notes and descriptions: trimmed, 2 to 160 characters. */
export const NoteBodySchema = z
  .string({ error: 'Length must be at least 2 characters' })
  .trim()
  .min(2, 'Length must be at least 2 characters')
  .max(160, 'Length must be less than or equal to 160 characters');
export const NoteSchema = z.object({ body: NoteBodySchema });

export const BulkTagSchema = z.object({
  ids: z.array(z.coerce.number().int().positive().max(MAX_ROW_ID)).min(1, 'Select at least one row'),
  tagId: z.coerce.number({ error: 'Choose a tag' }).int().positive('Choose a tag'),
});
