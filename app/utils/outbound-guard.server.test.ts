import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetSingleton } from './singleton.server';
import { guardedRequest, guardedSocket, isPublicAddress, isRefusedHost, isRefusedUrl, nodemailerGetSocket, OutboundRefusedError, outboundFailure } from './outbound-guard.server';

// The suite allows private destinations for its stand-ins; the guard's own tests run as an installation would.
beforeEach(() => {
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'false';
  resetSingleton('config');
});
afterEach(() => {
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  resetSingleton('config');
  vi.restoreAllMocks();
});

let server: http.Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits += 1;
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/inside` }).end();
      return;
    }
    res.writeHead(404).end('internal service banner');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '2002:7f00:1::',
    'localhost',
    '0x7f000001',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('names and odd spellings are judged by the address they resolve to', () => {
  it.each(['localhost', '127.0.0.1', '0x7f000001', '2130706433', '0177.0.0.1', '127.1', '[::1]', '::ffff:127.0.0.1', '169.254.169.254', '10.0.0.1'])(
    'refuses %s before saving',
    async (host) => {
      expect(await isRefusedHost(host)).toBe(true);
    },
  );

  it.each(['http://0x7f000001:8080/x', 'http://[::ffff:7f00:1]/', 'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'gopher://example.com/'])(
    'refuses the URL %s',
    async (url) => {
      expect(await isRefusedUrl(url)).toBe(true);
    },
  );

  it('lets an installation on a private network reach its own servers when the setting is on', async () => {
    process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
    resetSingleton('config');
    expect(await isRefusedHost('127.0.0.1')).toBe(false);
    const res = await guardedRequest(`http://127.0.0.1:${port}/`, { timeoutMs: 5000 });
    expect(res.status).toBe(404);
  });
});

describe('connections', () => {
  it('refuses an HTTP request to loopback by address and by name, before anything is sent', async () => {
    const before = hits;
    await expect(guardedRequest(`http://127.0.0.1:${port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(guardedRequest(`http://localhost:${port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(guardedRequest(`http://0x7f000001:${port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(hits).toBe(before);
  });

  it('checks again on the address the socket connects to: a name that turned private after saving is refused (DNS rebinding)', async () => {
    // Saved while the name answered a public address; at connect time it answers loopback.
    const real = dns.lookup;
    vi.spyOn(dns, 'lookup').mockImplementation(((host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if (host !== 'rebind.parley.test') return (real as unknown as (...a: unknown[]) => void)(host, opts, cb);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    }) as never);
    vi.spyOn(dns.promises, 'lookup').mockImplementation((async () => [{ address: '93.184.216.34', family: 4 }]) as never);
    expect(await isRefusedHost('rebind.parley.test')).toBe(false);
    const before = hits;
    await expect(guardedRequest(`http://rebind.parley.test:${port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(guardedSocket({ host: 'rebind.parley.test', port, timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(hits).toBe(before);
  });

  it('follows no redirect', async () => {
    process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
    resetSingleton('config');
    const before = hits;
    const res = await guardedRequest(`http://127.0.0.1:${port}/redirect`, { timeoutMs: 5000 });
    expect(res.status).toBe(302);
    expect(hits).toBe(before + 1);
  });

  it('refuses an SMTP connection to loopback through nodemailer', async () => {
    const transport = nodemailer.createTransport({ host: 'localhost', port, secure: false, getSocket: nodemailerGetSocket(5000) } as nodemailer.TransportOptions);
    const err = await transport.sendMail({ from: 'a@example.com', to: 'b@example.com', text: 'x' }).catch((e: unknown) => e);
    expect(outboundFailure('Delivery', err)).toMatch(/^Delivery was refused/);
  });

  it('says "failed", never what answered', () => {
    const shown = outboundFailure('Delivery to the SMS gateway', new Error('answered 404 internal service banner'));
    expect(shown).toBe('Delivery to the SMS gateway failed');
  });
});
