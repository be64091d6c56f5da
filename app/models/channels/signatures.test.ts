import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  metaSignature,
  parleySignature,
  twilioSignature,
  twitterSignature,
  verifyMetaSignature,
  verifyParleySignature,
  verifyTwilioSignature,
  verifyTwitterSignature,
} from './signatures';

describe('Twilio request signature', () => {
  // The example of Twilio's security documentation (auth token 12345).
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params: [string, string][] = [
    ['Digits', '1234'],
    ['To', '+18005551212'],
    ['From', '+12349013030'],
    ['Caller', '+12349013030'],
    ['CallSid', 'CA1234567890ABCDE'],
  ];

  it("matches the documented example, whatever the parameters' order", () => {
    expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    expect(verifyTwilioSignature({ authToken: '12345', urls: ['http://wrong.example/x', url], params, header: '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' })).toBe(true);
  });

  it('refuses another token, another URL, a changed parameter or no header', () => {
    const header = twilioSignature('12345', url, params);
    expect(verifyTwilioSignature({ authToken: '54321', urls: [url], params, header })).toBe(false);
    expect(verifyTwilioSignature({ authToken: '12345', urls: [url.replace('https', 'http')], params, header })).toBe(false);
    expect(verifyTwilioSignature({ authToken: '12345', urls: [url], params: [...params.slice(1), ['Digits', '9']], header })).toBe(false);
    expect(verifyTwilioSignature({ authToken: '12345', urls: [url], params, header: null })).toBe(false);
  });
});

describe('Meta and X signatures', () => {
  it('Meta: sha256= and the hex HMAC of the raw body', () => {
    const body = '{"object":"page"}';
    const expected = `sha256=${crypto.createHmac('sha256', 'app-secret').update(body).digest('hex')}`;
    expect(metaSignature('app-secret', body)).toBe(expected);
    expect(verifyMetaSignature({ appSecret: 'app-secret', rawBody: body, header: expected })).toBe(true);
    expect(verifyMetaSignature({ appSecret: 'app-secret', rawBody: `${body} `, header: expected })).toBe(false);
    expect(verifyMetaSignature({ appSecret: 'other', rawBody: body, header: expected })).toBe(false);
  });

  it('X: sha256= and the base64 HMAC (the CRC answer uses the same)', () => {
    const expected = `sha256=${crypto.createHmac('sha256', 'consumer-secret').update('crc-token').digest('base64')}`;
    expect(twitterSignature('consumer-secret', 'crc-token')).toBe(expected);
    expect(verifyTwitterSignature({ consumerSecret: 'consumer-secret', rawBody: 'crc-token', header: expected })).toBe(true);
    expect(verifyTwitterSignature({ consumerSecret: 'consumer-secret', rawBody: 'crc-token', header: 'sha256=AAAA' })).toBe(false);
  });
});

describe("Parley's custom SMS signature", () => {
  const now = 1_800_000_000;
  it('signs the timestamp and the body, and refuses replays outside five minutes', () => {
    const header = parleySignature('s3cret', '{"a":1}', now);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":1}', header, now: now + 299 })).toEqual({ ok: true });
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":1}', header, now: now + 301 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":2}', header, now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyParleySignature({ secret: 'other', rawBody: '{"a":1}', header, now })).toEqual({ ok: false, reason: 'mismatch' });
    // A forged timestamp breaks the signature.
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":1}', header: header.replace('t=1800000000', `t=${now + 10}`), now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":1}', header: 'garbage', now })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyParleySignature({ secret: 's3cret', rawBody: '{"a":1}', header: null, now })).toEqual({ ok: false, reason: 'missing' });
  });
});
