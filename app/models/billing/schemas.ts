import { z } from 'zod';

/** A plan, a billing period and a number of seats: the quote (GET) and the start/change confirmation (POST). */
export const PlanChoiceSchema = z.object({
  plan: z.string({ error: 'Choose a plan' }).trim().min(1, 'Choose a plan').max(50),
  interval: z.enum(['month', 'year'], { error: 'Choose monthly or yearly billing' }),
  seats: z.coerce.number({ error: 'Seats must be a whole number' }).int('Seats must be a whole number').min(1, 'At least 1 seat').max(10_000, 'At most 10000 seats'),
});

const COUNTRY = /^[A-Z]{2}$/;
/** A tax ID as printed on invoices (VAT, GST, EIN...): letters, digits, spaces, dots and dashes. */
const TAX_ID = /^[A-Z0-9][A-Z0-9 .\-/]{3,29}$/i;

export const BillingAddressSchema = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(200),
  line1: z.string({ error: 'Address is required' }).trim().min(1, 'Address is required').max(200),
  line2: z.string().trim().max(200).optional().default(''),
  city: z.string({ error: 'City is required' }).trim().min(1, 'City is required').max(100),
  postalCode: z.string({ error: 'Postal code is required' }).trim().min(1, 'Postal code is required').max(20),
  state: z.string().trim().max(100).optional().default(''),
  country: z
    .string({ error: 'Country is required' })
    .trim()
    .transform((v) => v.toUpperCase())
    .pipe(z.string().regex(COUNTRY, 'Country must be a two-letter ISO code, e.g. US, DE, FR')),
  taxId: z.string().trim().max(30).regex(TAX_ID, 'Tax ID must be 4 to 30 letters or digits (e.g. DE123456789)').optional().or(z.literal('')).default(''),
});

export const CardIdSchema = z.object({ paymentMethodId: z.coerce.number().int().positive() });
