import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { getConfig } from './env.server';
import { getLogger } from './logger.server';

/**
 * The one guard for every connection Parley opens to a destination an account gave it (custom SMS gateway,
 * IMAP and SMTP servers of email inboxes, and every later webhook or integration). See ADR 021.
 *
 * - Names are resolved, and every address they resolve to must be public: loopback, private, link-local
 *   (cloud metadata at 169.254.169.254), shared, multicast, reserved and unspecified addresses are refused,
 *   in IPv4, IPv6 and IPv4-mapped IPv6. Odd spellings (0x7f000001, 2130706433, 0177.1) are resolved by the
 *   system resolver first, so they are judged by the address they name.
 * - The check runs again inside the socket's own `lookup`, on the address the socket then connects to: a name
 *   that answers a public address at save time and a private one at connect time (DNS rebinding) is refused.
 * - Redirects are never followed.
 * - `PARLEY_ALLOW_PRIVATE_DESTINATIONS=true` lets self-hosters on a private network reach their own servers.
 *
 * What the account sees is "refused" or "failed", never what answered (a status, a banner, a timeout).
 */

export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
  constructor(public readonly host: string) {
    super('The destination was refused: Parley only connects to public internet addresses');
  }
}

/** The field error when an account saves such a destination. */
export const REFUSED_DESTINATION_MESSAGE = 'This address is refused: Parley only connects to public internet addresses';

/** Ranges no account-supplied connection may reach. */
const BLOCKED = (() => {
  const list = new net.BlockList();
  for (const [prefix, bits] of [
    ['0.0.0.0', 8], // "this network", unspecified
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8],
    ['169.254.0.0', 16], // link-local, cloud metadata
    ['172.16.0.0', 12],
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.88.99.0', 24], // 6to4 relay
    ['192.168.0.0', 16],
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ] as const) {
    list.addSubnet(prefix, bits, 'ipv4');
  }
  for (const [prefix, bits] of [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    ['::', 96], // IPv4-compatible (deprecated)
    ['64:ff9b::', 96], // NAT64 to anything: judged by the embedded IPv4 below
    ['64:ff9b:1::', 48],
    ['100::', 64], // discard
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4 (embeds any IPv4)
    ['2001::', 32], // Teredo
    ['fc00::', 7], // unique local
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ] as const) {
    list.addSubnet(prefix, bits, 'ipv6');
  }
  return list;
})();

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are IPv4 addresses in IPv6 clothing. */
function unmapIpv4(address: string) {
  const m = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!m) return null;
  const rest = m[1];
  if (net.isIPv4(rest)) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for an address an account-supplied connection may reach; false for everything else, including non-IPs. */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(plain);
  if (family === 4) return !BLOCKED.check(plain, 'ipv4');
  if (family === 6) {
    const v4 = unmapIpv4(plain);
    if (v4) return isPublicAddress(v4);
    return !BLOCKED.check(plain, 'ipv6');
  }
  return false;
}

function allowPrivate() {
  return getConfig().allowPrivateDestinations;
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net, tls, http and https: resolves like dns.lookup and refuses the connection when any address
 * of the name is not public. Sockets call it for the address they are about to connect to, so it is the check
 * that DNS rebinding cannot get around.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions | number | LookupCallback, callback?: LookupCallback) {
  const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
  const opts: dns.LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
  dns.lookup(hostname, { ...opts, all: true }, (err, addresses) => {
    if (err) return cb(err, opts.all ? [] : '', undefined);
    const list = addresses as LookupAddress[];
    if (!allowPrivate() && (list.length === 0 || list.some((a) => !isPublicAddress(a.address)))) {
      const refused = Object.assign(new OutboundRefusedError(hostname), { errno: undefined }) as OutboundRefusedError & NodeJS.ErrnoException;
      return cb(refused, opts.all ? [] : '', undefined);
    }
    if (opts.all) return cb(null, list);
    const first = list[0];
    cb(null, first.address, first.family);
  });
}

/**
 * Sockets skip `lookup` for an IP literal: this is the same check for a host that is already an address.
 * Throws OutboundRefusedError; names pass (the lookup judges them).
 */
export function assertAllowedLiteral(host: string) {
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIP(bare) && !allowPrivate() && !isPublicAddress(bare)) throw new OutboundRefusedError(bare);
}

/**
 * Checks a host an account is about to save: refused when it names, or resolves to, an address that is not
 * public. A name that does not resolve (yet) is let through; the connection will fail on its own.
 */
export async function isRefusedHost(host: string): Promise<boolean> {
  if (allowPrivate()) return false;
  const bare = host.replace(/^\[|\]$/g, '');
  try {
    const addresses = await dns.promises.lookup(bare, { all: true });
    return addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address));
  } catch {
    return false;
  }
}

/** The same check for a URL; a URL that is not http(s) is refused. */
export async function isRefusedUrl(url: string): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return true;
  return isRefusedHost(parsed.hostname);
}

/**
 * Opens a TCP connection through the guard and hands the connected socket to nodemailer (`getSocket`), which
 * upgrades it to TLS itself when the transport is `secure`.
 */
export function guardedSocket(opts: { host: string; port: number; timeoutMs: number }) {
  return new Promise<net.Socket>((resolve, reject) => {
    assertAllowedLiteral(opts.host);
    const socket = net.connect({ host: opts.host, port: opts.port, lookup: guardedLookup as never });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('Connection timed out'));
    }, opts.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** nodemailer's `getSocket` option: every SMTP connection of an account-supplied server goes through the guard. */
export function nodemailerGetSocket(timeoutMs: number) {
  return (options: { host?: string; port?: number }, callback: (err: Error | null, socketOptions?: { connection: net.Socket }) => void) => {
    guardedSocket({ host: options.host ?? '', port: options.port ?? 25, timeoutMs }).then(
      (connection) => callback(null, { connection }),
      (err: Error) => callback(err),
    );
  };
}

export type GuardedResponse = { status: number; ok: boolean; text: string; headers?: http.IncomingHttpHeaders };

/**
 * An HTTP(S) request to an account-supplied URL: the guard's lookup on the socket, no redirect followed (a 3xx
 * is an answer like any other, never a new destination), the body read up to `maxBytes`.
 */
export function guardedRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs: number; maxBytes?: number },
): Promise<GuardedResponse> {
  return new Promise((resolve, reject) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return reject(new Error('Invalid URL'));
    }
    const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
    if (!client) return reject(new OutboundRefusedError(parsed.hostname));
    try {
      assertAllowedLiteral(parsed.hostname);
    } catch (err) {
      return reject(err);
    }
    const max = opts.maxBytes ?? 64 * 1024;
    const req = client.request(
      parsed,
      { method: opts.method ?? 'GET', headers: opts.headers, lookup: guardedLookup as never, agent: false, timeout: opts.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= max) chunks.push(c);
          else res.destroy();
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('Request timed out')));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * The words an account sees about a failed outgoing connection: refused (the guard) or failed (anything else).
 * The detail goes to the log only, so that error messages cannot be used to map internal ports.
 */
export function outboundFailure(what: string, err: unknown, context: Record<string, unknown> = {}) {
  if (err instanceof OutboundRefusedError || (err as { cause?: unknown })?.cause instanceof OutboundRefusedError) {
    return `${what} was refused: its address is not a public internet address`;
  }
  getLogger().warn({ ...context, err: err instanceof Error ? err.message : String(err) }, `${what} failed`);
  return `${what} failed`;
}
