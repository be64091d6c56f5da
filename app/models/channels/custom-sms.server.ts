import { guardedRequest, outboundFailure, type GuardedResponse } from '../../utils/outbound-guard.server';
import { PARLEY_SIGNATURE_HEADER, parleySignature } from './signatures';
import type { SmsSettings } from './sms.server';

/**
 * The custom SMS provider: Parley posts each reply as JSON to the gateway's webhook URL, signed with the inbox's
 * shared secret, and the gateway posts incoming messages and delivery reports to /webhooks/sms/{inboxId} signed
 * the same way. The format is documented in docs/custom-sms.md.
 */

const TIMEOUT_MS = 15_000;

export type CustomSmsOutbound = {
  type: 'message';
  /** Parley's id of the message: the gateway names it in its delivery reports (or answers with its own id). */
  id: string;
  inboxId: number;
  conversationId: number;
  from: string;
  to: string;
  text: string;
  createdAt: string;
};

export async function sendCustomSms(opts: { settings: SmsSettings; secret: string; payload: CustomSmsOutbound }) {
  if (!opts.settings.webhookUrl) throw new Error('The custom SMS inbox has no webhook URL');
  const raw = JSON.stringify(opts.payload);
  let res: GuardedResponse;
  // Through the outbound guard (ADR 021): the account chose this URL. No redirect is followed, and the
  // message an agent sees says "refused" or "failed", never what answered.
  const context = { inboxId: opts.payload.inboxId };
  try {
    res = await guardedRequest(opts.settings.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PARLEY_SIGNATURE_HEADER]: parleySignature(opts.secret, raw), 'user-agent': 'Parley-SMS/1' },
      body: raw,
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    throw new Error(outboundFailure('Delivery to the SMS gateway', err, context));
  }
  if (!res.ok) throw new Error(outboundFailure('Delivery to the SMS gateway', new Error(`answered ${res.status}`), context));
  // The gateway may answer { "id": "<its own id>" }; Parley's message id stands in otherwise.
  const body = parseJson(res.text) as { id?: unknown } | null;
  const id = typeof body?.id === 'string' && body.id.trim() ? body.id.trim().slice(0, 200) : opts.payload.id;
  return { externalId: id };
}

/**
 * Saving a custom SMS inbox posts a signed `check` to its gateway first (docs/custom-sms.md): a 2xx means the URL
 * answers and, if the gateway checks signatures, that it holds the secret. Undefined when it answered 2xx,
 * else the words for the form (never what answered beyond its status: ADR 021).
 */
export async function checkCustomSmsGateway(opts: { webhookUrl: string; secret: string; phoneNumber: string; inboxId?: number }) {
  const raw = JSON.stringify({ type: 'check', ...(opts.inboxId ? { inboxId: opts.inboxId } : {}), from: opts.phoneNumber, createdAt: new Date().toISOString() });
  try {
    const res = await guardedRequest(opts.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PARLEY_SIGNATURE_HEADER]: parleySignature(opts.secret, raw), 'user-agent': 'Parley-SMS/1' },
      body: raw,
      timeoutMs: TIMEOUT_MS,
    });
    if (res.ok) return undefined;
    return `The SMS gateway answered ${res.status} to Parley's signed check`;
  } catch (err) {
    return `${outboundFailure('The check of the SMS gateway', err, { inboxId: opts.inboxId })}: no answer from the webhook URL`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
