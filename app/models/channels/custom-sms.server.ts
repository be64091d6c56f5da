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
  let res: Response;
  try {
    res = await fetch(opts.settings.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PARLEY_SIGNATURE_HEADER]: parleySignature(opts.secret, raw), 'user-agent': 'Parley-SMS/1' },
      body: raw,
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`The SMS gateway could not be reached (${(err as Error).message})`);
  }
  if (!res.ok) throw new Error(`The SMS gateway answered ${res.status}`);
  // The gateway may answer { "id": "<its own id>" }; Parley's message id stands in otherwise.
  const body = (await res.json().catch(() => null)) as { id?: unknown } | null;
  const id = typeof body?.id === 'string' && body.id.trim() ? body.id.trim().slice(0, 200) : opts.payload.id;
  return { externalId: id };
}
