/**
 * The stored shape of automation rules (workflows and inbox automation rules share it), the spec's menus
 * (section 4: trigger events, trigger conditions, filters, actions and which events offer which) and the zod
 * schemas that judge one condition, filter or action with section 5's messages. Pure: the builders import it.
 */
import { z } from 'zod';
import { PRIORITIES } from '../../../db/schema/inbox-constants';
import {
  TRIGGER_CONDITIONS,
  RULE_CONDITION_FIELDS,
  ConditionField,
  CONDITION_OPS,
  RuleCondition,
  NUMERIC_FIELDS,
  FLAG_FIELDS,
  FILTER_FIELDS,
  TEXT_OPS,
  ACTION_TYPES,
  ActionType,
  ACTION_STATUSES,
  RuleAction,
  ACTION_REQUIRED,
  ASSIGNEE_REQUIRED,
  STATUS_REQUIRED,
  NOTE_REQUIRED,
  NOTE_MIN,
  NOTE_MAX,
  TAGS_REQUIRED,
  INBOX_REQUIRED,
  PRIORITY_REQUIRED,
  COMPANY_REQUIRED,
  WEBSITE_INVALID,
  TITLE_LENGTH_MIN,
  TITLE_LENGTH_MAX,
  CASE_TITLE_MAX,
  CASE_DESCRIPTION_REQUIRED,
  DOMAIN_INVALID,
  CONDITION_VALUE_REQUIRED,
  CONDITION_NUMBER,
  CONDITION_FIELD_REQUIRED,
  CONDITION_OP_REQUIRED,
  FILTER_VALUE_REQUIRED,
} from './rule-constants';
export * from './rule-constants';

const id = (message: string) => z.coerce.number({ error: message }).int(message).positive(message);
const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const DOMAIN_RE = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.[a-z]{2,63}$/i;

export function isValidUri(value: string) {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.includes('.');
  } catch {
    return false;
  }
}

export function isValidDomain(value: string) {
  return DOMAIN_RE.test(value);
}

/** Judges one action as the builder submits it; the result is what is stored. */
export const RuleActionSchema = z.preprocess(
  (raw) => {
    if (!raw || typeof raw !== 'object') return raw;
    const o = raw as Record<string, unknown>;
    const tagIds = o.tagIds === undefined ? undefined : ([] as unknown[]).concat(o.tagIds).filter((t) => t !== '' && t != null);
    return { ...o, type: emptyToUndefined(o.type), tagIds };
  },
  z
    .object({
      type: z.enum(ACTION_TYPES, { error: ACTION_REQUIRED }),
      userId: z.preprocess(emptyToUndefined, id(ASSIGNEE_REQUIRED).optional()),
      tagIds: z.array(id(TAGS_REQUIRED)).optional(),
      note: z.string().trim().optional(),
      status: z.preprocess(emptyToUndefined, z.enum(ACTION_STATUSES, { error: STATUS_REQUIRED }).optional()),
      priority: z.preprocess(emptyToUndefined, z.enum(PRIORITIES, { error: PRIORITY_REQUIRED }).optional()),
      inboxId: z.preprocess(emptyToUndefined, id(INBOX_REQUIRED).optional()),
      companyId: z.preprocess(emptyToUndefined, id(COMPANY_REQUIRED).optional()),
      website: z.string().trim().optional(),
      title: z.string().trim().optional(),
      description: z.string().trim().optional(),
    })
    .superRefine((a, ctx) => {
      const need = (path: keyof RuleAction, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
      switch (a.type) {
        case 'assign_user':
          if (!a.userId) need('userId', ASSIGNEE_REQUIRED);
          break;
        case 'set_status':
          if (!a.status) need('status', STATUS_REQUIRED);
          break;
        case 'leave_note':
          if (!a.note) need('note', NOTE_REQUIRED);
          else if (a.note.length < 2) need('note', NOTE_MIN);
          else if (a.note.length > 500) need('note', NOTE_MAX);
          break;
        case 'assign_tag':
        case 'unassign_tag':
          if (!a.tagIds?.length) need('tagIds', TAGS_REQUIRED);
          break;
        case 'move_conversation':
        case 'delete_conversation':
          if (!a.inboxId) need('inboxId', INBOX_REQUIRED);
          break;
        case 'set_priority':
          if (!a.priority) need('priority', PRIORITY_REQUIRED);
          break;
        case 'add_contact_company':
          if (!a.companyId) need('companyId', COMPANY_REQUIRED);
          break;
        case 'add_contact_website':
          if (!a.website || !isValidUri(a.website)) need('website', WEBSITE_INVALID);
          break;
        case 'add_contact_title':
          if (!a.title || a.title.length < 2) need('title', TITLE_LENGTH_MIN);
          else if (a.title.length > 20) need('title', TITLE_LENGTH_MAX);
          break;
        case 'convert_to_case':
          if (!a.inboxId) need('inboxId', INBOX_REQUIRED);
          if (!a.title || a.title.length < 2) need('title', TITLE_LENGTH_MIN);
          else if (a.title.length > 30) need('title', CASE_TITLE_MAX);
          if (!a.description) need('description', CASE_DESCRIPTION_REQUIRED);
          break;
      }
    })
    // Keep only what the action type uses, so that a switched type leaves no stray values behind.
    .transform((a): RuleAction => {
      const keep: Record<ActionType, (keyof RuleAction)[]> = {
        assign_user: ['userId'],
        assign_tag: ['tagIds'],
        unassign_tag: ['tagIds'],
        leave_note: ['note'],
        convert_to_case: ['inboxId', 'title', 'description'],
        set_status: ['status'],
        set_priority: ['priority'],
        move_conversation: ['inboxId'],
        delete_conversation: ['inboxId'],
        add_contact_website: ['website'],
        add_contact_company: ['companyId'],
        add_contact_title: ['title'],
      };
      const out: RuleAction = { type: a.type };
      for (const k of keep[a.type]) if (a[k] !== undefined) (out as Record<string, unknown>)[k] = a[k];
      return out;
    }),
);

/** Judges one condition (workflow trigger condition or inbox rule condition). */
export const RuleConditionSchema = z
  .object({
    field: z.enum([...TRIGGER_CONDITIONS, ...RULE_CONDITION_FIELDS] as [ConditionField, ...ConditionField[]], { error: CONDITION_FIELD_REQUIRED }),
    op: z.preprocess(emptyToUndefined, z.enum(CONDITION_OPS, { error: CONDITION_OP_REQUIRED }).optional()),
    value: z.string().trim().optional().default(''),
  })
  .superRefine((c, ctx) => {
    if (FLAG_FIELDS.includes(c.field)) return;
    if (!c.op)
      ctx.addIssue({
        code: 'custom',
        path: ['op'],
        message: CONDITION_OP_REQUIRED,
      });
    if (!c.value)
      return ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: CONDITION_VALUE_REQUIRED,
      });
    if (NUMERIC_FIELDS.includes(c.field) && !Number.isFinite(Number(c.value)))
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: CONDITION_NUMBER,
      });
    if ((c.field === 'domain' || c.field === 'referral_domain') && !isValidDomain(c.value))
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: DOMAIN_INVALID,
      });
  })
  .transform((c): RuleCondition => (FLAG_FIELDS.includes(c.field) ? { field: c.field, op: 'is', value: '' } : { field: c.field, op: c.op!, value: c.value }));

export const RuleFilterSchema = z.object({
  field: z.enum(FILTER_FIELDS, { error: 'Filter must be specified' }),
  op: z.preprocess(emptyToUndefined, z.enum(TEXT_OPS, { error: CONDITION_OP_REQUIRED }).default('equals')),
  value: z.string({ error: FILTER_VALUE_REQUIRED }).trim().min(1, FILTER_VALUE_REQUIRED).max(200, 'Length must be less than or equal to 200 characters'),
});
