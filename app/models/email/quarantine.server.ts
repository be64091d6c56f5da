import { and, desc, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getLogger } from '../../utils/logger.server';
import { getInbox, type Inbox } from '../inbox/inboxes.server';

/**
 * Mail that could not be stored (ADR 024): kept raw with the reason, listed on its inbox's settings page,
 * retryable. Quarantining is what lets the channel move on: the IMAP position advances past the mail, inbound
 * SMTP accepts it (250) so the sending server stops retrying, the HTTP endpoint answers 202.
 */

const TEMPORARY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code;
}

/**
 * A failure that another try later may not meet: the database unreachable, shutting down, out of resources, or
 * a serialization conflict (SQLSTATE classes 08, 40, 53, 57, 58). Anything else is about this mail.
 */
export function isTemporaryFailure(err: unknown) {
  const code = pgCode(err);
  if (!code) return false;
  if (TEMPORARY_CODES.has(code)) return true;
  return /^(08|40|53|57|58)[0-9A-Z]{3}$/.test(code);
}

/**
 * The reason in the database's own words (with its SQLSTATE), or the parser's: what the log and the admin see.
 * PostgreSQL's messages name the problem (`invalid byte sequence for encoding "UTF8": 0x00`), not the values;
 * the detail, which may quote a value, is left out.
 */
export function describeStoreFailure(err: unknown) {
  const e = (err ?? {}) as { message?: unknown; cause?: { message?: unknown } };
  const code = pgCode(err);
  const cause = e.cause && typeof e.cause.message === 'string' ? e.cause.message : undefined;
  // drizzle wraps the driver's error as "Failed query: <sql>\nparams: <values>": the values are the customer's.
  const message = cause ?? (typeof e.message === 'string' ? e.message : String(err));
  const plain = message.startsWith('Failed query:') ? 'The database refused the message' : message;
  return `${code ? `${code}: ` : ''}${plain.replace(/\s+/g, ' ').slice(0, 300)}`;
}

export async function quarantineEmail(opts: {
  accountId: number;
  inboxId: number;
  via: 'smtp' | 'imap' | 'http';
  reason: string;
  raw: Buffer;
  recipients: string[];
  envelopeFrom: string | null;
}) {
  const [row] = await getDb()
    .insert(schema.quarantinedEmails)
    .values({
      accountId: opts.accountId,
      inboxId: opts.inboxId,
      via: opts.via,
      reason: opts.reason,
      raw: opts.raw,
      recipients: opts.recipients.map((r) => r.replace(/\u0000/g, '')),
      envelopeFrom: opts.envelopeFrom?.replace(/\u0000/g, '') ?? null,
    })
    .returning({ id: schema.quarantinedEmails.id });
  getLogger().warn({ quarantineId: row.id, inboxId: opts.inboxId, via: opts.via, reason: opts.reason }, 'email quarantined');
  return row;
}

/** The inbox's quarantined mail, newest first, without the raw bytes. */
export async function listQuarantinedEmails(opts: { accountId: number; inboxId: number }) {
  return getDb()
    .select({
      id: schema.quarantinedEmails.id,
      via: schema.quarantinedEmails.via,
      reason: schema.quarantinedEmails.reason,
      size: sql<number>`octet_length(${schema.quarantinedEmails.raw})`.mapWith(Number),
      attempts: schema.quarantinedEmails.attempts,
      createdAt: schema.quarantinedEmails.createdAt,
      lastAttemptAt: schema.quarantinedEmails.lastAttemptAt,
    })
    .from(schema.quarantinedEmails)
    .where(and(eq(schema.quarantinedEmails.accountId, opts.accountId), eq(schema.quarantinedEmails.inboxId, opts.inboxId)))
    .orderBy(desc(schema.quarantinedEmails.id));
}

export async function getQuarantinedEmail(opts: { accountId: number; inboxId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.quarantinedEmails)
    .where(
      and(eq(schema.quarantinedEmails.accountId, opts.accountId), eq(schema.quarantinedEmails.inboxId, opts.inboxId), eq(schema.quarantinedEmails.id, opts.id)),
    );
  return row;
}

export async function deleteQuarantinedEmail(opts: { accountId: number; inboxId: number; id: number }) {
  const [row] = await getDb()
    .delete(schema.quarantinedEmails)
    .where(
      and(eq(schema.quarantinedEmails.accountId, opts.accountId), eq(schema.quarantinedEmails.inboxId, opts.inboxId), eq(schema.quarantinedEmails.id, opts.id)),
    )
    .returning({ id: schema.quarantinedEmails.id });
  return row;
}

/**
 * Tries a quarantined mail again (after an upgrade that fixed the cause, say): stored, it leaves the quarantine;
 * refused again, it stays with the new reason. Undefined when there is no such mail in the account's inbox.
 */
export async function retryQuarantinedEmail(opts: { accountId: number; inboxId: number; id: number }) {
  const row = await getQuarantinedEmail(opts);
  const inbox = row ? await getInbox({ accountId: opts.accountId, id: opts.inboxId }) : undefined;
  if (!row || !inbox) return undefined;
  const { storeEmail } = await import('./inbound.server');
  try {
    const result = await storeEmail({ inbox: inbox as Inbox, raw: row.raw, via: row.via, recipients: row.recipients, envelopeFrom: row.envelopeFrom });
    await deleteQuarantinedEmail(opts);
    return { ok: true as const, result };
  } catch (err) {
    const reason = describeStoreFailure(err);
    await getDb()
      .update(schema.quarantinedEmails)
      .set({ reason, attempts: sql`${schema.quarantinedEmails.attempts} + 1`, lastAttemptAt: new Date() })
      .where(and(eq(schema.quarantinedEmails.accountId, opts.accountId), eq(schema.quarantinedEmails.id, opts.id)));
    return { ok: false as const, reason };
  }
}

/**
 * A quarantined mail as a download, byte for byte as it arrived (message/rfc822, to open in a mail program or
 * hand to a developer). Never rendered by the browser as a page of this origin: attachment, sandboxed (signed-in pages are
 * never cached: server/app.ts).
 */
export function quarantinedEmailResponse(row: { id: number; raw: Buffer }) {
  return new Response(new Uint8Array(row.raw), {
    headers: {
      'Content-Type': 'message/rfc822',
      'Content-Length': String(row.raw.byteLength),
      'Content-Disposition': `attachment; filename="quarantined-${row.id}.eml"`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
    },
  });
}
