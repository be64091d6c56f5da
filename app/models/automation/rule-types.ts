/**
 * The stored shape of automation rules (workflows and inbox automation rules share it), the spec's menus
 * (section 4: trigger events, trigger conditions, filters, actions and which events offer which) and the zod
 * schemas that judge one condition, filter or action with section 5's messages. Pure: the builders import it.
 */
import { z } from 'zod';
import { PRIORITIES } from '../../../db/schema/inbox-constants';

// ---------------------------------------------------------------------------------------------------------
// Events

/** Section 4 "Workflow trigger events", plus sla_breached, which the SLA issue says can drive workflows. */
export const WORKFLOW_EVENTS = ['conversation_created', 'contact_created', 'survey_received', 'review_received', 'sla_breached'] as const;
export type WorkflowEvent = (typeof WORKFLOW_EVENTS)[number];
export const WORKFLOW_EVENT_LABELS: Record<WorkflowEvent, string> = {
  conversation_created: 'Conversation created',
  contact_created: 'Contact created',
  survey_received: 'Survey received',
  review_received: 'Review received',
  sla_breached: 'SLA breached',
};

/** Inbox automation rules ("when"): conversation, survey and review events need sources (inboxes). */
export const INBOX_RULE_EVENTS = ['conversation_created', 'message_created', 'conversation_updated', 'survey_received', 'review_received'] as const;
export type InboxRuleEvent = (typeof INBOX_RULE_EVENTS)[number];

// ---------------------------------------------------------------------------------------------------------
// Conditions. One shape for the workflow's trigger conditions and the inbox rule's conditions:
// { field, op, value }. Flags (new_contact, repeat_contact) have no value.

export const TRIGGER_CONDITIONS = [
  'new_contact',
  'repeat_contact',
  'country',
  'page_url_match',
  'page_url_contain',
  'referral_url',
  'referral_domain',
] as const;
/** Section 5 "Automation rule": condition fields. */
export const RULE_CONDITION_FIELDS = ['contacts', 'assignees', 'company', 'rating', 'domain', 'country', 'page_url', 'referral_url'] as const;
export const CONDITION_FIELDS = [...TRIGGER_CONDITIONS, ...RULE_CONDITION_FIELDS.filter((f) => f !== 'country')] as const;
export type ConditionField = (typeof TRIGGER_CONDITIONS)[number] | (typeof RULE_CONDITION_FIELDS)[number];
/** above/below/equal/contain (section 5); flags use 'is'. */
export const CONDITION_OPS = ['equal', 'contain', 'above', 'below', 'is'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
export type RuleCondition = {
  field: ConditionField;
  op: ConditionOp;
  value: string;
};

/** Fields whose value is a number (section 5: contacts, assignees, company and rating are numbers). */
export const NUMERIC_FIELDS: readonly ConditionField[] = ['contacts', 'assignees', 'company', 'rating'];
export const FLAG_FIELDS: readonly ConditionField[] = ['new_contact', 'repeat_contact'];

// ---------------------------------------------------------------------------------------------------------
// Filters (workflows): contact, domain, subject, message (the customer's text: the first message of a new
// conversation, or the new message), assignee; company segment: country, company.

export const FILTER_FIELDS = ['contact', 'domain', 'subject', 'message', 'assignee', 'country', 'company'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
/** Section 3 "Text match operators". */
export const TEXT_OPS = ['contains', 'equals', 'startsWith', 'endsWith'] as const;
export type TextOp = (typeof TEXT_OPS)[number];
export type RuleFilter = { field: FilterField; op: TextOp; value: string };

// ---------------------------------------------------------------------------------------------------------
// Actions

export const ACTION_TYPES = [
  'assign_user',
  'assign_tag',
  'unassign_tag',
  'leave_note',
  'convert_to_case',
  'set_status',
  'set_priority',
  'move_conversation',
  'delete_conversation',
  'add_contact_website',
  'add_contact_company',
  'add_contact_title',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const ACTION_LABELS: Record<ActionType, string> = {
  assign_user: 'Assign user',
  assign_tag: 'Add tags',
  unassign_tag: 'Remove tags',
  leave_note: 'Leave a note',
  convert_to_case: 'Convert to case',
  set_status: 'Set status',
  set_priority: 'Set priority',
  move_conversation: 'Move conversation',
  delete_conversation: 'Delete conversation',
  add_contact_website: 'Add website',
  add_contact_company: 'Add company',
  add_contact_title: 'Add title',
};

/** Section 4 "Actions offered per event". */
export const ACTIONS_BY_EVENT: Record<WorkflowEvent | InboxRuleEvent, readonly ActionType[]> = {
  conversation_created: ['assign_user', 'set_status', 'leave_note', 'assign_tag', 'unassign_tag', 'delete_conversation', 'set_priority'],
  contact_created: ['add_contact_website', 'add_contact_company', 'add_contact_title', 'assign_tag', 'leave_note'],
  survey_received: ['assign_user', 'assign_tag', 'leave_note', 'convert_to_case'],
  review_received: ['assign_user', 'assign_tag', 'leave_note'],
  sla_breached: ['assign_user', 'set_priority', 'set_status', 'leave_note', 'assign_tag'],
  // Inbox rules act on the conversation of a message or an update.
  message_created: ['assign_user', 'set_status', 'leave_note', 'assign_tag', 'unassign_tag', 'set_priority', 'move_conversation'],
  conversation_updated: ['assign_user', 'set_status', 'leave_note', 'assign_tag', 'unassign_tag', 'set_priority', 'move_conversation'],
};

export const ACTION_STATUSES = ['open', 'pending', 'resolved'] as const;

export type RuleAction = {
  type: ActionType;
  userId?: number;
  tagIds?: number[];
  note?: string;
  status?: (typeof ACTION_STATUSES)[number];
  priority?: (typeof PRIORITIES)[number];
  inboxId?: number;
  companyId?: number;
  website?: string;
  title?: string;
  description?: string;
};

// Section 5 "Automation rule" messages (where the spec gives none, ours are in the same voice).
export const ACTION_REQUIRED = 'Action must be specified';
export const ASSIGNEE_REQUIRED = 'Assignee must be specified';
export const STATUS_REQUIRED = 'Status must be specified';
export const NOTE_REQUIRED = 'Note is required';
export const NOTE_MIN = 'Length must be at least 2 characters';
export const NOTE_MAX = 'Length must be less than or equal to 500 characters';
export const TAGS_REQUIRED = 'Tags must be specified';
export const INBOX_REQUIRED = 'Inbox must be specified';
export const PRIORITY_REQUIRED = 'Priority must be specified';
export const COMPANY_REQUIRED = 'Company must be specified';
export const WEBSITE_INVALID = 'Website must be a valid uri';
export const TITLE_LENGTH_MIN = 'Length must be at least 2 characters';
export const TITLE_LENGTH_MAX = 'Length must be less than or equal to 20 characters';
export const CASE_TITLE_MAX = 'Length must be less than or equal to 30 characters';
export const CASE_DESCRIPTION_REQUIRED = 'Description is required';
export const DOMAIN_INVALID = 'Please enter a valid domain.';

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

export const CONDITION_VALUE_REQUIRED = 'Value is required';
export const CONDITION_NUMBER = 'Value must be a number';
export const CONDITION_FIELD_REQUIRED = 'Condition must be specified';
export const CONDITION_OP_REQUIRED = 'Operator must be specified';

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

export const FILTER_VALUE_REQUIRED = 'Value is required';
export const RuleFilterSchema = z.object({
  field: z.enum(FILTER_FIELDS, { error: 'Filter must be specified' }),
  op: z.preprocess(emptyToUndefined, z.enum(TEXT_OPS, { error: CONDITION_OP_REQUIRED }).default('equals')),
  value: z.string({ error: FILTER_VALUE_REQUIRED }).trim().min(1, FILTER_VALUE_REQUIRED).max(200, 'Length must be less than or equal to 200 characters'),
});

// ---------------------------------------------------------------------------------------------------------
// Labels the builders show (the stored values above stay the spec's names).

export const TRIGGER_CONDITION_LABELS: Record<(typeof TRIGGER_CONDITIONS)[number], string> = {
  new_contact: 'New contact',
  repeat_contact: 'Repeat contact',
  country: 'Country',
  page_url_match: 'Page URL matches',
  page_url_contain: 'Page URL contains',
  referral_url: 'Referral URL',
  referral_domain: 'Referral domain',
};
export const CONDITION_OP_LABELS: Record<ConditionOp, string> = {
  equal: 'is',
  contain: 'contains',
  above: 'above',
  below: 'below',
  is: 'is',
};
export const FILTER_LABELS: Record<FilterField, string> = {
  contact: 'Contact',
  domain: 'Domain',
  subject: 'Subject',
  message: 'Message',
  assignee: 'Assignee',
  country: 'Company country',
  company: 'Company',
};
export const TEXT_OP_LABELS: Record<TextOp, string> = {
  contains: 'contains',
  equals: 'equals',
  startsWith: 'starts with',
  endsWith: 'ends with',
};
export const ACTION_STATUS_LABELS: Record<(typeof ACTION_STATUSES)[number], string> = { open: 'Open', pending: 'Pending', resolved: 'Resolved' };
