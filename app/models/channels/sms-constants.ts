/** Plain values of the forms beside them (sms-schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/** Section 5 "SMS channel": the form's rules and words, shared by the page (conform) and the server. */

export const SMS_PROVIDERS = ['twilio', 'custom_sms'] as const;

export type SmsProvider = (typeof SMS_PROVIDERS)[number];

export const SMS_PROVIDER_LABELS: Record<SmsProvider, string> = { twilio: 'Twilio', custom_sms: 'Custom SMS' };

/** Section 9: Never, 01 Day, 01 Week, 01 Month (days). */
export const THREADING_INTERVALS = [
  { value: 0, label: 'Never' },
  { value: 1, label: '01 Day' },
  { value: 7, label: '01 Week' },
  { value: 30, label: '01 Month' },
] as const;

export const SMS_NAME_MAX = 20;

export const SMS_FIELD_MAX = 200;

/** The custom provider's phone input caps at 14 characters (section 5). */
export const CUSTOM_PHONE_INPUT_MAX = 14;

export const AUTO_RESOLVE_MAX_DAYS = 365;

export const SMS_MESSAGES = {
  pacing: 'Enter a whole number of texts per second from 1 to 100',
  nameRequired: 'Inbox Name is required',
  nameMax: 'Length must be less than or equal to 20 characters',
  providerRequired: 'Provider is required',
  authTokenRequired: 'Auth Token is required',
  authTokenMax: 'Auth Token must be at most 200 characters',
  sidRequired: 'Authentication Key is required',
  sidMax: 'Authentication Key must be at most 200 characters',
  accountSidRequired: 'Account SID is required',
  accountSidMax: 'Account SID must be at most 200 characters',
  webhookUrlRequired: 'Webhook URL is required',
  webhookUrlMax: 'Webhook URL must be at most 200 characters',
  webhookUrlInvalid: 'Enter a valid URL (http or https)',
  phone: 'Enter a valid phone number',
  assignees: 'Select at least one user',
  threading: 'Threading Interval Must be specified',
  autoResolve: 'Auto-resolve days must be a whole number from 0 to 365 (0 disables)',
} as const;

/** An API key SID (SK…) rather than the Account SID (AC…): its secret authenticates API calls, not webhooks. */
export function isTwilioApiKey(sid: string | undefined) {
  return /^SK/i.test(sid ?? '');
}

export const WEBHOOK_AUTH_TOKEN_REQUIRED = "Your account's Auth Token is required with an API key: Twilio signs its webhooks with it";

/** Campaign pacing per SMS inbox (ADR 066 addendum): the default per provider, and the most a person may set. */
export const SMS_MAX_PER_SECOND = 100;
export const SMS_DEFAULT_PER_SECOND = { twilio: 1, custom_sms: 10 } as const;
