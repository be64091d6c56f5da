import crypto from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { OfferedCertificate } from '../../../db/schema/channels';
import type { EmailInboxSettings, MailServerSettings } from '../../../db/schema/inbox';
import { assertAllowedLiteral, guardedLookup, nodemailerGetSocket, OutboundRefusedError } from '../../utils/outbound-guard.server';

/**
 * The one place where connections to an inbox's own IMAP and SMTP servers are described (ADR 025): TLS as the
 * admin chose it (TLS from the first byte, STARTTLS, or none: then no upgrade is attempted), a certificate
 * pinned for this inbox only, no authentication for a relay that takes none. Anything that opens such a
 * connection (the IMAP manager, outbound mail, the connection test on save) builds its options here; a check
 * of the destination (SSRF guard) belongs here too.
 */

export type ImapSettings = NonNullable<EmailInboxSettings['imap']>;
export type SmtpSettings = NonNullable<EmailInboxSettings['smtp']>;

/** How long a connection test on save may take before it says the server did not answer. */
const TEST_TIMEOUT_MS = 10_000;

/** SHA-256 fingerprint as people compare it: upper-case hex pairs separated by colons. */
export function certificateFingerprint(cert: { raw: Buffer }) {
  return crypto
    .createHash('sha256')
    .update(cert.raw)
    .digest('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:');
}

export function normaliseFingerprint(value: string) {
  const hex = value.replace(/[^0-9a-f]/gi, '').toUpperCase();
  return hex.length === 64 ? hex.replace(/(..)(?!$)/g, '$1:') : null;
}

/**
 * TLS options for one inbox's server. Verification is never turned off: without a pin the system's CAs and the
 * host name decide; with a pin the pinned certificate is the only trust anchor (self-signed, or a private CA's
 * leaf, hence allowPartialTrustChain) and its fingerprint, not the host name, identifies the server.
 */
export function mailTlsOptions(server: Pick<MailServerSettings, 'host' | 'pin'>): tls.ConnectionOptions {
  const pin = server.pin;
  if (!pin) return { rejectUnauthorized: true };
  return {
    rejectUnauthorized: true,
    ca: [pin.pem],
    allowPartialTrustChain: true,
    checkServerIdentity: (_host, cert) =>
      certificateFingerprint(cert) === pin.fingerprint ? undefined : Object.assign(new Error('The certificate is not the one pinned for this inbox'), { code: 'CERT_PIN_MISMATCH' }),
  } as tls.ConnectionOptions;
}

/**
 * Where an XOAUTH2 login gets its bearer token (ADR 158): the inbox's current access token, refreshed when it is about
 * to lapse (`renew`: the server refused the last one). Built by oauth-mail.server.ts, which knows the database.
 */
export type AccessTokenSource = (renew: boolean) => Promise<string>;

/** ImapFlow options for an inbox's mailbox. Nothing logged contains the password (imapflow's logger is off). */
export function imapConnectionOptions(imap: ImapSettings, opts: { timeoutMs?: number; accessToken?: string } = {}): ImapFlowOptions {
  return {
    host: imap.host,
    port: imap.port,
    secure: imap.secure,
    // 'none' never upgrades; 'starttls' requires the upgrade; rows saved before the choice existed upgrade when offered.
    doSTARTTLS: imap.secure ? undefined : imap.tls === 'none' ? false : imap.tls === 'starttls' ? true : undefined,
    // The outbound guard (ADR 021) resolves the host on the socket itself: imapflow passes `tls` to
    // net.connect and tls.connect alike.
    tls: { ...mailTlsOptions(imap), lookup: guardedLookup as never },
    auth: imap.auth === 'xoauth2' ? { user: imap.user, accessToken: opts.accessToken ?? '' } : { user: imap.user, pass: imap.password },
    logger: false,
    // IDLE (how new mail is noticed at once) starts this soon after the last command.
    autoIdleDelay: 500,
    // The manager's heartbeat breaks IDLE every 20 s anyway; this only bounds an IDLE left alone.
    maxIdleTime: 4 * 60_000,
    connectionTimeout: opts.timeoutMs ?? 30_000,
    greetingTimeout: opts.timeoutMs ?? 30_000,
    // A connection silent this long is checked with a NOOP by imapflow, and dropped if that gets no answer.
    socketTimeout: 30_000,
  };
}

/** Nodemailer transport options for an inbox's own SMTP server. */
export function smtpConnectionOptions(smtp: SmtpSettings, opts: { timeoutMs?: number; accessToken?: AccessTokenSource } = {}): SMTPTransport.Options {
  const tokens = opts.accessToken;
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ignoreTLS: !smtp.secure && smtp.tls === 'none',
    requireTLS: !smtp.secure && smtp.tls === 'starttls',
    tls: mailTlsOptions(smtp),
    // A relay that does not authenticate (an internal MTA that trusts Parley's address) has no user name.
    // XOAUTH2 (ADR 158): nodemailer asks for a token at each login, and again with renew=true when the server refused one.
    auth:
      smtp.auth === 'xoauth2' && tokens
        ? {
            type: 'OAuth2',
            user: smtp.user,
            provisionCallback: (_user: string, renew: boolean, cb: (err: Error | null, token?: string) => void) =>
              void tokens(renew).then((t) => cb(null, t), (err: Error) => cb(err)),
          }
        : smtp.user
          ? { user: smtp.user, pass: smtp.password }
          : undefined,
    connectionTimeout: opts.timeoutMs ?? 20_000,
    greetingTimeout: opts.timeoutMs ?? 20_000,
    socketTimeout: 60_000,
    // The inbox's SMTP server is the account's choice: connected through the outbound guard (ADR 021).
    getSocket: nodemailerGetSocket(opts.timeoutMs ?? 20_000),
  } as SMTPTransport.Options;
}

export function imapClient(imap: ImapSettings, opts: { timeoutMs?: number; accessToken?: string } = {}) {
  return new GuardedImapFlow(imapConnectionOptions(imap, opts));
}

/** An address typed as the host never reaches `lookup`: it is judged before connecting (ADR 021). */
class GuardedImapFlow extends ImapFlow {
  private readonly guardedHost: string;
  constructor(options: ImapFlowOptions) {
    super(options);
    this.guardedHost = options.host ?? '';
  }
  override async connect() {
    assertAllowedLiteral(this.guardedHost);
    return super.connect();
  }
}

const CERT_ERRORS = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'CERT_PIN_MISMATCH',
]);

function errorCode(err: unknown) {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  return String(e?.code ?? e?.cause?.code ?? '');
}

/** Node's own texts for these, for clients (nodemailer) that wrap the TLS error under their own code. */
const CERT_MESSAGES: [RegExp, string][] = [
  [/self[- ]signed certificate|unable to (verify the first|get local issuer|get issuer) certificate/i, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  [/certificate has expired/i, 'CERT_HAS_EXPIRED'],
  [/certificate is not yet valid/i, 'CERT_NOT_YET_VALID'],
  [/Hostname\/IP does not match certificate/i, 'ERR_TLS_CERT_ALTNAME_INVALID'],
  [/not the one pinned for this inbox/i, 'CERT_PIN_MISMATCH'],
];

function certificateCode(err: unknown) {
  const code = errorCode(err);
  if (CERT_ERRORS.has(code)) return code;
  const message = String((err as { message?: unknown })?.message ?? '');
  return CERT_MESSAGES.find(([re]) => re.test(message))?.[1] ?? '';
}

export function isCertificateError(err: unknown) {
  return certificateCode(err) !== '';
}

/** What went wrong, in words an admin can act on (never the password, never a stack). */
export function plainConnectionError(err: unknown, what: 'mailbox' | 'mail server', opts: { serverText?: boolean } = {}) {
  const serverText = opts.serverText ?? true;
  const e = err as { code?: string; authenticationFailed?: boolean; responseCode?: number; responseText?: string; message?: string; response?: string };
  const code = certificateCode(err) || errorCode(err);
  // The OAuth grant's own failures (ADR 158) are already in Parley's words: the grant was revoked, the provider is down.
  if ((err as { mailOAuth?: unknown })?.mailOAuth === true) return String(e.message ?? '').slice(0, 300);
  if (err instanceof OutboundRefusedError || code === 'OUTBOUND_REFUSED') return 'The connection was refused: Parley only connects to public internet addresses';
  if (e?.authenticationFailed || code === 'EAUTH' || e?.responseCode === 535)
    return `The ${what} refused the user name or password${serverText && e.responseText ? ` (${e.responseText.slice(0, 200)})` : ''}`;
  if (code === 'CERT_PIN_MISMATCH') return "The server's certificate has changed: it is not the one trusted for this inbox";
  if (code === 'CERT_HAS_EXPIRED') return "The server's certificate has expired";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return "The server's certificate is for another host name";
  if (isCertificateError(err)) return "The server's certificate is not trusted (self-signed or from a private authority)";
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The host name could not be found';
  if (code === 'ECONNREFUSED') return 'The server refused the connection: check the host and port';
  if (['ETIMEDOUT', 'ETIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT', 'CONNECT_TIMEOUT'].includes(code) || /timed? ?out/i.test(e?.message ?? ''))
    return 'The server did not answer in time';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'The server closed the connection';
  if (/STARTTLS/i.test(e?.message ?? '')) return 'The server does not offer STARTTLS: choose TLS or None';
  if (/wrong version number|ssl3_get_record|packet length too long/i.test(e?.message ?? '')) return 'The server does not speak TLS on this port: check the security choice';
  if (!serverText) return `The connection to the ${what} failed`;
  const text = (e?.responseText || e?.response || e?.message || 'Unknown error').replace(/\s+/g, ' ').slice(0, 200);
  return `The ${what} said: ${text}`;
}

/**
 * What the server log may say about a failed mail-server connection (issue 12): a code and a reason in Parley's
 * own words. Never the server's text or a thrown message: servers echo the user name (some the whole command)
 * in their answers, and a thrown message can carry anything. The admin reads the server's words on the inbox's
 * page (channel health), which only they see. `errorCode`, not `code`: the logger redacts `code` (ADR 024).
 */
export function loggableConnectionError(err: unknown, what: 'mailbox' | 'mail server') {
  const e = err as { serverResponseCode?: unknown; name?: unknown };
  const serverCode = typeof e?.serverResponseCode === 'string' && /^[A-Z-]{1,40}$/.test(e.serverResponseCode) ? e.serverResponseCode : '';
  const code = certificateCode(err) || errorCode(err) || serverCode || (typeof e?.name === 'string' ? e.name : 'Error');
  return { errorCode: code.slice(0, 60), reason: plainConnectionError(err, what, { serverText: false }) };
}

function describeCertificate(cert: tls.DetailedPeerCertificate): OfferedCertificate {
  const name = (x: Record<string, unknown> | undefined) =>
    x
      ? Object.entries(x)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')
      : '';
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.raw
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END CERTIFICATE-----\n`;
  return { fingerprint: certificateFingerprint(cert), subject: name(cert.subject as never), issuer: name(cert.issuer as never), validTo: cert.valid_to, pem };
}

function readLine(socket: net.Socket, until: (line: string) => boolean, timeoutMs: number) {
  return new Promise<void>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => done(new Error('timed out')), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      const lines = buffer.split('\r\n');
      buffer = lines.pop() ?? '';
      if (lines.some(until)) done();
    };
    const onError = (err: Error) => done(err);
    const done = (err?: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    socket.on('data', onData);
    socket.on('error', onError);
  });
}

/**
 * The certificate a server presents, read without trusting it (the handshake only, no credentials sent), so that
 * the admin can see its fingerprint and choose to pin it. Speaks just enough IMAP or SMTP to reach STARTTLS.
 */
export async function probeCertificate(server: Pick<MailServerSettings, 'host' | 'port' | 'secure'>, protocol: 'imap' | 'smtp', timeoutMs = TEST_TIMEOUT_MS) {
  let plain: net.Socket | undefined;
  try {
    assertAllowedLiteral(server.host);
    if (!server.secure) {
      plain = net.connect({ host: server.host, port: server.port, lookup: guardedLookup as never });
      await new Promise<void>((resolve, reject) => {
        plain!.once('connect', resolve).once('error', reject);
        setTimeout(() => reject(new Error('timed out')), timeoutMs).unref();
      });
      if (protocol === 'imap') {
        await readLine(plain, (l) => l.startsWith('* '), timeoutMs);
        plain.write('p1 STARTTLS\r\n');
        await readLine(plain, (l) => l.startsWith('p1 '), timeoutMs);
      } else {
        await readLine(plain, (l) => /^220 /.test(l), timeoutMs);
        plain.write('EHLO parley.invalid\r\n');
        await readLine(plain, (l) => /^250 /.test(l), timeoutMs);
        plain.write('STARTTLS\r\n');
        await readLine(plain, (l) => /^220 /.test(l), timeoutMs);
      }
    }
    const secure = tls.connect({
      ...(plain ? { socket: plain } : { host: server.host, port: server.port, lookup: guardedLookup as never }),
      servername: net.isIP(server.host) ? undefined : server.host,
      // Reading the certificate to show it, not trusting the connection: nothing else is sent on it.
      rejectUnauthorized: false,
    });
    const cert = await new Promise<tls.DetailedPeerCertificate>((resolve, reject) => {
      secure.once('secureConnect', () => resolve(secure.getPeerCertificate(true))).once('error', reject);
      setTimeout(() => reject(new Error('timed out')), timeoutMs).unref();
    });
    secure.destroy();
    return cert?.raw ? describeCertificate(cert) : null;
  } catch {
    return null;
  } finally {
    plain?.destroy();
  }
}

export type ConnectionTest = { ok: true } | { ok: false; error: string; certificate: OfferedCertificate | null };

/** Logs in to the mailbox and opens it, as the IMAP manager will. */
export async function testImapConnection(imap: ImapSettings, opts: { accessToken?: string } = {}): Promise<ConnectionTest> {
  const client = imapClient(imap, { timeoutMs: TEST_TIMEOUT_MS, accessToken: opts.accessToken });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.mailboxOpen(imap.mailbox || 'INBOX', { readOnly: true });
    await client.logout().catch(() => {});
    return { ok: true };
  } catch (err) {
    client.close();
    return {
      ok: false,
      error: (err as { mailboxMissing?: boolean }).mailboxMissing ? `The mailbox "${imap.mailbox}" does not exist` : plainConnectionError(err, 'mailbox'),
      certificate: isCertificateError(err) ? await probeCertificate(imap, 'imap') : null,
    };
  }
}

/** Connects, upgrades as chosen and logs in (when a user is set), without sending anything. */
export async function testSmtpConnection(smtp: SmtpSettings, opts: { accessToken?: AccessTokenSource } = {}): Promise<ConnectionTest> {
  const transport = nodemailer.createTransport(smtpConnectionOptions(smtp, { timeoutMs: TEST_TIMEOUT_MS, accessToken: opts.accessToken }));
  try {
    await transport.verify();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: plainConnectionError(err, 'mail server'), certificate: isCertificateError(err) ? await probeCertificate(smtp, 'smtp') : null };
  } finally {
    transport.close();
  }
}
