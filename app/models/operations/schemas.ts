import { z } from 'zod';

/** The account's setting of what contact erasure does to the contact's conversations (ADR 153). */
export const ErasureModeSchema = z.object({
  mode: z.enum(['anonymise', 'delete'], { error: 'Choose what happens to the conversations' }),
});

export const ERASE_CONFIRMATION_WORD = 'ERASE';
export const ERASE_CONFIRMATION_MESSAGE = `Type ${ERASE_CONFIRMATION_WORD} to confirm`;

/** The typed confirmation of a contact's erasure: nothing is erased by a slipped click. */
export const EraseContactSchema = z.object({
  confirm: z
    .string({ error: ERASE_CONFIRMATION_MESSAGE })
    .trim()
    .refine((v) => v === ERASE_CONFIRMATION_WORD, ERASE_CONFIRMATION_MESSAGE),
});
