import { z } from 'zod';
import { emptyMessage, maxLengthMessage } from '../productivity/constants';
import { CONVERSION_LIMITS as L, URL_OPS, type UrlOp } from './constants';

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

const EVENT_NAME_OR_EMPTY = /^[A-Za-z0-9_.:-]*$/;

/**
 * A goal is reached by an event the site tracks (`kind` event: `eventName`) or by viewing a page whose URL matches a
 * rule (`kind` url: `urlOp` and `urlValue`, ADR 120). The fields of the other kind are ignored and stored empty.
 */
export const GoalSchema = z
  .object({
    name: required('Goal Name', L.nameMax),
    kind: z.enum(['event', 'url'], { error: 'Choose how the goal is reached' }).optional().default('event'),
    eventName: z
      .string()
      .trim()
      .max(L.eventNameMax, maxLengthMessage(L.eventNameMax))
      .regex(EVENT_NAME_OR_EMPTY, 'Use letters, digits, dots, dashes, colons or underscores')
      .optional()
      .default(''),
    urlOp: z.enum(URL_OPS, { error: 'Choose how the URL is compared' }).optional().default('contains'),
    urlValue: z.string().trim().max(L.urlValueMax, maxLengthMessage(L.urlValueMax)).optional().default(''),
    description: z.string().trim().max(L.descriptionMax, maxLengthMessage(L.descriptionMax)).optional().default(''),
    attributionDays: days,
    active: checkbox,
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'event') {
      if (!v.eventName) ctx.addIssue({ code: 'custom', path: ['eventName'], message: emptyMessage('Event Name') });
    } else if (!v.urlValue) ctx.addIssue({ code: 'custom', path: ['urlValue'], message: emptyMessage('URL') });
  })
  .transform((v) => (v.kind === 'event' ? { ...v, urlOp: null, urlValue: null } : { ...v, eventName: '' }));
/** What a goal is saved from: the parsed form, or a seed or test naming an event goal without the URL fields. */
export type GoalValues = Omit<z.infer<typeof GoalSchema>, 'kind' | 'urlOp' | 'urlValue'> & {
  kind?: 'event' | 'url';
  urlOp?: UrlOp | null;
  urlValue?: string | null;
};

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
