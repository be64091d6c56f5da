import nodemailer from 'nodemailer';
import { desc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { singleton } from '../../utils/singleton.server';

export type OutgoingEmail = { accountId?: number | null; to: string; subject: string; text: string; html?: string };

function transport() {
  const { smtpUrl } = getConfig();
  if (!smtpUrl) return undefined;
  return singleton('smtp-transport', () => nodemailer.createTransport(smtpUrl));
}

/**
 * Sends an email through SMTP_URL; without it, the mail is only stored and shown on the development
 * mailbox page (so that sign-up works on a fresh machine). Every mail is recorded either way.
 */
export async function sendEmail(mail: OutgoingEmail) {
  const smtp = transport();
  const db = getDb();
  if (!smtp) {
    const [row] = await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'mailbox', status: 'stored' })
      .returning({ id: schema.outboundEmails.id });
    return { id: row.id, delivered: false };
  }
  try {
    await smtp.sendMail({ from: getConfig().mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    const [row] = await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'smtp', status: 'sent' })
      .returning({ id: schema.outboundEmails.id });
    return { id: row.id, delivered: true };
  } catch (err) {
    getLogger().error({ err: (err as Error).message, to: mail.to }, 'email delivery failed');
    await db
      .insert(schema.outboundEmails)
      .values({ ...mail, to: mail.to.toLowerCase(), accountId: mail.accountId ?? null, html: mail.html ?? null, transport: 'smtp', status: 'failed', error: (err as Error).message });
    throw err;
  }
}

/**
 * The development mailbox shows every sign-up code and reset link to whoever opens it: only without SMTP_URL,
 * and in production only when PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION says so (ADR 007).
 */
export function isDevMailboxEnabled() {
  const config = getConfig();
  if (config.smtpUrl) return false;
  return config.nodeEnv !== 'production' || config.unsafeDevMailboxInProduction;
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
