import { createRequire } from 'node:module';
import type net from 'node:net';
import { ImapFlow } from 'imapflow';

/**
 * Hoodiecrow (hoodiecrow-imap, by imapflow's author) is a real IMAP4rev1 server written in JavaScript, with the
 * IDLE extension, that keeps its mailbox in memory: a real socket and real protocol, nothing to install. Login
 * `testuser` / `testpass`.
 */
type Hoodiecrow = { listen: (port: number, host: string, cb: () => void) => void; close: (cb: () => void) => void; server: net.Server };
const hoodiecrow = createRequire(import.meta.url)('hoodiecrow-imap') as (opts: object) => Hoodiecrow;

export type ImapServer = { port: number; close: () => Promise<void>; connections: () => number };

/** A server on a loopback port (or `port`), with `messages` already in its INBOX. */
export async function startImapServer(opts: { port?: number; messages?: string[] } = {}): Promise<ImapServer> {
  const server = hoodiecrow({
    plugins: ['IDLE', 'ENABLE', 'UIDPLUS', 'ID', 'UNSELECT'],
    storage: { INBOX: { messages: (opts.messages ?? []).map((raw) => ({ raw, flags: [] })) }, '': {} },
  });
  const sockets = new Set<net.Socket>();
  server.server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as net.AddressInfo).port,
    /** The client connections open now. */
    connections: () => sockets.size,
    /** Goes away as a crashed server would: listening stops and every connection drops. */
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** Puts a message into the server's INBOX, as a mail arriving there would. */
export async function appendMail(port: number, raw: string | Buffer) {
  const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user: 'testuser', pass: 'testpass' }, logger: false });
  await client.connect();
  await client.append('INBOX', raw);
  await client.logout();
}
