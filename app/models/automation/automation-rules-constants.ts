/** Plain values of the forms beside them (automation-rules.schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import { SOURCE_TYPES } from '../../../db/schema/inbox-constants';
import {
  ACTION_LABELS,
  ACTIONS_BY_EVENT,
  INBOX_RULE_EVENTS,
  NUMERIC_FIELDS,
  RULE_CONDITION_FIELDS,
  type ActionType,
  type ConditionField,
  type InboxRuleEvent,
} from './rule-constants';

export const RULE_NAME_MIN = 3;

export const RULE_NAME_MAX = 50;

export const RULE_DESCRIPTION_MAX = 150;

export const RULE_ROWS_MAX = 20;

// Section 5 "Automation rule" messages; where the spec gives none, ours are in the same voice.
export const RULE_NAME_REQUIRED = 'Name cannot be an empty field';

export const RULE_NAME_TOO_LONG = `Length must be less than or equal to ${RULE_NAME_MAX} characters`;

export const RULE_DESCRIPTION_TOO_LONG = `Length must be less than or equal to ${RULE_DESCRIPTION_MAX} characters`;

export const RULE_EVENT_REQUIRED = 'When must be specified';

export const SOURCES_REQUIRED = 'Sources must be specified';

export const SOURCE_INVALID = 'Enter a valid source';

export const SOURCE_EMPTY = 'Source is not allowed to be empty';

export const SOURCE_TYPE_REQUIRED = 'Source type must be specified';

export const SOURCE_TYPE_INVALID = 'Enter a valid source type';

export const CONDITION_OP_NOT_ALLOWED = 'Choose an operator this field allows';

export const TOO_MANY_ROWS = `At most ${RULE_ROWS_MAX} rows`;

export const INBOX_RULE_EVENT_LABELS: Record<InboxRuleEvent, string> = {
  conversation_created: 'Conversation created',
  message_created: 'Message created',
  conversation_updated: 'Conversation updated',
  survey_received: 'Survey received',
  review_received: 'Review received',
};

/**
 * The source types a rule may narrow to, by event. Surveys must say which survey (the engine compares it with the
 * survey's channel: email or web); conversation events may narrow to a conversation source type; reviews have none.
 */
export const SOURCE_TYPES_BY_EVENT: Record<InboxRuleEvent, readonly string[]> = {
  conversation_created: SOURCE_TYPES,
  message_created: SOURCE_TYPES,
  conversation_updated: SOURCE_TYPES,
  // in_app: the messenger's in-app surveys (ADR 061).
  survey_received: ['email', 'web', 'in_app'],
  review_received: [],
};

export const SOURCE_TYPE_LABELS: Record<string, string> = {
  email: 'Email',
  web: 'Web (chat)',
  sms: 'SMS',
  custom_sms: 'Custom SMS',
  twilio: 'Twilio',
  support_form: 'Support form',
  support_widget: 'Support widget',
  internal_ticket: 'Internal ticket',
  helpdesk: 'Help desk',
  google_business_message: 'Google Business Message',
};

export const SURVEY_SOURCE_TYPE_LABELS: Record<string, string> = {
  email: 'Email survey',
  web: 'Chat survey',
  in_app: 'In-app survey',
};

/** Section 5: condition operators above, below, equal, contain; numbers compare, strings match. */
export const RULE_CONDITION_OPS = ['above', 'below', 'equal', 'contain'] as const;

export function opsForField(field: string): readonly (typeof RULE_CONDITION_OPS)[number][] {
  return NUMERIC_FIELDS.includes(field as ConditionField) ? ['above', 'below', 'equal'] : ['equal', 'contain'];
}

export const RULE_CONDITION_FIELD_LABELS: Record<(typeof RULE_CONDITION_FIELDS)[number], string> = {
  contacts: 'Contacts',
  assignees: 'Assignees',
  company: 'Company',
  rating: 'Rating',
  domain: 'Domain',
  country: 'Country',
  page_url: 'Page URL',
  referral_url: 'Referral URL',
};

export const CONDITION_OP_LABELS: Record<(typeof RULE_CONDITION_OPS)[number], string> = { above: 'Above', below: 'Below', equal: 'Equal', contain: 'Contain' };

export function actionsForEvent(event: string): readonly ActionType[] {
  return (INBOX_RULE_EVENTS as readonly string[]).includes(event) ? ACTIONS_BY_EVENT[event as InboxRuleEvent] : [];
}

export const actionNotOfferedMessage = (type: ActionType, event: InboxRuleEvent) =>
  `${ACTION_LABELS[type]} is not offered for ${INBOX_RULE_EVENT_LABELS[event]}`;
