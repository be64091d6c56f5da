import crypto from 'node:crypto';

/** Constant-time comparison of two signatures given as strings. */
export function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export function hmac(algorithm: 'sha256', key: string | Buffer, data: string | Buffer) {
  return crypto.createHmac(algorithm, key).update(data);
}
