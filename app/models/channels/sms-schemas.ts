import { z } from 'zod';
import { SmsProvider, SMS_MAX_PER_SECOND, THREADING_INTERVALS, SMS_NAME_MAX, SMS_FIELD_MAX, AUTO_RESOLVE_MAX_DAYS, SMS_MESSAGES, isTwilioApiKey, WEBHOOK_AUTH_TOKEN_REQUIRED } from './sms-constants';
export * from './sms-constants';

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

/** Campaign pacing (ADR 066 addendum): texts per second through this inbox; empty = the provider's default. */
const messagesPerSecond = z
  .number({ error: SMS_MESSAGES.pacing })
  .int(SMS_MESSAGES.pacing)
  .min(1, SMS_MESSAGES.pacing)
  .max(SMS_MAX_PER_SECOND, SMS_MESSAGES.pacing)
  .optional();

const shared = { name, threadingInterval, autoResolvedDays, assigneeIds, messagesPerSecond };

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
