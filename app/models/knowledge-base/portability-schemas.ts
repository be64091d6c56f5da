import { z } from 'zod';
import { KB_NAME_MAX, maxLengthMessage } from './constants';

/** Backup & Restore's restore form (ADR 059): where the backup goes; replacing this knowledge base needs a tick. */
export const RestoreBackupSchema = z
  .object({
    target: z.enum(['this', 'new'], { error: 'Choose where to restore the backup' }),
    name: z.string().trim().max(KB_NAME_MAX, maxLengthMessage(KB_NAME_MAX)).optional(),
    confirm: z.boolean().optional().default(false),
  })
  .superRefine((v, ctx) => {
    if (v.target === 'this' && !v.confirm) {
      ctx.addIssue({ code: 'custom', path: ['confirm'], message: "Tick the box to confirm that this knowledge base's content is replaced" });
    }
  });

/** Import & Export: a help centre's address to import from (Zendesk Help Center), and its locale. */
export const ZendeskImportSchema = z.object({
  url: z
    .string({ error: "Enter the help centre's address" })
    .trim()
    .min(1, "Enter the help centre's address")
    .max(300, maxLengthMessage(300))
    .refine((v) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v), 'Enter an address that starts with https:// (or http://)'),
  locale: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/, 'Enter a locale like en-us')
    .optional(),
});
