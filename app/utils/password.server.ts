import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const N = 2 ** 15;
const r = 8;
const p = 1;
const KEYLEN = 32;

/** scrypt (memory-hard, from node:crypto); the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string) {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, { N, r, p, maxmem: 128 * N * r * 2 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined) {
  if (!stored) return false;
  const [alg, n, rr, pp, saltB64, hashB64] = stored.split('$');
  if (alg !== 'scrypt') return false;
  const expected = Buffer.from(hashB64, 'base64');
  const nn = Number(n);
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: nn,
    r: Number(rr),
    p: Number(pp),
    maxmem: 128 * nn * Number(rr) * 2,
  });
  return crypto.timingSafeEqual(actual, expected);
}

export function randomToken(bytes = 32) {
  return crypto.randomBytes(bytes).toString('base64url');
}

export function sha256(value: string) {
  return crypto.createHash('sha256').update(value).digest('hex');
}

/** Six digits, uniformly drawn. */
export function randomCode() {
  return crypto.randomInt(0, 1_000_000).toString().padStart(6, '0');
}
