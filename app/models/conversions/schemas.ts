import { z } from 'zod';
import { emptyMessage, maxLengthMessage } from '../productivity/constants';
import { CONVERSION_LIMITS as L } from './constants';

const required = (label: string, max: number) =>
  z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));

const checkbox = z
  .union([z.literal('on'), z.literal('true'), z.boolean()])
  .optional()
  .transform((v) => v === 'on' || v === 'true' || v === true);

const days = z.coerce
  .number({ error: 'Enter a number of days' })
  .int('Enter a whole number of days')
  .min(1, `Attribution window must be between 1 and ${L.attributionDaysMax} days`)
  .max(L.attributionDaysMax, `Attribution window must be between 1 and ${L.attributionDaysMax} days`);

export const GoalSchema = z.object({
  name: required('Goal Name', L.nameMax),
  eventName: required('Event Name', L.eventNameMax).regex(/^[A-Za-z0-9_.:-]+$/, 'Use letters, digits, dots, dashes, colons or underscores'),
  description: z.string().trim().max(L.descriptionMax, maxLengthMessage(L.descriptionMax)).optional().default(''),
  attributionDays: days,
  active: checkbox,
});
export type GoalValues = z.infer<typeof GoalSchema>;

export const SaleTrackerSchema = z.object({
  name: required('Tracker Name', L.nameMax),
  currency: z
    .string({ error: emptyMessage('Currency') })
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'Enter a three-letter currency code such as USD or EUR'),
  attributionDays: days,
  active: checkbox,
});
export type SaleTrackerValues = z.infer<typeof SaleTrackerSchema>;

/** The messenger's `track(name, props)` call (ADR 105). A sale's amount is in major units, as sites know it. */
export const TrackInput = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(L.eventNameMax)
    .regex(/^[A-Za-z0-9_.:-]+$/),
  props: z
    .object({
      amount: z.coerce.number().finite().min(0).max(1e10).optional(),
      currency: z
        .string()
        .trim()
        .regex(/^[A-Za-z]{3}$/)
        .optional(),
      orderId: z.coerce.string().trim().min(1).max(200).optional(),
      tracker: z.coerce.number().int().positive().max(2_147_483_647).optional(),
    })
    .optional()
    .default({}),
});
