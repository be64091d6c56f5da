/** Plain values of the forms beside them (sla-policies.schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import type { SlaUnit } from '../../../db/schema/automation';

/** Section 9: the form starts with these priorities, in this order, each responding in 4 hours and resolving in 2 days. */
export const SLA_PRIORITIES = ['critical', 'high', 'medium', 'low', 'default'] as const;

export type SlaPriority = (typeof SLA_PRIORITIES)[number];

export const SLA_DEFAULT_RESPONSE = {
  value: 4,
  unit: 'hour',
} as const satisfies { value: number; unit: SlaUnit };

export const SLA_DEFAULT_RESOLVE = {
  value: 2,
  unit: 'day',
} as const satisfies { value: number; unit: SlaUnit };

export const SLA_MAX_ESCALATION_EMAILS = 3;

export const SLA_NAME_MAX = 50;

export const SLA_VALUE_MAX = 9999;

/** db/schema/automation's units, repeated here so that the page's bundle does not bring in the ORM. */
export const SLA_UNITS = ['minute', 'hour', 'day', 'month'] as const satisfies readonly SlaUnit[];

export const SLA_UNIT_LABELS: Record<SlaUnit, string> = {
  minute: 'Minutes',
  hour: 'Hours',
  day: 'Days',
  month: 'Months',
};

export const SLA_PRIORITY_LABELS: Record<SlaPriority, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  default: 'Default',
};

// Section 5 "SLA" gives the rules but no words; these are in the voice of its other messages.
export const SLA_NAME_REQUIRED = 'Name is not allowed to be empty';

export const SLA_NAME_TOO_LONG = `Length must be less than or equal to ${SLA_NAME_MAX} characters`;

export const SLA_PRIORITY_REQUIRED = 'Priority must be specified';

export const SLA_PRIORITY_TWICE = 'Each priority can have only one target';

export const SLA_TARGET_REQUIRED = 'Add at least one target';

export const SLA_VALUE_NUMBER = 'Value must be a number';

export const SLA_VALUE_RANGE = `Value must be a whole number from 1 to ${SLA_VALUE_MAX}`;

export const SLA_UNIT_REQUIRED = 'Unit must be specified';

export const SLA_EMAIL_INVALID = 'Enter a valid email address';

export const SLA_EMAIL_REQUIRED = 'Escalation e-mail must be specified';

export const SLA_EMAILS_MAX = `Escalate to at most ${SLA_MAX_ESCALATION_EMAILS} e-mail addresses`;

export const SLA_INBOX_INVALID = 'Enter a valid inbox';
