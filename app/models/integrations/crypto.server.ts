import crypto from 'node:crypto';
import { getConfig } from '../../utils/env.server';

/**
 * Tokens at rest (ADR 078): AES-256-GCM under the installation's key (PARLEY_SECRET_KEY, or one derived from the
 * session secret), a fresh 96-bit nonce per value, and the account and purpose as associated data, so a sealed
 * token copied into another account's row or another column does not open. Format: `v1.<nonce>.<tag>.<ciphertext>`.
 */
export function sealSecret(plain: string, context: { accountId: number; purpose: string }) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', getConfig().integrations.secretKey, iv);
  cipher.setAAD(Buffer.from(`${context.accountId}:${context.purpose}`));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export class SealedSecretError extends Error {
  constructor() {
    super('A stored integration secret could not be opened (was PARLEY_SECRET_KEY changed?). Connect the integration again.');
  }
}

export function openSecret(sealed: string, context: { accountId: number; purpose: string }) {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new SealedSecretError();
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', getConfig().integrations.secretKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${context.accountId}:${context.purpose}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError();
  }
}

/** Constant-time comparison of two signatures given as strings. */
export function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export function hmac(algorithm: 'sha256', key: string | Buffer, data: string | Buffer) {
  return crypto.createHmac(algorithm, key).update(data);
}
