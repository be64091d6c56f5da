/** Plain values of the forms beside them (rule-types.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import { PRIORITIES } from '../../../db/schema/inbox-constants';

// ---------------------------------------------------------------------------------------------------------
// Events

/**
 * Section 4 "Workflow trigger events", plus sla_breached, which the SLA issue says can drive workflows, and
 * form_submitted, which issue 17 says workflows can use (ADR 087).
 */
export const WORKFLOW_EVENTS = ['conversation_created', 'contact_created', 'survey_received', 'review_received', 'sla_breached', 'form_submitted'] as const;

export type WorkflowEvent = (typeof WORKFLOW_EVENTS)[number];

export const WORKFLOW_EVENT_LABELS: Record<WorkflowEvent, string> = {
  conversation_created: 'Conversation created',
  contact_created: 'Contact created',
  survey_received: 'Survey received',
  review_received: 'Review received',
  sla_breached: 'SLA breached',
  form_submitted: 'Form submitted',
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
  // A submission has a contact and, when the form opens one, a conversation: the actions work on either.
  form_submitted: ['assign_user', 'assign_tag', 'leave_note', 'convert_to_case', 'add_contact_company', 'add_contact_title'],
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

export const CONDITION_VALUE_REQUIRED = 'Value is required';

export const CONDITION_NUMBER = 'Value must be a number';

export const CONDITION_FIELD_REQUIRED = 'Condition must be specified';

export const CONDITION_OP_REQUIRED = 'Operator must be specified';

export const FILTER_VALUE_REQUIRED = 'Value is required';

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
