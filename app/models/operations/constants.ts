/** Plain values of the forms in schemas.ts, apart from zod so that screens can show them without shipping it (ADR 027). */
export const ERASE_CONFIRMATION_WORD = 'ERASE';
export const ERASE_CONFIRMATION_MESSAGE = `Type ${ERASE_CONFIRMATION_WORD} to confirm`;
