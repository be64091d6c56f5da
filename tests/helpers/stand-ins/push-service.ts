import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local push service for tests (ADR 083) speaking the Web Push protocol: RFC 8030 (POST to the subscription's
 * endpoint, TTL header, 201 Created), RFC 8292 (`Authorization: vapid t=<JWT>, k=<key>`: the ES256 signature is
 * checked with k, and the JWT's aud must be this service's origin, exp within 24 hours, sub present) and RFC 8291
 * (the aes128gcm body is decrypted with the subscription's private key and auth secret). A subscription marked
 * expired answers 410 Gone; an unknown one 404.
 */
export type ReceivedPush = { subscription: string; payload: unknown; ttl: number; claims: { aud: string; exp: number; sub: string }; vapidKey: string };

type Sub = { id: string; ecdh: crypto.ECDH; publicKey: Buffer; auth: Buffer; expired: boolean };

const b64u = (b: Buffer) => b.toString('base64url');
const hmac = (key: Buffer, data: Buffer) => crypto.createHmac('sha256', key).update(data).digest();

/** RFC 8291 §3.4 and RFC 8188: one record, the sender's key in the header. */
export function decryptAes128gcm(body: Buffer, ua: { ecdh: crypto.ECDH; publicKey: Buffer; auth: Buffer }) {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (idlen !== 65 || rs < 18 || record.length > rs) throw new Error('bad aes128gcm header');
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const prkKey = hmac(ua.auth, ecdhSecret);
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), ua.publicKey, asPublic, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'binary')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'binary')).subarray(0, 12);
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 and zero padding.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('bad padding delimiter');
  return plain.subarray(0, end).toString('utf8');
}

/** RFC 8292 §2 and §3: the JWT signed with ES256 by the key in k; returns its claims or throws. */
export function verifyVapid(header: string | undefined, audience: string) {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error('no vapid authorization');
  const [h, p, s] = m[1].split('.');
  const key = Buffer.from(m[2], 'base64url');
  if (key.length !== 65 || key[0] !== 4) throw new Error('bad vapid key');
  const publicKey = crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(key.subarray(1, 33)), y: b64u(key.subarray(33)) }, format: 'jwk' });
  const head = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg: string };
  if (head.alg !== 'ES256') throw new Error('bad alg');
  const ok = crypto.verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('bad signature');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { aud: string; exp: number; sub: string };
  const now = Math.floor(Date.now() / 1000);
  if (claims.aud !== audience) throw new Error('bad audience');
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) throw new Error('bad expiry');
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) throw new Error('bad subject');
  return { claims, vapidKey: m[2] };
}

export async function startPushService() {
  const subs = new Map<string, Sub>();
  const received: ReceivedPush[] = [];
  const refused: { subscription: string; reason: string }[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/push\/([a-z0-9]+)$/.exec(req.url ?? '');
      const sub = m ? subs.get(m[1]) : undefined;
      if (req.method !== 'POST' || !sub) return void res.writeHead(404).end();
      if (sub.expired) return void res.writeHead(410).end();
      try {
        const vapid = verifyVapid(req.headers.authorization, origin);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('bad content encoding');
        const ttl = Number(req.headers.ttl);
        if (!Number.isInteger(ttl) || ttl < 0) throw new Error('bad TTL');
        const text = decryptAes128gcm(Buffer.concat(chunks), sub);
        received.push({ subscription: sub.id, payload: JSON.parse(text), ttl, ...vapid });
        res.writeHead(201, { Location: `${origin}/message/${received.length}` }).end();
      } catch (err) {
        refused.push({ subscription: sub.id, reason: (err as Error).message });
        res.writeHead(403).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    refused,
    /** A browser's subscription: what PushSubscription.toJSON() gives, the private half kept here. */
    subscribe() {
      const ecdh = crypto.createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const sub: Sub = { id: crypto.randomBytes(8).toString('hex'), ecdh, publicKey, auth: crypto.randomBytes(16), expired: false };
      subs.set(sub.id, sub);
      return { id: sub.id, json: { endpoint: `${origin}/push/${sub.id}`, keys: { p256dh: b64u(sub.publicKey), auth: b64u(sub.auth) } } };
    },
    /**
     * A subscription whose keys a browser made (the JavaScript-on widget test makes them in the page with WebCrypto):
     * the service learns the private half so it can decrypt what it is sent, as the browser's push service would hand
     * the encrypted message to the browser, which decrypts it.
     */
    adopt(keys: { id: string; privateKey: string; p256dh: string; auth: string }) {
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.setPrivateKey(Buffer.from(keys.privateKey, 'base64url'));
      const publicKey = ecdh.getPublicKey();
      if (b64u(publicKey) !== keys.p256dh) throw new Error('the private key does not match p256dh');
      subs.set(keys.id, { id: keys.id, ecdh, publicKey, auth: Buffer.from(keys.auth, 'base64url'), expired: false });
    },
    expire(id: string) {
      subs.get(id)!.expired = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
