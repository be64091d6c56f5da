import crypto from 'node:crypto';
import { getConfig } from '../../utils/env.server';

/**
 * An account's AI API key at rest (ADR 081): AES-256-GCM with a key derived (HKDF) from the installation's session
 * secret, stored as "v1.<iv>.<tag>.<ciphertext>" (base64url). A database dump alone does not give the key away.
 */
function key() {
  return Buffer.from(crypto.hkdfSync('sha256', getConfig().sessionSecret, 'parley', 'ai-api-keys', 32));
}

export function sealSecret(plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key(), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

/** Null when the value cannot be opened (the session secret changed): the account enters its key again. */
export function openSecret(sealed: string): string | null {
  const [v, iv, tag, data] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || data === undefined) return null;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
