import nodemailer from 'nodemailer';
import { desc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { metrics } from '../../utils/metrics.server';
import { singleton } from '../../utils/singleton.server';

export type OutgoingEmail = {
  accountId?: number | null;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Files sent along over SMTP (a meeting's .ics invitation); the development mailbox keeps the text only. */
  attachments?: { filename: string; content: string; contentType: string }[];
};

function transport() {
  const { smtpUrl } = getConfig();
  if (!smtpUrl) return undefined;
  return singleton('smtp-transport', () => nodemailer.createTransport(smtpUrl));
}

/**
 * Sends an email through SMTP_URL; without it, the mail is only stored and shown on the development
 * mailbox page (so that sign-up works on a fresh machine). Every mail is recorded either way.
 */
export async function sendEmail({ attachments, ...mail }: OutgoingEmail) {
  const smtp = transport();
  const db = getDb();
  if (!smtp) {
    const [row] = await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'mailbox', status: 'stored' })
      .returning({ id: schema.outboundEmails.id });
    metrics().mailOut.inc({ kind: 'system', result: 'stored' });
    return { id: row.id, delivered: false };
  }
  try {
    await smtp.sendMail({ from: getConfig().mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, attachments });
    const [row] = await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'smtp', status: 'sent' })
      .returning({ id: schema.outboundEmails.id });
    metrics().mailOut.inc({ kind: 'system', result: 'sent' });
    return { id: row.id, delivered: true };
  } catch (err) {
    metrics().mailOut.inc({ kind: 'system', result: 'failed' });
    getLogger().error({ err: (err as Error).message, to: mail.to }, 'email delivery failed');
    await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'smtp', status: 'failed', error: (err as Error).message });
    throw err;
  }
}

/**
 * The development mailbox shows every sign-up code and reset link to whoever opens it: only without SMTP_URL,
 * and in production only when PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION says so (ADR 007) — or for a local trial:
 * APP_HOST is a localhost name (nobody else reaches the accounts) and the request comes from this machine's own
 * socket (`peerAddress`, never a forwarded header), so `npm install && npm start` still lets its user sign up.
 */
export function isDevMailboxEnabled(opts: { peerAddress?: string } = {}) {
  const config = getConfig();
  if (config.smtpUrl) return false;
  if (config.nodeEnv !== 'production' || config.unsafeDevMailboxInProduction) return true;
  return isLocalTrial() && isLoopbackAddress(opts.peerAddress);
}

/** An installation whose APP_HOST is `localhost` (any port): accounts live on *.localhost, on this machine only. */
export function isLocalTrial() {
  return /^localhost(?::\d+)?$/.test(getConfig().appHost);
}

function isLoopbackAddress(address: string | undefined) {
  if (!address) return false;
  const plain = address.replace(/^::ffff:/i, '');
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

export async function listDevMailbox(opts: { to?: string; limit?: number }) {
  const db = getDb();
  const query = db
    .select()
    .from(schema.outboundEmails)
    .where(opts.to ? eq(schema.outboundEmails.to, opts.to.toLowerCase()) : undefined)
    .orderBy(desc(schema.outboundEmails.id))
    .limit(opts.limit ?? 50);
  return query;
}

export type BulkEmail = OutgoingEmail & { from: string; messageId: string; headers: Record<string, string> };

function bulkTransport() {
  const { smtpUrl } = getConfig();
  if (!smtpUrl) return undefined;
  // Pooled: a survey send reuses a few SMTP connections instead of one handshake per recipient.
  return singleton('smtp-bulk-transport', () => {
    const url = new URL(smtpUrl);
    if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
    if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', String(Number(process.env.PARLEY_BULK_SMTP_CONNECTIONS ?? 8)));
    if (!url.searchParams.has('maxMessages')) url.searchParams.set('maxMessages', 'Infinity');
    return nodemailer.createTransport(url.toString());
  });
}

/**
 * One mail of a bulk send (email surveys): its own sender, Message-ID and headers (List-Unsubscribe). The recipient
 * row is its record, so nothing is written to outbound_emails — except without SMTP_URL, where the development
 * mailbox is the only way to see it.
 */
export async function sendBulkEmail(mail: BulkEmail) {
  const smtp = bulkTransport();
  if (!smtp) {
    await getDb()
      .insert(schema.outboundEmails)
      .values({ accountId: mail.accountId ?? null, to: mail.to.toLowerCase(), subject: mail.subject, text: mail.text, html: mail.html ?? null, transport: 'mailbox', status: 'stored' });
    metrics().mailOut.inc({ kind: 'bulk', result: 'stored' });
    return { delivered: false };
  }
  try {
    await smtp.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.messageId, headers: mail.headers });
  } catch (err) {
    metrics().mailOut.inc({ kind: 'bulk', result: 'failed' });
    throw err;
  }
  metrics().mailOut.inc({ kind: 'bulk', result: 'sent' });
  return { delivered: true };
}
