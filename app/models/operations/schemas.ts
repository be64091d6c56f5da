import { z } from 'zod';
import { EmailSchema } from '../accounts/email-schema';
import { ERASE_CONFIRMATION_MESSAGE, ERASE_CONFIRMATION_WORD } from './constants';

export { ERASE_CONFIRMATION_MESSAGE, ERASE_CONFIRMATION_WORD } from './constants';

/** The account's setting of what contact erasure does to the contact's conversations (ADR 153). */
export const ErasureModeSchema = z.object({
  mode: z.enum(['anonymise', 'delete'], { error: 'Choose what happens to the conversations' }),
});


/** The typed confirmation of a contact's erasure: nothing is erased by a slipped click. */
export const EraseContactSchema = z.object({
  confirm: z
    .string({ error: ERASE_CONFIRMATION_MESSAGE })
    .trim()
    .refine((v) => v === ERASE_CONFIRMATION_WORD, ERASE_CONFIRMATION_MESSAGE),
});

/** The operator's console sign-in (ADR 152). */
export const OperatorSigninSchema = z.object({
  email: EmailSchema,
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(128, 'Password is required'),
});
