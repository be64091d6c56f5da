import { z } from 'zod';

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

const name = z.string({ error: SMS_MESSAGES.nameRequired }).trim().min(1, SMS_MESSAGES.nameRequired).max(SMS_NAME_MAX, SMS_MESSAGES.nameMax);
const phoneNumber = z
  .string({ error: SMS_MESSAGES.phone })
  .trim()
  .regex(/^\+\d{4,14}$/, SMS_MESSAGES.phone);
const required = (required: string, max: string) => z.string({ error: required }).trim().min(1, required).max(SMS_FIELD_MAX, max);
const webhookUrl = required(SMS_MESSAGES.webhookUrlRequired, SMS_MESSAGES.webhookUrlMax).refine((v) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && Boolean(u.hostname);
  } catch {
    return false;
  }
}, SMS_MESSAGES.webhookUrlInvalid);
const threadingInterval = z.number({ error: SMS_MESSAGES.threading }).refine((v) => THREADING_INTERVALS.some((t) => t.value === v), SMS_MESSAGES.threading);
const autoResolvedDays = z
  .number({ error: SMS_MESSAGES.autoResolve })
  .int(SMS_MESSAGES.autoResolve)
  .min(0, SMS_MESSAGES.autoResolve)
  .max(AUTO_RESOLVE_MAX_DAYS, SMS_MESSAGES.autoResolve);
const assigneeIds = z
  .array(z.number({ error: SMS_MESSAGES.assignees }).int(SMS_MESSAGES.assignees).positive(SMS_MESSAGES.assignees), { error: SMS_MESSAGES.assignees })
  .min(1, SMS_MESSAGES.assignees);

const shared = { name, threadingInterval, autoResolvedDays, assigneeIds };

/** An API key SID (SK…) rather than the Account SID (AC…): its secret authenticates API calls, not webhooks. */
export function isTwilioApiKey(sid: string | undefined) {
  return /^SK/i.test(sid ?? '');
}
export const WEBHOOK_AUTH_TOKEN_REQUIRED = "Your account's Auth Token is required with an API key: Twilio signs its webhooks with it";

/** Creating: everything, by provider. The custom provider's auth token is the shared secret Parley generated. */
export const SmsCreateSchema = z.discriminatedUnion(
  'provider',
  [
    z.object({
      ...shared,
      provider: z.literal('twilio'),
      phoneNumber,
      authToken: required(SMS_MESSAGES.authTokenRequired, SMS_MESSAGES.authTokenMax),
      sid: required(SMS_MESSAGES.sidRequired, SMS_MESSAGES.sidMax),
      accountSID: required(SMS_MESSAGES.accountSidRequired, SMS_MESSAGES.accountSidMax),
      webhookAuthToken: z.string().trim().max(200, SMS_MESSAGES.authTokenMax).optional(),
    }).superRefine((v, ctx) => {
      // Twilio signs webhooks with the account's Auth Token; an API key's secret cannot check them.
      if (isTwilioApiKey(v.sid) && !v.webhookAuthToken) ctx.addIssue({ code: 'custom', path: ['webhookAuthToken'], message: WEBHOOK_AUTH_TOKEN_REQUIRED });
    }),
    z.object({
      ...shared,
      provider: z.literal('custom_sms'),
      phoneNumber,
      authToken: required(SMS_MESSAGES.authTokenRequired, SMS_MESSAGES.authTokenMax),
      webhookUrl,
    }),
  ],
  { error: SMS_MESSAGES.providerRequired },
);

/**
 * Updating: the provider is fixed, and phone number, auth token, account SID and sid are not sent. A Twilio
 * inbox may add or replace the Auth Token its webhooks are checked with (left empty, the saved one is kept).
 */
export function smsUpdateSchema(provider: SmsProvider) {
  return provider === 'custom_sms'
    ? z.object({ ...shared, webhookUrl })
    : z.object({ ...shared, webhookAuthToken: z.string().trim().max(200, SMS_MESSAGES.authTokenMax).optional() });
}

/** "Fetch numbers" needs only the Twilio credentials. */
export const TwilioCredentialsSchema = z.object({
  accountSID: required(SMS_MESSAGES.accountSidRequired, SMS_MESSAGES.accountSidMax),
  sid: required(SMS_MESSAGES.sidRequired, SMS_MESSAGES.sidMax),
  authToken: required(SMS_MESSAGES.authTokenRequired, SMS_MESSAGES.authTokenMax),
});

export type SmsCreateInput = z.infer<typeof SmsCreateSchema>;
export type SmsUpdateInput = z.infer<ReturnType<typeof smsUpdateSchema>>;
