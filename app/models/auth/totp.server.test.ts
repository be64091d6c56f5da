import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode, totpStep } from './totp.server';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890".
const SEED = Buffer.from('12345678901234567890', 'ascii');
const SECRET = base32Encode(SEED);
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('gives the RFC 6238 SHA-1 test vectors (8 digits) and their last six digits', () => {
    for (const [t, expected] of VECTORS) {
      expect(totpCode(SECRET, t * 1000, 8), `T=${t}`).toBe(expected);
      expect(totpCode(SECRET, t * 1000), `T=${t}`).toBe(expected.slice(2));
    }
  });

  it('gives the RFC 4226 HOTP test values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expected.forEach((code, counter) => expect(hotp(SEED, counter)).toBe(code));
  });

  it('round-trips base32 and reads secrets typed with spaces and lower case', () => {
    expect(SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode(SECRET.toLowerCase().replace(/(.{4})/g, '$1 ')).equals(SEED)).toBe(true);
  });

  it('accepts one step either side, not two, and never a step at or before the last one used', () => {
    const at = 1111111111 * 1000;
    const step = totpStep(at);
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at), atMs: at })).toBe(step);
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at - 30_000), atMs: at })).toBe(step - 1);
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at + 30_000), atMs: at })).toBe(step + 1);
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at - 60_000), atMs: at })).toBeNull();
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at), atMs: at, lastUsedStep: step })).toBeNull();
    expect(matchTotp({ secret: SECRET, code: totpCode(SECRET, at - 30_000), atMs: at, lastUsedStep: step })).toBeNull();
    expect(matchTotp({ secret: SECRET, code: 'abcdef', atMs: at })).toBeNull();
    expect(matchTotp({ secret: SECRET, code: '12345', atMs: at })).toBeNull();
  });

  it('writes the otpauth URI apps read', () => {
    expect(otpauthUri({ secret: SECRET, issuer: 'Parley (acme)', accountName: 'ana@acme.test' })).toBe(
      'otpauth://totp/Parley%20(acme):ana%40acme.test?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Parley+%28acme%29&algorithm=SHA1&digits=6&period=30',
    );
  });
});
