import crypto from 'node:crypto';

/** Standard Webhooks signing (https://www.standardwebhooks.com/, ADR 077). */

export function newWebhookSecret() {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

export function newMessageId() {
  return `msg_${crypto.randomBytes(16).toString('base64url')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the secret's base64 part decoded as the key. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers; `secrets` sign in order (the current one, then during a rotation the previous one). */
export function webhookHeaders(secrets: string[], id: string, timestamp: number, body: string) {
  return {
    'content-type': 'application/json',
    'user-agent': 'Parley-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signWebhook(s, id, timestamp, body)).join(' '),
  };
}
