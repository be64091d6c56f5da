import { z } from 'zod';
import { getConfig } from '../../utils/env.server';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { getLogger } from '../../utils/logger.server';
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { registerChannelDeliverer, type OutgoingMessage } from './delivery.server';
import {
  contactIdentityOf,
  findChannelInbox,
  ingestChannelMessage,
  openWebhook,
  parseWebhookJson,
  plainResponse,
  recordChannelSend,
  webhookInboxId,
} from './inbound.server';
import { maskSecret } from './sms.server';
import { twitterSignature, verifyTwitterSignature } from './signatures';
import type { TwitterInput } from './twitter-schemas';
import { parseJsonObject } from '../../utils/json';

/**
 * X (Twitter) direct messages: the Account Activity webhook (CRC challenge, x-twitter-webhooks-signature) brings
 * DMs in; replies go through `POST /2/dm_conversations/with/{participant}/messages` at TWITTER_API_BASE with
 * the OAuth 2.0 user access token (Bearer) entered on the settings page (ADR 020).
 */

const TIMEOUT_MS = 15_000;

export type TwitterSettings = { userId: string; consumerSecret: string; accessToken: string; publicBase: string };

export function readTwitterSettings(inbox: Inbox): TwitterSettings {
  const s = inbox.settings as Partial<TwitterSettings>;
  return { userId: s.userId ?? '', consumerSecret: s.consumerSecret ?? '', accessToken: s.accessToken ?? '', publicBase: s.publicBase ?? '' };
}

export function describeTwitterInbox(inbox: Inbox) {
  const s = readTwitterSettings(inbox);
  return {
    id: inbox.id,
    name: inbox.name,
    userId: s.userId,
    consumerSecretHint: maskSecret(s.consumerSecret),
    accessTokenHint: maskSecret(s.accessToken),
    webhookUrl: `${s.publicBase}/webhooks/twitter/${inbox.id}`,
    createdAt: inbox.createdAt,
  };
}

export async function listTwitterInboxes(opts: { accountId: number }) {
  return (await listInboxes({ accountId: opts.accountId, channelType: 'twitter' })).map(describeTwitterInbox);
}

export async function getTwitterInbox(opts: { accountId: number; id: number }) {
  const inbox = await getInbox(opts);
  return inbox && inbox.channelType === 'twitter' ? inbox : undefined;
}

export async function createTwitterInbox(opts: { accountId: number; actorId: number; input: TwitterInput; publicBase: string }) {
  const settings: TwitterSettings = {
    userId: opts.input.userId,
    consumerSecret: opts.input.consumerSecret ?? '',
    accessToken: opts.input.accessToken ?? '',
    publicBase: opts.publicBase.replace(/\/+$/, ''),
  };
  return createInbox({ accountId: opts.accountId, actorId: opts.actorId, name: opts.input.name, channelType: 'twitter', settings });
}

export async function updateTwitterInbox(opts: { accountId: number; actorId: number; id: number; input: TwitterInput }) {
  const inbox = await getTwitterInbox(opts);
  if (!inbox) return undefined;
  const before = readTwitterSettings(inbox);
  const settings: TwitterSettings = {
    ...before,
    userId: opts.input.userId,
    consumerSecret: opts.input.consumerSecret || before.consumerSecret,
    accessToken: opts.input.accessToken || before.accessToken,
  };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { name: opts.input.name, settings } });
}

/**
 * What saving an X inbox checks with X's API before anything is stored (ADR 039): `GET /2/users/me` with the user
 * access token answers the account it acts for, which must be the Account User ID given. (The consumer secret
 * only signs X's webhooks; X offers no call that proves it, so the CRC check X makes when the webhook is
 * registered is its test.) Undefined when all is well, else the field and the words for the form.
 */
export async function checkTwitterSettings(opts: { userId: string; accessToken: string }) {
  type Problem = { field: 'userId' | 'accessToken'; message: string };
  let res;
  try {
    res = await guardedRequest(`${getConfig().twitterApiBase}/2/users/me`, {
      headers: { authorization: `Bearer ${opts.accessToken}`, accept: 'application/json' },
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    return { field: 'accessToken', message: `X could not be reached (${(err as Error).message})` } satisfies Problem;
  }
  const body = parseJsonObject(res.text) as { data?: { id?: unknown; username?: unknown }; title?: unknown; detail?: unknown } | null;
  const id = body?.data?.id;
  if (!res.ok || typeof id !== 'string') {
    const detail = typeof body?.detail === 'string' ? body.detail : typeof body?.title === 'string' ? body.title : `HTTP ${res.status}`;
    return { field: 'accessToken', message: `X refused the User Access Token: ${detail.slice(0, 200)}` } satisfies Problem;
  }
  if (id !== opts.userId)
    return { field: 'userId', message: `This User Access Token acts for @${String(body?.data?.username ?? '').slice(0, 50)} (${id}), not for Account User ID ${opts.userId}` } satisfies Problem;
  return undefined;
}

/** The settings an update would leave (secrets left empty are kept): what the check tries before saving. */
export function twitterSettingsAfter(inbox: Inbox, input: TwitterInput): TwitterSettings {
  const before = readTwitterSettings(inbox);
  return { ...before, userId: input.userId, consumerSecret: input.consumerSecret || before.consumerSecret, accessToken: input.accessToken || before.accessToken };
}

export async function deleteTwitterInbox(opts: { accountId: number; actorId: number; id: number }) {
  if (!(await getTwitterInbox(opts))) return undefined;
  return deleteInbox(opts);
}

/** GET /webhooks/twitter/{inboxId}?crc_token=…: X's challenge-response check. */
export async function handleTwitterCrc(request: Request, param: string | undefined) {
  const id = webhookInboxId(param);
  const inbox = id === null ? undefined : await findChannelInbox(id, 'twitter');
  if (!inbox) return plainResponse(404, 'Not Found');
  const token = new URL(request.url).searchParams.get('crc_token');
  if (!token || token.length > 500) return plainResponse(400, 'crc_token is required');
  const { consumerSecret } = readTwitterSettings(inbox);
  if (!consumerSecret) return plainResponse(404, 'Not Found');
  return Response.json({ response_token: twitterSignature(consumerSecret, token) });
}

const DmEventsSchema = z.object({
  for_user_id: z.string().optional(),
  direct_message_events: z
    .array(
      z.object({
        type: z.string(),
        id: z.string().min(1).max(64),
        created_timestamp: z.string().optional(),
        message_create: z
          .object({
            sender_id: z.string().min(1).max(64),
            target: z.object({ recipient_id: z.string() }).optional(),
            message_data: z.object({ text: z.string().max(10_000) }),
          })
          .optional(),
      }),
    )
    .max(100)
    .optional(),
  users: z.record(z.string(), z.object({ name: z.string().optional(), screen_name: z.string().optional() })).optional(),
});

/** POST /webhooks/twitter/{inboxId}: Account Activity events; only direct messages to the account are kept. */
export async function handleTwitterWebhook(request: Request, param: string | undefined) {
  const opened = await openWebhook(request, param, 'twitter');
  if ('response' in opened) return opened.response;
  const { inbox, raw } = opened;
  const settings = readTwitterSettings(inbox);
  if (!verifyTwitterSignature({ consumerSecret: settings.consumerSecret, rawBody: raw, header: request.headers.get('x-twitter-webhooks-signature') })) {
    getLogger().warn({ inboxId: inbox.id }, 'twitter webhook: bad signature');
    return plainResponse(401, 'Invalid signature');
  }
  const parsedJson = parseWebhookJson(raw);
  if ('response' in parsedJson) return parsedJson.response;
  const json = parsedJson.json;
  const parsed = DmEventsSchema.safeParse(json);
  if (!parsed.success) return plainResponse(400, 'Not an Account Activity payload');
  const { direct_message_events: events = [], users = {}, for_user_id } = parsed.data;
  if (for_user_id && settings.userId && for_user_id !== settings.userId) return plainResponse(400, 'Events for another account');
  for (const event of events) {
    const mc = event.message_create;
    if (event.type !== 'message_create' || !mc) continue;
    // The account's own DMs (Parley's replies among them) come back as events too.
    if (mc.sender_id === settings.userId) continue;
    const user = users[mc.sender_id];
    const ts = Number(event.created_timestamp);
    await ingestChannelMessage({
      inbox,
      sourceType: 'twitter',
      sender: { identity: { channel: 'twitter', externalId: mc.sender_id }, name: user?.name ?? user?.screen_name ?? null },
      text: mc.message_data.text,
      externalId: event.id,
      receivedAt: Number.isFinite(ts) && ts > 0 ? new Date(Math.min(ts, Date.now())) : undefined,
    });
  }
  return plainResponse(200, '');
}

/** The `twitter` deliverer: a DM to the conversation's participant. */
async function deliverTwitter(outgoing: OutgoingMessage) {
  const { inbox, message, conversation } = outgoing;
  const settings = readTwitterSettings(inbox);
  const participant = await contactIdentityOf({ accountId: inbox.accountId, contactId: conversation.contactId, channel: 'twitter' });
  if (!participant) throw new Error('The contact has no X user id to answer');
  let res: Response;
  try {
    res = await fetch(`${getConfig().twitterApiBase}/2/dm_conversations/with/${encodeURIComponent(participant)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${settings.accessToken}` },
      body: JSON.stringify({ text: message.text }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`X could not be reached (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => null)) as { data?: { dm_event_id?: string }; title?: string; detail?: string } | null;
  const eventId = body?.data?.dm_event_id;
  if (!res.ok || !eventId) throw new Error(`X answered ${res.status}: ${body?.detail ?? body?.title ?? 'no dm_event_id'}`);
  await recordChannelSend({ inbox, messageId: message.id, conversationId: conversation.id, externalId: eventId });
  return { externalId: eventId };
}

registerChannelDeliverer('twitter', deliverTwitter);
