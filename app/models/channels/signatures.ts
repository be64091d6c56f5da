import crypto from 'node:crypto';

/**
 * The signatures of the channels' webhooks, each as its provider documents it. Every check compares in constant
 * time and answers false (never throws) on malformed input, so a webhook turns a bad signature into a 401/403.
 */

function safeEqual(a: string, b: string) {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
}

/**
 * Twilio's X-Twilio-Signature: base64(HMAC-SHA1(authToken, url + each POST parameter's name and value, sorted
 * by name)). A parameter given more than once contributes each value, in order, after its name.
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>) {
  const pairs = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + pairs.map(([k, v]) => k + v).join('');
  return crypto.createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** True when the header matches the signature of one of the URLs Twilio may have used (see ADR 020). */
export function verifyTwilioSignature(opts: { authToken: string; urls: string[]; params: [string, string][]; header: string | null }) {
  if (!opts.header || !opts.authToken) return false;
  return opts.urls.some((url) => safeEqual(opts.header!, twilioSignature(opts.authToken, url, opts.params)));
}

/** Meta's X-Hub-Signature-256: `sha256=` + hex(HMAC-SHA256(appSecret, raw body)). */
export function metaSignature(appSecret: string, rawBody: string) {
  return `sha256=${crypto.createHmac('sha256', appSecret).update(rawBody, 'utf8').digest('hex')}`;
}

export function verifyMetaSignature(opts: { appSecret: string; rawBody: string; header: string | null }) {
  if (!opts.header || !opts.appSecret) return false;
  return safeEqual(opts.header.trim(), metaSignature(opts.appSecret, opts.rawBody));
}

/** X's CRC answer and webhook signature: `sha256=` + base64(HMAC-SHA256(consumerSecret, payload)). */
export function twitterSignature(consumerSecret: string, payload: string) {
  return `sha256=${crypto.createHmac('sha256', consumerSecret).update(payload, 'utf8').digest('base64')}`;
}

export function verifyTwitterSignature(opts: { consumerSecret: string; rawBody: string; header: string | null }) {
  if (!opts.header || !opts.consumerSecret) return false;
  return safeEqual(opts.header.trim(), twitterSignature(opts.consumerSecret, opts.rawBody));
}

/** Google Business Messages' X-Goog-Signature: base64(HMAC-SHA512(clientToken, raw body)). */
export function googleBusinessSignature(clientToken: string, rawBody: string) {
  return crypto.createHmac('sha512', clientToken).update(rawBody, 'utf8').digest('base64');
}

export function verifyGoogleBusinessSignature(opts: { clientToken: string; rawBody: string; header: string | null }) {
  if (!opts.header || !opts.clientToken) return false;
  return safeEqual(opts.header.trim(), googleBusinessSignature(opts.clientToken, opts.rawBody));
}

/**
 * Parley's own signature for custom SMS gateways, both ways: `X-Parley-Signature: t=<unix seconds>,v1=<hex>`
 * where hex = HMAC-SHA256(sharedSecret, `<t>.<raw body>`). The timestamp is signed too, so a captured request
 * cannot be replayed outside the tolerance window (docs/custom-sms.md).
 */
export const PARLEY_SIGNATURE_HEADER = 'X-Parley-Signature';
export const PARLEY_SIGNATURE_TOLERANCE_SECONDS = 300;

export function parleySignature(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)) {
  const v1 = crypto.createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

export type ParleySignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

export function verifyParleySignature(opts: { secret: string; rawBody: string; header: string | null; now?: number }): ParleySignatureCheck {
  if (!opts.header) return { ok: false, reason: 'missing' };
  const parts = Object.fromEntries(
    opts.header.split(',').map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? [p.trim(), ''] : [p.slice(0, i).trim(), p.slice(i + 1).trim()];
    }),
  );
  const t = Number(parts.t);
  if (!/^\d{1,12}$/.test(parts.t ?? '') || !/^[0-9a-f]{64}$/i.test(parts.v1 ?? '')) return { ok: false, reason: 'malformed' };
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > PARLEY_SIGNATURE_TOLERANCE_SECONDS) return { ok: false, reason: 'expired' };
  const expected = parleySignature(opts.secret, opts.rawBody, t);
  return safeEqual(opts.header.replace(/\s+/g, ''), expected) || safeEqual(`t=${parts.t},v1=${parts.v1.toLowerCase()}`, expected)
    ? { ok: true }
    : { ok: false, reason: 'mismatch' };
}
