import { z } from 'zod';
import { normalisePhone, phoneDigits } from './phone';
import { INTERNATIONAL_PHONE } from './phone-rules';

/* Apart from phone.ts so that screens that only format numbers ship no zod (ADR 027). */

/**
 * An optional phone field: what was typed, normalised, then the specification's rule (digits only, `min` to
 * `max` of them) with its own messages; with `international`, a number typed with its country code (leading + or
 * 00) is held to the international rule instead. The parsed value is the stored form.
 */
export function phoneSchema(opts: { min: number; max: number; invalid: string; tooShort: string; tooLong: string; international?: boolean }) {
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
      // "International phone" (section 5): typed with its country code, a plus and 4 to 14 digits.
      if (opts.international && read.value.startsWith('+') && (digits.length < INTERNATIONAL_PHONE.min || digits.length > INTERNATIONAL_PHONE.max)) {
        ctx.addIssue({ code: 'custom', message: INTERNATIONAL_PHONE.message });
        return z.NEVER;
      }
      if (digits.length < opts.min) ctx.addIssue({ code: 'custom', message: opts.tooShort });
      else if (digits.length > opts.max) ctx.addIssue({ code: 'custom', message: opts.tooLong });
      return read.value;
    })
    .optional();
}
