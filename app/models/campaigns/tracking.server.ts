import crypto from 'node:crypto';
import { getConfig } from '../../utils/env.server';
import { singleton } from '../../utils/singleton.server';

/**
 * Tracking and unsubscribe links (ADR 065): `{payload}.{signature}`, the payload base64url JSON of the account,
 * the recipient and (for a click) the destination, the signature an HMAC-SHA256 under a key derived from the
 * session secret, cut to 128 bits. A link altered in any character is refused; nothing else is stored for it.
 */
export type TrackingPayload = { k: 'o' | 'c' | 'u' | 'd'; a: number; r: number; u?: string; t?: 's' };

/**
 * The one open pixel of Parley's bulk email (ADR 094): campaign emails and email surveys both load `/c/o/{token}`;
 * `t: 's'` says the recipient is a survey recipient (survey_email_recipients), else a campaign recipient.
 */
export function pixelPath(opts: { accountId: number; recipientId: number; survey?: boolean }) {
  return `/c/o/${signTracking({ k: 'o', a: opts.accountId, r: opts.recipientId, ...(opts.survey ? { t: 's' as const } : {}) })}`;
}

const key = () => singleton('campaign-link-key', () => crypto.createHmac('sha256', getConfig().sessionSecret).update('parley:campaign-links').digest());

function sign(body: string) {
  return crypto.createHmac('sha256', key()).update(body).digest().subarray(0, 16).toString('base64url');
}

export function signTracking(payload: TrackingPayload) {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body)}`;
}

export function verifyTracking(token: string, kind: TrackingPayload['k']): TrackingPayload | null {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined || body.length > 4000) return null;
  const expected = sign(body);
  if (sig.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TrackingPayload;
    if (payload.k !== kind || !Number.isInteger(payload.a) || !Number.isInteger(payload.r)) return null;
    if (payload.t !== undefined && (payload.t !== 's' || kind !== 'o')) return null;
    if (kind === 'c' && (typeof payload.u !== 'string' || !/^https?:\/\//i.test(payload.u))) return null;
    return payload;
  } catch {
    return null;
  }
}
