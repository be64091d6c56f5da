import crypto from 'node:crypto';
import { getConfig } from './env.server';

/**
 * Secrets Parley must send on as they are (a CalDAV password) are kept encrypted at rest (ADR 088): AES-256-GCM with
 * a key derived by HKDF from the installation's session secret, a random 12-byte IV per value, the tag checked on
 * opening. A database dump alone does not give them away. Changing SESSION_SECRET makes them unreadable (the agent
 * connects again), as it already invalidates sessions and signed links.
 */
const PREFIX = 'v1';

function key(purpose: string) {
  return Buffer.from(crypto.hkdfSync('sha256', getConfig().sessionSecret, 'parley-secret-box', purpose, 32));
}

export function sealSecret(plain: string, purpose: string) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key(purpose), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [PREFIX, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
}

export class SecretUnreadableError extends Error {
  constructor() {
    super('A stored secret cannot be read (was SESSION_SECRET changed?): connect again');
  }
}

export function openSecret(sealed: string, purpose: string) {
  const [v, iv, tag, body] = sealed.split(':');
  if (v !== PREFIX || !iv || !tag || body === undefined) throw new SecretUnreadableError();
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key(purpose), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError();
  }
}
