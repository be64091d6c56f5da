import { z } from 'zod';
import { normalisePhone, phoneDigits } from './phone';

/* Apart from phone.ts so that screens that only format numbers ship no zod (ADR 027). */

/**
 * An optional phone field: what was typed, normalised, then the specification's rule (digits only, `min` to
 * `max` of them) with its own messages. The parsed value is the stored form.
 */
export function phoneSchema(opts: { min: number; max: number; invalid: string; tooShort: string; tooLong: string }) {
  return z
    .string()
    .trim()
    .transform((typed, ctx) => {
      const read = normalisePhone(typed);
      if (!read.ok) {
        ctx.addIssue({ code: 'custom', message: opts.invalid });
        return z.NEVER;
      }
      const digits = phoneDigits(read.value);
      if (digits.length < opts.min) ctx.addIssue({ code: 'custom', message: opts.tooShort });
      else if (digits.length > opts.max) ctx.addIssue({ code: 'custom', message: opts.tooLong });
      return read.value;
    })
    .optional();
}
