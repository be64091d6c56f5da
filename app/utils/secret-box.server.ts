import crypto from 'node:crypto';
import { getConfig } from './env.server';

/**
 * Secrets Parley must send on as they are — integration tokens and webhook secrets (ADR 078), an account's AI API key
 * (ADR 081), a CalDAV password (ADR 088) — are kept encrypted at rest: AES-256-GCM under the installation's key
 * (PARLEY_SECRET_KEY, or one derived from the session secret), a fresh 96-bit nonce per value, and the account and
 * purpose as associated data, so a sealed value copied into another account's row or another column does not open.
 * Format: `v1.<nonce>.<tag>.<ciphertext>` (base64url). A database dump alone gives none of them away.
 */
export type SecretContext = { accountId: number; purpose: string };

export function sealSecret(plain: string, context: SecretContext) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', getConfig().secretKey, iv);
  cipher.setAAD(Buffer.from(`${context.accountId}:${context.purpose}`));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export class SealedSecretError extends Error {
  constructor() {
    super('A stored secret could not be opened (was PARLEY_SECRET_KEY or SESSION_SECRET changed?). Enter it or connect again.');
  }
}

export function openSecret(sealed: string, context: SecretContext) {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new SealedSecretError();
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', getConfig().secretKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${context.accountId}:${context.purpose}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError();
  }
}
