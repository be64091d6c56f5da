import { z } from 'zod';

/* Apart from schemas.ts: the public contact page judges its form in the browser with it, and must not make the
   other account schemas part of every screen's bundle (ADR 027). */

export const EmailSchema = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(254, 'Length must be less than or equal to 254 characters')
  .pipe(z.email({ error: 'Enter a valid email address' }))
  .transform((e) => e.toLowerCase());
