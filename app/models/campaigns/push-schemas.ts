import { z } from 'zod';
import { emptyMessage, maxLengthMessage } from '../productivity/constants';
import {
  ACTION_KEYS,
  operatorsFor,
  PROPERTY_KEYS,
  PUSH_BODY_MAX,
  PUSH_CONDITIONS_MAX,
  PUSH_OPERATORS,
  PUSH_SEGMENT_NAME_MAX,
  PUSH_TITLE_MAX,
  PUSH_URL_MAX,
  REQUIRED_MESSAGE,
  valueChoices,
} from './push-constants';

const required = z.string({ error: REQUIRED_MESSAGE }).trim().min(1, REQUIRED_MESSAGE);

function isHttpUrl(v: string) {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * One condition row; its operator and value are checked against its key (section 5 "Push segment"). The check sits
 * on the row, so a row's messages show even while another field (the name) is wrong.
 */
const condition = (keys: readonly string[]) =>
  z
    .object({
      key: z.enum(keys as [string, ...string[]], { error: REQUIRED_MESSAGE }),
      operator: z.enum(PUSH_OPERATORS, { error: REQUIRED_MESSAGE }),
      value: z.string().trim().max(PUSH_URL_MAX, maxLengthMessage(PUSH_URL_MAX)).optional(),
    })
    .superRefine((row, ctx) => {
      if (!operatorsFor(row.key).includes(row.operator))
        ctx.addIssue({ code: 'custom', path: ['operator'], message: 'This operator is not allowed for this field' });
      const message = conditionValueError(row);
      if (message) ctx.addIssue({ code: 'custom', path: ['value'], message });
    });

type Row = { key: string; operator: string; value?: string };

/** The value a key needs, with the specification's messages; returns the message or null. */
export function conditionValueError(row: Row, now = new Date()): string | null {
  const value = row.value ?? '';
  switch (row.key) {
    case 'pageUrl':
      if (row.operator === 'contains') return value ? null : 'Page URL is required';
      return isHttpUrl(value) ? null : 'Enter a valid Page URL';
    case 'dayOfWeek':
      if (!value) return 'Day Of Week is not allowed to be empty';
      break;
    case 'hourOfDay':
      if (!value) return 'Hour Of Day is not allowed to be empty';
      break;
    case 'subscribed': {
      if (!value) return REQUIRED_MESSAGE;
      const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(Number.NaN);
      if (Number.isNaN(at.getTime())) return 'Enter a valid date';
      if (at.getTime() > now.getTime()) return 'The subscribed date cannot be in the future';
      return null;
    }
    default:
      if (!value) return REQUIRED_MESSAGE;
  }
  const choices = valueChoices(row.key);
  if (choices && !choices.some((c) => c.value === value)) return 'Choose one of the listed values';
  return null;
}

/** Section 3 and 5 "Push segment": name 1 to 40, AND/OR, action and property conditions. */
export const PushSegmentSchema = z.object({
  name: z
    .string({ error: emptyMessage('Name') })
    .trim()
    .min(1, emptyMessage('Name'))
    .max(PUSH_SEGMENT_NAME_MAX, maxLengthMessage(PUSH_SEGMENT_NAME_MAX)),
  actionOperator: z.enum(['AND', 'OR'], { error: REQUIRED_MESSAGE }).default('AND'),
  actions: z.array(condition(ACTION_KEYS)).max(PUSH_CONDITIONS_MAX, `At most ${PUSH_CONDITIONS_MAX} conditions`).default([]),
  propertyOperator: z.enum(['AND', 'OR'], { error: REQUIRED_MESSAGE }).default('AND'),
  properties: z.array(condition(PROPERTY_KEYS)).max(PUSH_CONDITIONS_MAX, `At most ${PUSH_CONDITIONS_MAX} conditions`).default([]),
});
export type PushSegmentInput = z.infer<typeof PushSegmentSchema>;

/** A push campaign: title, body, an https icon (optional) and the page a click opens. */
export const PushCampaignSchema = z.object({
  name: z
    .string({ error: emptyMessage('Name') })
    .trim()
    .min(1, emptyMessage('Name'))
    .max(60, maxLengthMessage(60)),
  pushSegmentId: z
    .string({ error: 'Push segment must be specified' })
    .trim()
    .regex(/^\d{1,9}$/, 'Push segment must be specified')
    .transform(Number),
  title: required.max(PUSH_TITLE_MAX, maxLengthMessage(PUSH_TITLE_MAX)),
  body: required.max(PUSH_BODY_MAX, maxLengthMessage(PUSH_BODY_MAX)),
  url: z
    .string({ error: 'Enter the page a click opens' })
    .trim()
    .max(PUSH_URL_MAX, maxLengthMessage(PUSH_URL_MAX))
    .refine(isHttpUrl, 'Enter a valid URL (http or https)'),
  icon: z
    .string()
    .trim()
    .max(PUSH_URL_MAX, maxLengthMessage(PUSH_URL_MAX))
    .refine((v) => /^https:\/\//i.test(v) && isHttpUrl(v), 'The icon must be an https URL')
    .optional(),
});
export type PushCampaignInput = z.infer<typeof PushCampaignSchema>;
