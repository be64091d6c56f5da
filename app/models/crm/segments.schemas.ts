import { z } from 'zod';

const optionalId = (label: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,9}$/, `${label} must be a number`)
    .transform(Number)
    .optional();

/**
 * The segment dialog, both steps (section 4): step 1 name (required, trimmed, at most 20) and type; step 2
 * conditions (tag and company numeric or empty, country and isFavourite text or empty) or chosen members.
 */
export const SegmentFormSchema = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(20, 'Length must be less than or equal to 20 characters'),
  type: z.enum(['static', 'dynamic'], { error: 'Choose a type' }),
  assigneeId: optionalId('Assignee'),
  tag: optionalId('Tag'),
  company: optionalId('Company'),
  country: z.string().trim().max(60).optional(),
  isFavourite: z.enum(['true', 'false']).optional(),
  memberIds: z.array(z.coerce.number().int().positive()).max(10_000).default([]),
});
export type SegmentFormInput = z.infer<typeof SegmentFormSchema>;

/** The dialog's first step (name and type), judged before the conditions are asked for. */
export const SegmentStepOneSchema = SegmentFormSchema.pick({ name: true, type: true });
