import { z } from 'zod';
import { getLogger } from '../../utils/logger.server';
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { DeliveryRefused, registerChannelDeliverer } from './delivery.server';
import { ingestChannelMessage, openWebhook, parseWebhookJson, plainResponse } from './inbound.server';
import { maskSecret } from './sms.server';
import { verifyGoogleBusinessSignature } from './signatures';

/**
 * Google Business Messages. Google shut the product down on 31 July 2024: nothing can be sent through it any
 * more. Parley keeps an ingestion endpoint for its payload format (archives, relays that still speak it),
 * verified like Google did: X-Goog-Signature = base64(HMAC-SHA512(client token, raw body)).
 */

import { GOOGLE_BUSINESS_SHUTDOWN } from './google-business';

export { GOOGLE_BUSINESS_SHUTDOWN };

export const GoogleBusinessSchema = z.object({
  name: z.string({ error: 'Inbox Name is required' }).trim().min(1, 'Inbox Name is required').max(20, 'Length must be less than or equal to 20 characters'),
  clientToken: z
    .string({ error: 'Client Token is required' })
    .trim()
    .min(8, 'Client Token must be at least 8 characters')
    .max(200, 'Client Token must be at most 200 characters'),
});

/** Editing: a blank client token keeps the one stored (it is never shown back). */
export const GoogleBusinessUpdateSchema = GoogleBusinessSchema.extend({
  clientToken: z
    .string()
    .trim()
    .max(200, 'Client Token must be at most 200 characters')
    .refine((v) => v === '' || v.length >= 8, 'Client Token must be at least 8 characters')
    .optional()
    .default(''),
});

export type GoogleBusinessSettings = { clientToken: string; publicBase: string };

function readSettings(inbox: Inbox): GoogleBusinessSettings {
  const s = inbox.settings as Partial<GoogleBusinessSettings>;
  return { clientToken: s.clientToken ?? '', publicBase: s.publicBase ?? '' };
}

function describe(inbox: Inbox) {
  const s = readSettings(inbox);
  return {
    id: inbox.id,
    name: inbox.name,
    clientTokenHint: maskSecret(s.clientToken),
    endpoint: `${s.publicBase}/webhooks/google-business/${inbox.id}`,
    createdAt: inbox.createdAt,
  };
}

export async function listGoogleBusinessInboxes(opts: { accountId: number }) {
  return (await listInboxes({ accountId: opts.accountId, channelType: 'google_business' })).map(describe);
}

/** One Google Business inbox of the account, as its settings page shows it; undefined for any other inbox. */
export async function getGoogleBusinessInbox(opts: { accountId: number; id: number }) {
  const inbox = await getInbox(opts);
  return inbox && inbox.channelType === 'google_business' ? describe(inbox) : undefined;
}

/** Renames the inbox and, when a new one is given, replaces its client token; undefined when it is not one. */
export async function updateGoogleBusinessInbox(opts: { accountId: number; actorId: number; id: number; input: z.infer<typeof GoogleBusinessUpdateSchema> }) {
  const inbox = await getInbox(opts);
  if (!inbox || inbox.channelType !== 'google_business') return undefined;
  const current = readSettings(inbox);
  const settings: GoogleBusinessSettings = { ...current, clientToken: opts.input.clientToken || current.clientToken };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { name: opts.input.name, settings } });
}

export async function createGoogleBusinessInbox(opts: { accountId: number; actorId: number; input: z.infer<typeof GoogleBusinessSchema>; publicBase: string }) {
  return createInbox({
    accountId: opts.accountId,
    actorId: opts.actorId,
    name: opts.input.name,
    channelType: 'google_business',
    settings: { clientToken: opts.input.clientToken, publicBase: opts.publicBase.replace(/\/+$/, '') },
  });
}

export async function deleteGoogleBusinessInbox(opts: { accountId: number; actorId: number; id: number }) {
  const inbox = await getInbox(opts);
  if (!inbox || inbox.channelType !== 'google_business') return undefined;
  return deleteInbox(opts);
}

const GbmPayloadSchema = z.union([
  // Google's webhook verification: echo the secret.
  z.object({ clientToken: z.string(), secret: z.string().max(200) }),
  z.object({
    conversationId: z.string().min(1).max(200),
    agent: z.string().optional(),
    requestId: z.string().optional(),
    message: z.object({
      messageId: z.string().min(1).max(200),
      name: z.string().optional(),
      text: z.string().max(10_000).default(''),
      createTime: z.string().optional(),
    }),
    context: z.object({ userInfo: z.object({ displayName: z.string().max(200).optional() }).optional() }).optional(),
  }),
]);

/** POST /webhooks/google-business/{inboxId}. Events other than messages (receipts, typing) are accepted and ignored. */
export async function handleGoogleBusinessWebhook(request: Request, param: string | undefined) {
  const opened = await openWebhook(request, param, 'google_business');
  if ('response' in opened) return opened.response;
  const { inbox, raw } = opened;
  const { clientToken } = readSettings(inbox);
  const parsedJson = parseWebhookJson(raw);
  if ('response' in parsedJson) return parsedJson.response;
  const json = parsedJson.json;
  const parsed = GbmPayloadSchema.safeParse(json);
  if (parsed.success && 'secret' in parsed.data) {
    return parsed.data.clientToken === clientToken && clientToken ? plainResponse(200, parsed.data.secret) : plainResponse(401, 'Invalid client token');
  }
  if (!verifyGoogleBusinessSignature({ clientToken, rawBody: raw, header: request.headers.get('x-goog-signature') })) {
    getLogger().warn({ inboxId: inbox.id }, 'google business webhook: bad signature');
    return plainResponse(401, 'Invalid signature');
  }
  if (!parsed.success || 'secret' in parsed.data) return plainResponse(200, 'Ignored: not a message');
  const body = parsed.data;
  const at = body.message.createTime ? Date.parse(body.message.createTime) : NaN;
  const result = await ingestChannelMessage({
    inbox,
    sourceType: 'google_business_message',
    sender: { identity: { channel: 'google_business', externalId: body.conversationId }, name: body.context?.userInfo?.displayName ?? null },
    text: body.message.text,
    externalId: body.message.messageId,
    receivedAt: Number.isFinite(at) ? new Date(Math.min(at, Date.now())) : undefined,
  });
  return Response.json({ ok: true, status: result.status });
}

/** Replies cannot leave: the message is marked failed with the reason, instead of pretending it was sent. */
registerChannelDeliverer('google_business', async () => {
  throw new DeliveryRefused(GOOGLE_BUSINESS_SHUTDOWN);
});
