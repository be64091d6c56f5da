import { z } from 'zod';
import { IMPORT_FIELDS, IMPORT_FIELD_LABELS, IMPORT_MESSAGES } from './imports-constants';
export * from './imports-constants';

/** The mapping step's form: one field per file column, and what to do with an email that already exists. */
export const ImportMappingSchema = z
  .object({
    mapping: z.array(z.enum(IMPORT_FIELDS, { error: 'Choose a field' })).min(1, IMPORT_MESSAGES.needKey),
    duplicateMode: z.enum(['skip', 'update'], { error: 'Choose how to handle duplicates' }),
  })
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    for (const field of v.mapping) {
      if (field === 'ignore') continue;
      if (seen.has(field)) ctx.addIssue({ code: 'custom', path: ['mapping'], message: IMPORT_MESSAGES.mappedTwice(IMPORT_FIELD_LABELS[field]) });
      seen.add(field);
    }
    if (!seen.has('email') && !seen.has('firstName') && !seen.has('lastName')) {
      ctx.addIssue({ code: 'custom', path: ['mapping'], message: IMPORT_MESSAGES.needKey });
    }
  });

