import type { Socket } from 'node:net';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import shared from 'nodemailer/lib/shared/index.js';
import XOAuth2 from 'nodemailer/lib/xoauth2/index.js';
import { singleton } from '../../utils/singleton.server';

/**
 * The bulk path's SMTP connections (ADR 084 addenda): `size` connections kept open per process and server, each
 * carrying one mail at a time, any number in a row. They exist for one thing nodemailer's pool cannot do: let the caller
 * write a mail's terminating "<CRLF>.<CRLF>" itself, synchronously, at the moment it chooses. The bulk loop writes the
 * end and, in the same turn of the event loop, its sent mark's statement (addendum 3), so a SIGKILL can fall between
 * the two only for the microseconds between two write(2) calls. nodemailer's SMTPConnection opens the connection
 * (greeting, EHLO, STARTTLS, AUTH); the mail transactions (MAIL, RCPT, DATA, dot-stuffing, the end) are done here.
 */

type Options = SMTPTransport.Options;
type Lane = { conn: SMTPConnection | null; replies?: Replies };
type Reply = { code: number; text: string };

/**
 * Writes the message's end ("<CRLF>.<CRLF>") on the socket, synchronously: `true` when the bytes are in the kernel on
 * return (what a SIGKILL can no longer stop: the kernel delivers a dead process's sent bytes), otherwise a promise of
 * that. Throws when the connection is gone.
 */
export type WriteEnd = () => true | Promise<void>;
/**
 * The caller's hold on a message's end: called once the server has accepted the envelope, answered DATA and taken every
 * byte but the end (all of them in the kernel); it calls `writeEnd` when it chooses and resolves after. If it rejects,
 * or resolves without writing the end, the transaction is abandoned and the connection closed: no mail.
 */
export type Hold = (writeEnd: WriteEnd) => Promise<void>;

export class SmtpReplyError extends Error {
  constructor(
    readonly command: string,
    readonly responseCode: number,
    readonly response: string,
  ) {
    super(`${command}: ${response}`);
  }
}

/** The replies of one connection, in order (multi-line replies joined), read from the socket once nodemailer is done. */
class Replies {
  private buf = '';
  private lines: string[] = [];
  private ready: Reply[] = [];
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private failed: Error | null = null;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.take(chunk.toString('latin1')));
    socket.once('close', () => this.fail(new Error('SMTP connection closed')));
    socket.on('error', (err: Error) => this.fail(err));
  }

  next(): Promise<Reply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private take(text: string) {
    this.buf += text;
    for (let nl = this.buf.indexOf('\r\n'); nl >= 0; nl = this.buf.indexOf('\r\n')) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 2);
      this.lines.push(line);
      if (line.charAt(3) === '-') continue;
      const reply = { code: Number(line.slice(0, 3)) || 0, text: this.lines.join('\n') };
      this.lines = [];
      const w = this.waiting.shift();
      if (w) w.resolve(reply);
      else this.ready.push(reply);
    }
  }

  private fail(err: Error) {
    this.failed ??= err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }
}

/** RFC 5321 §4.5.2: a line of the message that starts with "." gets one more. */
function dotStuffed(bytes: Buffer) {
  if (bytes[0] !== 0x2e && bytes.indexOf('\n.') < 0) return bytes;
  return Buffer.from(bytes.toString('latin1').replace(/(^|\n)\./g, '$1..'), 'latin1');
}

export class BulkSmtp {
  private idle: Lane[] = [];
  private waiting: ((lane: Lane) => void)[] = [];
  private created = 0;

  constructor(
    private readonly options: Options,
    private readonly size: number,
  ) {}

  /**
   * Sends prepared bytes. With `hold`, the message's end is written only when the hold writes it (ADR 084, addendum 3):
   * the bulk loop writes it, then its sent mark's statement, in one turn of the event loop.
   */
  async send(envelope: { from: string; to: string[] }, bytes: Buffer, hold?: Hold): Promise<void> {
    const lane = await this.acquire();
    try {
      const conn = lane.conn ?? (lane.conn = await this.connect(lane));
      await this.transaction(conn, lane.replies!, envelope, bytes, hold);
    } catch (err) {
      // Whatever state the session is in (a refused recipient, a half-sent message), the next mail starts afresh.
      lane.conn?.close();
      lane.conn = null;
      lane.replies = undefined;
      throw err;
    } finally {
      this.release(lane);
    }
  }

  close() {
    for (const lane of this.idle) lane.conn?.quit();
    this.idle = [];
  }

  /**
   * One mail on a connection nodemailer opened (greeting, EHLO, STARTTLS, AUTH): the envelope and DATA pipelined when
   * the server offers PIPELINING (RFC 2920), then the dot-stuffed message, then — held or not — its end.
   */
  private async transaction(conn: SMTPConnection, replies: Replies, envelope: { from: string; to: string[] }, bytes: Buffer, hold?: Hold) {
    const socket = (conn as unknown as { _socket: Socket })._socket;
    const write = (data: string | Buffer) =>
      new Promise<void>((resolve, reject) => {
        if (!socket.writable) return reject(new Error('SMTP connection closed'));
        socket.write(data, (err) => (err ? reject(err) : resolve()));
      });
    const commands = [`MAIL FROM:<${envelope.from}>`, ...envelope.to.map((to) => `RCPT TO:<${to}>`), 'DATA'];
    const pipelining = (conn as unknown as { _supportedExtensions: string[] })._supportedExtensions.includes('PIPELINING');
    if (pipelining) void write(commands.map((c) => `${c}\r\n`).join('')).catch(() => {});
    for (const command of commands) {
      if (!pipelining) void write(`${command}\r\n`).catch(() => {});
      const reply = await replies.next();
      const verb = command === 'DATA' ? 'DATA' : command.startsWith('MAIL') ? 'MAIL FROM' : 'RCPT TO';
      if (verb === 'DATA' ? reply.code !== 354 : reply.code < 200 || reply.code > 299) throw new SmtpReplyError(verb, reply.code, reply.text);
    }
    const body = dotStuffed(bytes);
    const end = body.length >= 2 && body[body.length - 2] === 0x0d && body[body.length - 1] === 0x0a ? '.\r\n' : '\r\n.\r\n';
    // Every byte but the end, in the kernel before the hold is asked.
    await write(body);
    let ended = false;
    const writeEnd: WriteEnd = () => {
      if (ended) return true;
      if (!socket.writable) throw new Error('SMTP connection closed before the message ended');
      ended = true;
      socket.write(end);
      return socket.writableLength === 0 ? true : write('');
    };
    if (hold) await hold(writeEnd);
    else await writeEnd();
    if (!ended) throw new Error('the message was not ended');
    const reply = await replies.next();
    if (reply.code < 200 || reply.code > 299) throw new SmtpReplyError('DATA', reply.code, reply.text);
  }

  private acquire(): Promise<Lane> {
    const lane = this.idle.pop();
    if (lane) return Promise.resolve(lane);
    if (this.created < this.size) {
      this.created++;
      return Promise.resolve({ conn: null });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(lane: Lane) {
    const next = this.waiting.shift();
    if (next) next(lane);
    else this.idle.push(lane);
  }

  private connect(lane: Lane): Promise<SMTPConnection> {
    const open = (options: Options) =>
      new Promise<SMTPConnection>((resolve, reject) => {
        const conn = new SMTPConnection(options as SMTPConnection.Options);
        let settled = false;
        const fail = (err: Error) => {
          if (lane.conn === conn) lane.conn = null;
          if (!settled) {
            settled = true;
            reject(err);
          }
        };
        // The mail transactions read the socket themselves (below); nodemailer keeps the handshake.
        const ready = () => {
          const internals = conn as unknown as { _socket: Socket; _onSocketData: (chunk: Buffer) => void };
          internals._socket.removeListener('data', internals._onSocketData);
          lane.replies = new Replies(internals._socket);
          settled = true;
          resolve(conn);
        };
        // Errors after the handshake (an idle connection the server dropped) only retire the connection.
        conn.on('error', fail);
        conn.on('end', () => fail(new Error('SMTP connection closed')));
        conn.connect(() => {
          // Each mail is a few small writes (envelope, message, then the held end) answered by short replies: with
          // Nagle's algorithm on, a write waits for the server's delayed ACK (~40 ms on Linux), which capped a lane at
          // ~22 mails/s whatever the server's speed. Off, a lane is bounded by round trips and the database.
          (conn as unknown as { _socket?: { setNoDelay?: (on: boolean) => void } })._socket?.setNoDelay?.(true);
          const auth = options.auth as { user?: string; pass?: string; type?: string; provisionCallback?: unknown } | undefined;
          if (!auth?.user || !(conn as unknown as { allowsAuth: boolean }).allowsAuth) return ready();
          // An inbox connected over OAuth (ADR 158) logs in with XOAUTH2, its token from the provision callback.
          const login =
            auth.type === 'OAuth2'
              ? { user: auth.user, method: 'XOAUTH2', oauth2: new XOAuth2({ user: auth.user, provisionCallback: auth.provisionCallback as never }) }
              : { user: auth.user, pass: auth.pass ?? '' };
          conn.login(login as never, (err) => {
            if (err) {
              conn.close();
              return fail(err);
            }
            ready();
          });
        });
      });
    const { getSocket } = this.options;
    if (!getSocket) return open(this.options);
    // The outbound guard (ADR 021) hands over the socket, as it does for nodemailer's own transports.
    return new Promise((resolve, reject) =>
      getSocket(this.options, (err, socket: object | undefined) => (err ? reject(err) : open({ ...this.options, ...(socket ?? {}) } as Options).then(resolve, reject))),
    );
  }
}

/** One set of bulk connections per process and server (an SMTP URL, or an inbox's own server options). */
export function bulkSmtp(server: string | Options, size: number) {
  const options: Options = typeof server === 'string' ? (shared.parseConnectionUrl(server) as Options) : server;
  return singleton(`bulk-smtp:${size}:${JSON.stringify(options)}`, () => new BulkSmtp(options, size));
}
