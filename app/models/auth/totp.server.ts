import crypto from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 30-second steps, 6 digits, and one
 * step either side accepted for clocks that drift. What authenticator apps (Google Authenticator, 1Password,
 * Aegis...) expect from an otpauth:// URI with no extra parameters.
 */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array) {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string) {
  const clean = text.replace(/[\s=-]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const idx = BASE32.indexOf(ch);
    if (idx < 0) throw new Error('Not base32');
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A fresh 160-bit secret (RFC 4226 recommends the hash's length), base32 as apps take it. */
export function generateTotpSecret() {
  return base32Encode(crypto.randomBytes(20));
}

/** RFC 4226 HOTP: the counter as 8 big-endian bytes, dynamic truncation, the last `digits` decimal digits. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return (binary % 10 ** digits).toString().padStart(digits, '0');
}

export const totpStep = (atMs: number) => Math.floor(atMs / 1000 / TOTP_STEP_SECONDS);

export function totpCode(secretBase32: string, atMs = Date.now(), digits = TOTP_DIGITS) {
  return hotp(base32Decode(secretBase32), totpStep(atMs), digits);
}

/**
 * The step whose code matches, within one step either side of now, or null. Steps at or before `lastUsedStep` are
 * not considered: a code accepted once cannot be replayed, nor can an older one after a newer one was used.
 */
export function matchTotp(opts: { secret: string; code: string; atMs?: number; lastUsedStep?: number | null }) {
  const code = opts.code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(opts.secret);
  const now = totpStep(opts.atMs ?? Date.now());
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if (opts.lastUsedStep != null && step <= opts.lastUsedStep) continue;
    if (crypto.timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code))) return step;
  }
  return null;
}

/** The otpauth:// URI an authenticator app reads from the QR code (Key Uri Format). */
export function otpauthUri(opts: { secret: string; issuer: string; accountName: string }) {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.accountName)}`;
  const params = new URLSearchParams({ secret: opts.secret, issuer: opts.issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${params.toString()}`;
}
