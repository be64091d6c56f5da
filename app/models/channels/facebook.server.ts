import crypto from 'node:crypto';
import { z } from 'zod';
import { guardedRequest } from '../../utils/outbound-guard.server';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { randomToken } from '../../utils/password.server';
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox, type Inbox } from '../inbox/inboxes.server';
import { registerChannelDeliverer, type OutgoingMessage } from './delivery.server';
import type { FacebookInput } from './facebook-schemas';
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
import { verifyMetaSignature } from './signatures';
import { parseJsonObject } from '../../utils/json';

/**
 * Facebook Messenger inboxes: Meta's webhook (verify-token handshake, X-Hub-Signature-256) brings page messages
 * in; replies leave through the Send API at META_GRAPH_API_BASE. Page token and app secret are never shown back.
 */

export const GRAPH_API_VERSION = 'v19.0';
const TIMEOUT_MS = 15_000;

export type FacebookSettings = { pageId: string; pageAccessToken: string; appSecret: string; verifyToken: string; publicBase: string };

export function readFacebookSettings(inbox: Inbox): FacebookSettings {
  const s = inbox.settings as Partial<FacebookSettings>;
  return {
    pageId: s.pageId ?? '',
    pageAccessToken: s.pageAccessToken ?? '',
    appSecret: s.appSecret ?? '',
    verifyToken: s.verifyToken ?? '',
    publicBase: s.publicBase ?? '',
  };
}

export function describeFacebookInbox(inbox: Inbox) {
  const s = readFacebookSettings(inbox);
  return {
    id: inbox.id,
    name: inbox.name,
    pageId: s.pageId,
    pageAccessTokenHint: maskSecret(s.pageAccessToken),
    appSecretHint: maskSecret(s.appSecret),
    verifyToken: s.verifyToken,
    callbackUrl: `${s.publicBase}/webhooks/facebook/${inbox.id}`,
    createdAt: inbox.createdAt,
  };
}

export async function listFacebookInboxes(opts: { accountId: number }) {
  return (await listInboxes({ accountId: opts.accountId, channelType: 'facebook' })).map(describeFacebookInbox);
}

export async function getFacebookInbox(opts: { accountId: number; id: number }) {
  const inbox = await getInbox(opts);
  return inbox && inbox.channelType === 'facebook' ? inbox : undefined;
}

export async function createFacebookInbox(opts: { accountId: number; actorId: number; input: FacebookInput; publicBase: string }) {
  const settings: FacebookSettings = {
    pageId: opts.input.pageId,
    pageAccessToken: opts.input.pageAccessToken ?? '',
    appSecret: opts.input.appSecret ?? '',
    verifyToken: randomToken(18),
    publicBase: opts.publicBase.replace(/\/+$/, ''),
  };
  return createInbox({ accountId: opts.accountId, actorId: opts.actorId, name: opts.input.name, channelType: 'facebook', settings });
}

/** Secrets left empty are kept. */
export async function updateFacebookInbox(opts: { accountId: number; actorId: number; id: number; input: FacebookInput }) {
  const inbox = await getFacebookInbox(opts);
  if (!inbox) return undefined;
  const before = readFacebookSettings(inbox);
  const settings: FacebookSettings = {
    ...before,
    pageId: opts.input.pageId,
    pageAccessToken: opts.input.pageAccessToken || before.pageAccessToken,
    appSecret: opts.input.appSecret || before.appSecret,
  };
  return updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: inbox.id, changes: { name: opts.input.name, settings } });
}

/**
 * What saving a Facebook inbox checks with the Graph API before anything is stored (ADR 039): `GET /me` with the
 * page token answers the page it belongs to, which must be the Page ID given; with the app secret, the call
 * carries `appsecret_proof` (HMAC-SHA256 of the token), which Graph refuses when the secret is not the token's
 * app's. The token travels in the Authorization header, never in a URL a log could keep. Undefined when all is
 * well, else the field and the words for the form.
 */
export async function checkFacebookSettings(opts: { pageId: string; pageAccessToken: string; appSecret: string }) {
  type Problem = { field: 'pageId' | 'pageAccessToken' | 'appSecret'; message: string };
  const url = new URL(`${getConfig().metaGraphApiBase}/${GRAPH_API_VERSION}/me`);
  url.searchParams.set('fields', 'id,name');
  if (opts.appSecret) url.searchParams.set('appsecret_proof', crypto.createHmac('sha256', opts.appSecret).update(opts.pageAccessToken).digest('hex'));
  let res;
  try {
    res = await guardedRequest(url.href, { headers: { authorization: `Bearer ${opts.pageAccessToken}`, accept: 'application/json' }, timeoutMs: TIMEOUT_MS });
  } catch (err) {
    return { field: 'pageAccessToken', message: `The Graph API could not be reached (${(err as Error).message})` } satisfies Problem;
  }
  const body = parseJsonObject(res.text) as { id?: unknown; name?: unknown; error?: { message?: unknown; code?: unknown } } | null;
  if (!res.ok || !body || typeof body.id !== 'string') {
    const detail = typeof body?.error?.message === 'string' ? body.error.message.slice(0, 200) : `HTTP ${res.status}`;
    const proof = /appsecret_proof/i.test(detail);
    return {
      field: proof ? 'appSecret' : 'pageAccessToken',
      message: proof ? "Facebook refused the App Secret: it is not the secret of the token's app" : `Facebook refused the Page Access Token: ${detail}`,
    } satisfies Problem;
  }
  if (body.id !== opts.pageId)
    return { field: 'pageId', message: `This Page Access Token is for the page ${String(body.name ?? '').slice(0, 100)} (${body.id}), not for Page ID ${opts.pageId}` } satisfies Problem;
  return undefined;
}

/** The settings an update would leave (secrets left empty are kept): what the check tries before saving. */
export function facebookSettingsAfter(inbox: Inbox, input: FacebookInput): FacebookSettings {
  const before = readFacebookSettings(inbox);
  return { ...before, pageId: input.pageId, pageAccessToken: input.pageAccessToken || before.pageAccessToken, appSecret: input.appSecret || before.appSecret };
}

export async function deleteFacebookInbox(opts: { accountId: number; actorId: number; id: number }) {
  if (!(await getFacebookInbox(opts))) return undefined;
  return deleteInbox(opts);
}

const MetaWebhookSchema = z.object({
  object: z.string(),
  entry: z
    .array(
      z.object({
        id: z.string().optional(),
        messaging: z
          .array(
            z.object({
              sender: z.object({ id: z.string().min(1).max(64) }),
              recipient: z.object({ id: z.string().max(64) }).optional(),
              timestamp: z.number().optional(),
              message: z
                .object({
                  mid: z.string().min(1).max(200),
                  text: z.string().max(10_000).optional(),
                  is_echo: z.boolean().optional(),
                  attachments: z.array(z.unknown()).optional(),
                })
                .optional(),
            }),
          )
          .optional(),
      }),
    )
    .max(100),
});

/** GET /webhooks/facebook/{inboxId}: Meta's subscription check (hub.mode, hub.verify_token, hub.challenge). */
export async function handleFacebookVerification(request: Request, param: string | undefined) {
  const id = webhookInboxId(param);
  const inbox = id === null ? undefined : await findChannelInbox(id, 'facebook');
  if (!inbox) return plainResponse(404, 'Not Found');
  const url = new URL(request.url);
  const { verifyToken } = readFacebookSettings(inbox);
  const challenge = url.searchParams.get('hub.challenge');
  if (url.searchParams.get('hub.mode') !== 'subscribe' || !challenge) return plainResponse(400, 'hub.mode=subscribe and hub.challenge are required');
  if (!verifyToken || url.searchParams.get('hub.verify_token') !== verifyToken) return plainResponse(403, 'Forbidden');
  return plainResponse(200, challenge.slice(0, 200));
}

/** POST /webhooks/facebook/{inboxId}: page messages, signed with the app secret. */
export async function handleFacebookWebhook(request: Request, param: string | undefined) {
  const opened = await openWebhook(request, param, 'facebook');
  if ('response' in opened) return opened.response;
  const { inbox, raw } = opened;
  const settings = readFacebookSettings(inbox);
  if (!verifyMetaSignature({ appSecret: settings.appSecret, rawBody: raw, header: request.headers.get('x-hub-signature-256') })) {
    getLogger().warn({ inboxId: inbox.id }, 'facebook webhook: bad signature');
    return plainResponse(401, 'Invalid signature');
  }
  const parsedJson = parseWebhookJson(raw);
  if ('response' in parsedJson) return parsedJson.response;
  const json = parsedJson.json;
  const parsed = MetaWebhookSchema.safeParse(json);
  if (!parsed.success || parsed.data.object !== 'page') return plainResponse(400, 'Not a page webhook');
  for (const entry of parsed.data.entry) {
    for (const event of entry.messaging ?? []) {
      const m = event.message;
      // Echoes are the page's own messages (Parley's replies among them); other events (read, delivery) are not messages.
      if (!m || m.is_echo || event.sender.id === settings.pageId) continue;
      const text = m.text ?? (m.attachments?.length ? `[${m.attachments.length} attachment(s)]` : '');
      await ingestChannelMessage({
        inbox,
        sourceType: 'facebook',
        sender: { identity: { channel: 'facebook', externalId: event.sender.id } },
        text,
        externalId: m.mid,
        receivedAt: event.timestamp ? new Date(Math.min(event.timestamp, Date.now())) : undefined,
      });
    }
  }
  return plainResponse(200, 'EVENT_RECEIVED');
}

/** The `facebook` deliverer: the Send API, as a RESPONSE to the person's message. */
async function deliverFacebook(outgoing: OutgoingMessage) {
  const { inbox, message, conversation } = outgoing;
  const settings = readFacebookSettings(inbox);
  const psid = await contactIdentityOf({ accountId: inbox.accountId, contactId: conversation.contactId, channel: 'facebook' });
  if (!psid) throw new Error('The contact has no Facebook id to answer');
  const url = `${getConfig().metaGraphApiBase}/${GRAPH_API_VERSION}/me/messages?access_token=${encodeURIComponent(settings.pageAccessToken)}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: message.text } }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    // The URL carries the token: never put it in the error.
    throw new Error(`The Send API could not be reached (${(err as Error).name})`);
  }
  const body = (await res.json().catch(() => null)) as { message_id?: string; error?: { message?: string; code?: number } } | null;
  if (!res.ok || !body?.message_id)
    throw new Error(`The Send API answered ${res.status}: ${body?.error?.message ?? 'no message id'}${body?.error?.code ? ` (code ${body.error.code})` : ''}`);
  await recordChannelSend({ inbox, messageId: message.id, conversationId: conversation.id, externalId: body.message_id });
  return { externalId: body.message_id };
}

registerChannelDeliverer('facebook', deliverFacebook);
