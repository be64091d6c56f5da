import { PRIORITIES, SOURCE_TYPES, type SourceType } from '../../../db/schema/inbox-constants';

/** Section 3's priority options, most urgent first, as select options. */
export const PRIORITY_CHOICES = [...PRIORITIES].reverse().map((p) => ({ value: p, label: p }));

/** Section 3's conversation source types, as people read them. */
export const SOURCE_LABELS: Record<SourceType, string> = {
  email: 'Email',
  web: 'Web chat',
  sms: 'SMS',
  custom_sms: 'Custom SMS',
  twilio: 'Twilio',
  support_form: 'Support form',
  support_widget: 'Support widget',
  internal_ticket: 'Internal ticket',
  helpdesk: 'Helpdesk',
  google_business_message: 'Google business message',
  facebook: 'Facebook',
  twitter: 'Twitter',
};

export const SOURCE_CHOICES = SOURCE_TYPES.map((s) => ({ value: s, label: SOURCE_LABELS[s] }));
