import { z } from 'zod';
import { addressFields, CrmDomainSchema, CrmPhoneSchema, hostOf, NoteBodySchema, TagIdsSchema } from './contacts.schemas';

export const URL_DOMAIN_MESSAGE = 'Url should have a valid domain';

/** Section 5 "Company": name required; domain valid or empty; description and notes 2 to 160; url with a valid domain. */
export const CompanySchema = z
  .object({
    name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(100, 'Length must be less than or equal to 100 characters'),
    domain: CrmDomainSchema,
    url: z
      .string()
      .trim()
      .max(200, 'Length must be less than or equal to 200 characters')
      .refine((u) => hostOf(u) !== null, URL_DOMAIN_MESSAGE)
      .optional(),
    description: NoteBodySchema.optional(),
    phone: CrmPhoneSchema,
    ...addressFields,
    bindWithDomain: z.boolean().default(false),
    tagIds: TagIdsSchema,
  })
  .superRefine((v, ctx) => {
    if (v.bindWithDomain && !v.domain) ctx.addIssue({ code: 'custom', path: ['domain'], message: 'A domain is needed to bind contacts by domain' });
  });
export type CompanyInput = z.infer<typeof CompanySchema>;
