import { Readable } from 'node:stream';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import shared from 'nodemailer/lib/shared/index.js';
import { singleton } from '../../utils/singleton.server';

/**
 * The bulk path's SMTP connections (ADR 084 addendum): `size` connections kept open per process and server, each
 * carrying one mail at a time, any number in a row. It exists for one thing nodemailer's pool cannot do: hold a
 * mail's terminating "<CRLF>.<CRLF>" until the caller says so. The bulk loop commits the recipient's `sent` mark
 * while the server holds the whole message except its end, then lets the end go: a process killed before the commit
 * never finished the DATA, so the server drops the message and the recipient is sent again once; killed after it,
 * the mail is already recorded. (nodemailer's SMTPConnection does the protocol: EHLO, STARTTLS, AUTH, dot-stuffing.)
 */

type Options = SMTPTransport.Options;
type Lane = { conn: SMTPConnection | null };

export class BulkSmtp {
  private idle: Lane[] = [];
  private waiting: ((lane: Lane) => void)[] = [];
  private created = 0;

  constructor(
    private readonly options: Options,
    private readonly size: number,
  ) {}

  /**
   * Sends prepared bytes. With `beforeEnd`, the message's end is written only once it resolves (after the server
   * accepted the envelope and took every byte of the message); if it rejects, the transaction is abandoned and the
   * connection closed, so the server discards the message.
   */
  async send(envelope: { from: string; to: string[] }, bytes: Buffer, beforeEnd?: () => Promise<void>): Promise<void> {
    const lane = await this.acquire();
    try {
      const conn = lane.conn ?? (lane.conn = await this.connect(lane));
      await new Promise<void>((resolve, reject) => {
        // A socket that fails mid-transaction emits `error` (or just ends) without calling the send's callback.
        const lost = (err?: Error) => reject(err ?? new Error('SMTP connection closed'));
        conn.once('error', lost);
        conn.once('end', lost);
        const message = beforeEnd ? heldEnd(bytes, beforeEnd) : bytes;
        conn.send(envelope, message as never, (err) => {
          conn.off('error', lost);
          conn.off('end', lost);
          if (err && 'abandon' in message) message.abandon();
          if (err) reject(err);
          else resolve();
        });
      });
    } catch (err) {
      // Whatever state the session is in (a refused recipient, a half-sent message), the next mail starts afresh.
      lane.conn?.close();
      lane.conn = null;
      throw err;
    } finally {
      this.release(lane);
    }
  }

  close() {
    for (const lane of this.idle) lane.conn?.quit();
    this.idle = [];
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
        // Errors after the handshake (an idle connection the server dropped) only retire the connection.
        conn.on('error', fail);
        conn.on('end', () => fail(new Error('SMTP connection closed')));
        conn.connect(() => {
          // Each mail is a few small writes (envelope, message, then the held end) answered by short replies: with
          // Nagle's algorithm on, a write waits for the server's delayed ACK (~40 ms on Linux), which capped a lane at
          // ~22 mails/s whatever the server's speed. Off, a lane is bounded by round trips and the database.
          (conn as unknown as { _socket?: { setNoDelay?: (on: boolean) => void } })._socket?.setNoDelay?.(true);
          const auth = options.auth as { user?: string; pass?: string } | undefined;
          if (!auth?.user || !(conn as unknown as { allowsAuth: boolean }).allowsAuth) {
            settled = true;
            return resolve(conn);
          }
          conn.login({ user: auth.user, pass: auth.pass ?? '' } as never, (err) => {
            if (err) {
              conn.close();
              return fail(err);
            }
            settled = true;
            resolve(conn);
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

/**
 * The message, whose end waits for `beforeEnd`: asked for only after the server took every byte before it. nodemailer
 * also drains the message when the envelope was refused (it calls back at once, in the same turn): that abandons it,
 * and `beforeEnd`, a turn later, is never called for a message the server will not take.
 */
function heldEnd(bytes: Buffer, beforeEnd: () => Promise<void>) {
  let step = 0;
  const stream = new Readable({
    read() {
      if (step === 0) {
        step = 1;
        this.push(bytes);
      } else if (step === 1) {
        step = 2;
        setImmediate(() => {
          if (abandoned) return this.push(null);
          beforeEnd().then(
            () => this.push(null),
            (err: Error) => this.destroy(err),
          );
        });
      }
    },
  });
  let abandoned = false;
  return Object.assign(stream, { abandon: () => (abandoned = true) });
}

/** One set of bulk connections per process and server (an SMTP URL, or an inbox's own server options). */
export function bulkSmtp(server: string | Options, size: number) {
  const options: Options = typeof server === 'string' ? (shared.parseConnectionUrl(server) as Options) : server;
  return singleton(`bulk-smtp:${size}:${JSON.stringify(options)}`, () => new BulkSmtp(options, size));
}
