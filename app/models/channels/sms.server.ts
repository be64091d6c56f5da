import { and, eq, inArray } from 'drizzle-orm';
import { isRefusedUrl, REFUSED_DESTINATION_MESSAGE } from '../../utils/outbound-guard.server';
import { getDb, schema } from '../../../db/client';
import { randomToken } from '../../utils/password.server';
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { checkCustomSmsGateway, sendCustomSms } from './custom-sms.server';
import { DeliveryRefused, registerChannelDeliverer, type OutgoingMessage } from './delivery.server';
import { recordChannelSend } from './inbound.server';
import { isTwilioApiKey, WEBHOOK_AUTH_TOKEN_REQUIRED, type SmsCreateInput, type SmsProvider, type SmsUpdateInput } from './sms-schemas';
import { checkTwilioSettings, sendTwilioSms } from './twilio.server';

/**
 * SMS inboxes (section 3 "SMS channel"): a Twilio number or a custom gateway. Settings live in the inbox's
 * `settings`; the custom gateway's shared secret is the inbox's `secret`. Credentials are never shown back.
 */

export type SmsSettings = {
  provider: SmsProvider;
  phoneNumber: string;
  accountSID?: string;
  sid?: string;
  authToken?: string;
  /** With an API key (sid SK…): the account's Auth Token, which Twilio signs webhooks with (ADR 025). */
  webhookAuthToken?: string;
  webhookUrl?: string;
  threadingInterval: number;
  autoResolvedDays: number;
  assigneeIds: number[];
  /** The scheme and host Twilio and gateways call back (the origin the inbox was created from). */
  publicBase: string;
  /** Campaign texts per second through this inbox; unset = the provider's default (SMS_DEFAULT_PER_SECOND). */
  messagesPerSecond?: number;
};

export class SmsInputError extends Error {
  constructor(message: string, readonly field: 'name' | 'assigneeIds' | 'webhookUrl') {
    super(message);
  }
}

export function readSmsSettings(inbox: Inbox): SmsSettings {
  const s = inbox.settings as Partial<SmsSettings>;
  return {
    provider: s.provider === 'custom_sms' ? 'custom_sms' : 'twilio',
    phoneNumber: s.phoneNumber ?? '',
    accountSID: s.accountSID,
    sid: s.sid,
    authToken: s.authToken,
    webhookAuthToken: s.webhookAuthToken,
    webhookUrl: s.webhookUrl,
    threadingInterval: s.threadingInterval ?? 0,
    autoResolvedDays: s.autoResolvedDays ?? 0,
    assigneeIds: s.assigneeIds ?? [],
    publicBase: s.publicBase ?? '',
    messagesPerSecond: typeof s.messagesPerSecond === 'number' ? s.messagesPerSecond : undefined,
  };
}

/** The last four characters of a credential, for "set, ends in …" (never the whole value). */
export function maskSecret(value: string | null | undefined) {
  if (!value) return '';
  return `•••• ${value.length > 8 ? value.slice(-4) : ''}`.trim();
}

/** Where the provider posts: inbound messages and (Twilio) delivery reports. */
export function smsWebhookUrls(inbox: Inbox) {
  const { provider, publicBase } = readSmsSettings(inbox);
  if (provider === 'twilio') return { inbound: `${publicBase}/webhooks/twilio/${inbox.id}`, status: `${publicBase}/webhooks/twilio/${inbox.id}/status` };
  return { inbound: `${publicBase}/webhooks/sms/${inbox.id}`, status: `${publicBase}/webhooks/sms/${inbox.id}` };
}

/** What the list and the edit form show: no auth token, no shared secret. */
export function describeSmsInbox(inbox: Inbox) {
  const s = readSmsSettings(inbox);
  return {
    id: inbox.id,
    name: inbox.name,
    provider: s.provider,
    phoneNumber: s.phoneNumber,
    accountSID: s.accountSID ?? '',
    sid: s.sid ?? '',
    authTokenHint: s.provider === 'twilio' ? maskSecret(s.authToken) : maskSecret(inbox.secret),
    /** Set up with an API key (SK…): webhooks are checked with a separate Auth Token, which may be added later. */
    usesApiKey: s.provider === 'twilio' && isTwilioApiKey(s.sid),
    hasWebhookAuthToken: Boolean(s.webhookAuthToken),
    webhookUrl: s.webhookUrl ?? '',
    threadingInterval: s.threadingInterval,
    autoResolvedDays: s.autoResolvedDays,
    assigneeIds: s.assigneeIds,
    messagesPerSecond: s.messagesPerSecond,
    urls: smsWebhookUrls(inbox),
    createdAt: inbox.createdAt,
  };
}

export async function listSmsInboxes(opts: { accountId: number }) {
  return (await listInboxes({ accountId: opts.accountId, channelType: 'sms' })).map(describeSmsInbox);
}

export async function getSmsInbox(opts: { accountId: number; id: number }) {
  const inbox = await getInbox(opts);
  return inbox && inbox.channelType === 'sms' ? inbox : undefined;
}

/** GET sms/sharedsecret: a new shared secret for a custom gateway, shown (read-only) on the create form. */
export function newSharedSecret() {
  return randomToken(24);
}

/** A shared secret as newSharedSecret makes them (what the create form may carry back). */
export function isSharedSecret(value: string) {
  return /^[A-Za-z0-9_-]{32,64}$/.test(value);
}

/** The assignees must be users of the account (a forged id of another account is refused, not stored). */
async function checkAssignees(accountId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  const found = await getDb()
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), inArray(schema.users.id, unique)));
  if (found.length !== unique.length || unique.length === 0) throw new SmsInputError('Select at least one user', 'assigneeIds');
  return unique;
}

/** The settings a new inbox would have: what the provider check tries before anything is saved. */
export function smsSettingsOfNew(input: SmsCreateInput, publicBase: string): SmsSettings {
  const common = {
    provider: input.provider,
    phoneNumber: input.phoneNumber,
    threadingInterval: input.threadingInterval,
    autoResolvedDays: input.autoResolvedDays,
    assigneeIds: input.assigneeIds,
    messagesPerSecond: input.messagesPerSecond,
    publicBase: publicBase.replace(/\/+$/, ''),
  };
  return input.provider === 'twilio'
    ? {
        ...common,
        accountSID: input.accountSID,
        sid: input.sid,
        authToken: input.authToken,
        ...(input.webhookAuthToken ? { webhookAuthToken: input.webhookAuthToken } : {}),
      }
    : { ...common, webhookUrl: input.webhookUrl };
}

export async function createSmsInbox(opts: { accountId: number; actorId: number; input: SmsCreateInput; publicBase: string }) {
  const { input } = opts;
  const assigneeIds = await checkAssignees(opts.accountId, input.assigneeIds);
  if (input.provider === 'custom_sms' && (await isRefusedUrl(input.webhookUrl))) throw new SmsInputError(REFUSED_DESTINATION_MESSAGE, 'webhookUrl');
  const settings: SmsSettings = { ...smsSettingsOfNew(input, opts.publicBase), assigneeIds };
  return createInbox({
    accountId: opts.accountId,
    actorId: opts.actorId,
    name: input.name,
    channelType: 'sms',
    settings,
    ...(input.provider === 'custom_sms' ? { secret: input.authToken } : {}),
  });
}

/** Updates what may change: never the provider, the number or the credentials (section 4 "SMS form"). */
export async function updateSmsInbox(opts: { accountId: number; actorId: number; id: number; input: SmsUpdateInput }) {
  const inbox = await getSmsInbox(opts);
  if (!inbox) return undefined;
  const before = readSmsSettings(inbox);
  const assigneeIds = await checkAssignees(opts.accountId, opts.input.assigneeIds);
  if (before.provider === 'custom_sms' && 'webhookUrl' in opts.input && (await isRefusedUrl(opts.input.webhookUrl as string))) {
    throw new SmsInputError(REFUSED_DESTINATION_MESSAGE, 'webhookUrl');
  }
  const settings: SmsSettings = { ...smsSettingsAfter(inbox, opts.input), assigneeIds };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { name: opts.input.name, settings } });
}

/** The settings an update would leave: what the provider check tries before anything is saved. */
export function smsSettingsAfter(inbox: Inbox, input: SmsUpdateInput): SmsSettings {
  const before = readSmsSettings(inbox);
  return {
    ...before,
    threadingInterval: input.threadingInterval,
    autoResolvedDays: input.autoResolvedDays,
    assigneeIds: input.assigneeIds,
    messagesPerSecond: input.messagesPerSecond,
    ...(before.provider === 'custom_sms' && 'webhookUrl' in input ? { webhookUrl: input.webhookUrl as string } : {}),
    ...(before.provider === 'twilio' && 'webhookAuthToken' in input && input.webhookAuthToken ? { webhookAuthToken: input.webhookAuthToken as string } : {}),
  };
}

/**
 * Saving an SMS inbox asks its provider first (ADR 039): Twilio (the credentials reach the account's numbers, the
 * number is one of them, the Auth Token for signatures is the account's) or the custom gateway (a signed check
 * answered 2xx). Undefined when all is well, else the form's field and the words.
 */
export async function checkSmsSettings(opts: { settings: SmsSettings; secret: string | null; inboxId?: number }) {
  const s = opts.settings;
  if (s.provider === 'custom_sms') {
    const message = await checkCustomSmsGateway({ webhookUrl: s.webhookUrl ?? '', secret: opts.secret ?? '', phoneNumber: s.phoneNumber, inboxId: opts.inboxId });
    return message ? { field: 'webhookUrl' as const, message } : undefined;
  }
  if (isTwilioApiKey(s.sid) && !s.webhookAuthToken) return { field: 'webhookAuthToken' as const, message: WEBHOOK_AUTH_TOKEN_REQUIRED };
  return checkTwilioSettings({
    accountSID: s.accountSID ?? '',
    sid: s.sid ?? '',
    authToken: s.authToken ?? '',
    phoneNumber: s.phoneNumber,
    webhookAuthToken: isTwilioApiKey(s.sid) ? s.webhookAuthToken : undefined,
  });
}

export async function deleteSmsInbox(opts: { accountId: number; actorId: number; id: number }) {
  if (!(await getSmsInbox(opts))) return undefined;
  return deleteInbox(opts);
}

/** The `sms` channel deliverer: an agent's reply leaves through Twilio or the custom gateway. */
async function deliverSms(outgoing: OutgoingMessage) {
  const { inbox, message, conversation, contact } = outgoing;
  const settings = readSmsSettings(inbox);
  if (!contact?.phone) throw new DeliveryRefused('Not sent: the contact has no phone number');
  const urls = smsWebhookUrls(inbox);
  const sent =
    settings.provider === 'twilio'
      ? await sendTwilioSms({ settings, to: contact.phone, body: message.text, statusCallback: urls.status })
      : await sendCustomSms({
          settings,
          secret: inbox.secret ?? '',
          payload: {
            type: 'message',
            id: String(message.id),
            inboxId: inbox.id,
            conversationId: conversation.id,
            from: settings.phoneNumber,
            to: contact.phone,
            text: message.text,
            createdAt: message.createdAt.toISOString(),
          },
        });
  await recordChannelSend({ inbox, messageId: message.id, conversationId: conversation.id, externalId: sent.externalId });
  return { externalId: sent.externalId };
}

registerChannelDeliverer('sms', deliverSms);
