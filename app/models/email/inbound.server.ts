import { assertAccountTakingWork } from '../accounts/suspension.server';
import { assertPlanFeature, EMAIL_CHANNEL_FEATURE } from '../plans/enforce.server';
import { isFeedbackReport, recordComplaint } from '../campaigns/complaints.server';
import { recordCampaignReply } from '../campaigns/recipients.server';
import crypto from 'node:crypto';
import { markSurveyBounces } from '../surveys/email-surveys.server';
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AddressObject, ParsedMail, SimpleParserOptions } from 'mailparser';
/** mailparser (libmime, iconv tables: ~15 MiB resident) loads with the first message parsed, not at start (ADR 129). */
const simpleParser = async (source: Buffer | string, options: SimpleParserOptions): Promise<ParsedMail> => (await import('mailparser')).simpleParser(source, options);
import { getDb, schema, type Tx } from '../../../db/client';
import type { EmailHeaders } from '../../../db/schema/inbox';
import { metrics } from '../../utils/metrics.server';
import { getLogger } from '../../utils/logger.server';
import { markDelivery } from '../channels/delivery.server';
import { findOrCreateContact } from '../contacts/contacts.server';
import { linkAttachments, MAX_ATTACHMENT_BYTES, MAX_MESSAGE_ATTACHMENT_BYTES, saveAttachment } from '../inbox/attachments.server';
import { removeStoredFiles } from '../storage/files.server';
import { openConversation } from '../inbox/conversations.server';
import { updateInbox, type Inbox } from '../inbox/inboxes.server';
import { addMessage } from '../inbox/messages.server';
import {
  conversationHintOfMessageId,
  parseInboundRecipient,
  verifyConversationToken,
  FORWARDING_CHECK_HEADER,
  verifyForwardingCheck,
} from './addresses.server';
import { dbText, expandParts, forwardedHtml, forwardedText, mailTextToHtml } from './mime-parts.server';
import { describeStoreFailure, isTemporaryFailure, quarantineEmail } from './quarantine.server';
import { sanitizeEmailHtml } from './sanitize.server';
import { isFromTrustedDomain } from './trusted-domains.server';

/**
 * The one way mail enters Parley, whichever road it took (inbound SMTP, IMAP, the raw-MIME HTTP endpoint):
 * parse, recognise what must not open a conversation (bounces, auto-replies, the forwarding check), drop
 * duplicates, thread replies, store attachments, sanitise HTML, and add the message. See ADR 013.
 */

/** Largest raw message accepted by the SMTP server and the HTTP endpoint. */
export const MAX_RAW_EMAIL_BYTES = 30 * 1024 * 1024;

export type IngestResult =
  | { status: 'created' | 'threaded'; conversationId: number; messageId: number }
  | { status: 'duplicate'; conversationId: number | null }
  | { status: 'bounce'; failedMessageIds: number[] }
  | { status: 'complaint'; suppressed: number }
  | { status: 'auto-reply' }
  | { status: 'verified' }
  | { status: 'ignored'; reason: string }
  | { status: 'quarantined'; quarantineId: number; reason: string };

export type IngestOptions = {
  inbox: Inbox;
  raw: Buffer;
  via: 'smtp' | 'imap' | 'http';
  /** Envelope recipients (SMTP) that named this inbox; a reply address among them names the conversation. */
  recipients?: string[];
  /** The envelope sender (SMTP MAIL FROM); an empty string is the null sender `<>` of bounces and auto-replies. */
  envelopeFrom?: string | null;
};

// ---------------------------------------------------------------------------------------------------------
// Reading headers

function headerText(parsed: ParsedMail, name: string): string {
  const value = parsed.headers.get(name);
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(String).join(' ');
  if (typeof value === 'object' && 'value' in value) return String((value as { value: unknown }).value);
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function addressesOf(field: AddressObject | AddressObject[] | undefined) {
  const list = field ? (Array.isArray(field) ? field : [field]) : [];
  const out: { address: string; name: string }[] = [];
  const walk = (items: { address?: string; name: string; group?: unknown[] }[]) => {
    for (const item of items) {
      if (item.address) out.push({ address: dbText(item.address.toLowerCase()), name: dbText(item.name) });
      if (Array.isArray(item.group)) walk(item.group as { address?: string; name: string }[]);
    }
  };
  for (const a of list) walk(a.value);
  return out;
}

function messageIdsIn(text: string) {
  return [...text.matchAll(/<[^<>\s]{1,500}>/g)].map((m) => m[0]);
}

function normaliseMessageId(id: string | undefined | null) {
  const trimmed = (id ?? '').trim();
  if (!trimmed) return null;
  const inner = trimmed.replace(/^<|>$/g, '');
  return inner ? `<${inner}>`.slice(0, 998) : null;
}

/** Bounces: delivery status reports and mail from the mailer daemon or postmaster. */
function isBounce(parsed: ParsedMail) {
  const ct = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (ct?.value?.toLowerCase() === 'multipart/report' && (ct.params?.['report-type'] ?? '').toLowerCase() === 'delivery-status') return true;
  const from = addressesOf(parsed.from)[0]?.address ?? '';
  return /^(mailer-daemon|postmaster)@/i.test(from);
}

/** Auto-replies and bulk mail (RFC 3834 and the headers vacation responders actually send). */
function isAutomatic(parsed: ParsedMail, envelopeFrom: string | null | undefined) {
  const autoSubmitted = headerText(parsed, 'auto-submitted').trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  if (parsed.headers.has('x-autoreply') || parsed.headers.has('x-autorespond') || parsed.headers.has('x-autoresponder')) return true;
  const precedence = headerText(parsed, 'precedence').trim().toLowerCase();
  if (['bulk', 'junk', 'auto_reply', 'auto-reply'].includes(precedence)) return true;
  // The null sender is reserved for automatic mail: the envelope's (SMTP) or the Return-Path a mailbox recorded (IMAP).
  if (envelopeFrom === '') return true;
  if (parsed.headers.has('return-path')) {
    const rp = parsed.headers.get('return-path') as string | { text?: string } | undefined;
    const text = (typeof rp === 'string' ? rp : (rp?.text ?? '')).trim();
    if (text === '<>' || text === '') return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Bounces

/** Marks our outgoing messages named in a delivery report as failed; a delay report changes nothing. */
async function handleBounce(inbox: Inbox, parsed: ParsedMail): Promise<IngestResult> {
  const parts = [parsed.text ?? '', ...parsed.attachments.map((a) => a.content.subarray(0, 256 * 1024).toString('utf8'))].join('\n');
  const actions = [...parts.matchAll(/^Action:\s*([a-z]+)/gim)].map((m) => m[1].toLowerCase());
  if (actions.length > 0 && actions.every((a) => a !== 'failed')) return { status: 'bounce', failedMessageIds: [] };
  const ids = new Set<string>();
  for (const m of parts.matchAll(/^(?:Message-ID|In-Reply-To|References):\s*((?:<[^>]+>\s*)+)/gim)) for (const id of messageIdsIn(m[1])) ids.add(id);
  for (const id of [parsed.inReplyTo ?? '', ...[parsed.references ?? []].flat()]) {
    const n = normaliseMessageId(id);
    if (n) ids.add(n);
  }
  if (ids.size === 0) return { status: 'bounce', failedMessageIds: [] };
  // A survey email's bounce marks its recipient and suppresses the address (issue 15).
  await markSurveyBounces({ accountId: inbox.accountId, messageIds: [...ids].filter((id) => id.startsWith('<survey-')) });
  const diagnostic =
    /^Diagnostic-Code:\s*(.+(?:\n[ \t].+)*)/im.exec(parts)?.[1] ?? /^Status:\s*(\S+)/im.exec(parts)?.[1] ?? (parsed.subject || 'Delivery failed');
  const failed = await getDb()
    .select({ id: schema.messages.id, conversationId: schema.messages.conversationId })
    .from(schema.messages)
    .where(and(eq(schema.messages.accountId, inbox.accountId), eq(schema.messages.kind, 'outgoing'), inArray(schema.messages.emailMessageId, [...ids])));
  for (const m of failed) {
    await markDelivery({ accountId: inbox.accountId, messageId: m.id, conversationId: m.conversationId, status: 'failed', error: diagnostic.replace(/\s+/g, ' ').trim().slice(0, 500) });
  }
  return { status: 'bounce', failedMessageIds: failed.map((m) => m.id) };
}

// ---------------------------------------------------------------------------------------------------------
// Threading

async function liveConversation(tx: Tx, accountId: number, conversationId: number) {
  let id = conversationId;
  // A merged conversation lives on in its target.
  for (let hop = 0; hop < 5; hop++) {
    const [row] = await tx
      .select({ id: schema.conversations.id, deletedAt: schema.conversations.deletedAt, mergedIntoId: schema.conversations.mergedIntoId })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.id, id)));
    if (!row) return null;
    if (!row.deletedAt) return row.id;
    if (!row.mergedIntoId) return null;
    id = row.mergedIntoId;
  }
  return null;
}

/**
 * The conversation a mail answers: by In-Reply-To/References against the account's stored Message-IDs, then
 * by the signed conversation token of one of our Message-IDs, then by a signed reply address it was sent to.
 */
async function findThread(tx: Tx, opts: { accountId: number; referenced: string[]; recipients: string[] }) {
  if (opts.referenced.length > 0) {
    const [hit] = await tx
      .select({ conversationId: schema.messages.conversationId })
      .from(schema.messages)
      .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
      .where(
        and(
          eq(schema.messages.accountId, opts.accountId),
          inArray(schema.messages.emailMessageId, opts.referenced),
          isNull(schema.conversations.deletedAt),
        ),
      )
      .orderBy(desc(schema.messages.id))
      .limit(1);
    if (hit) return hit.conversationId;
    for (const id of opts.referenced) {
      const hint = conversationHintOfMessageId(id);
      if (hint && verifyConversationToken(opts.accountId, hint)) {
        const live = await liveConversation(tx, opts.accountId, hint.conversationId);
        if (live) return live;
      }
    }
  }
  for (const address of opts.recipients) {
    const hint = parseInboundRecipient(address)?.conversationHint;
    if (hint && verifyConversationToken(opts.accountId, hint)) {
      const live = await liveConversation(tx, opts.accountId, hint.conversationId);
      if (live) return live;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Ingestion

/**
 * Stores a mail, or, when it cannot be stored even after cleaning (the database refuses it, it cannot be
 * parsed), quarantines it raw with the reason, so that the mail after it is not held up (ADR 024). Only a
 * temporary failure (the database unreachable) is thrown: the road it came by then tries again later.
 */
export async function ingestEmail(opts: IngestOptions): Promise<IngestResult> {
  // A suspended account takes no mail (ADR 152): the caller refuses it with a temporary error, the sender keeps it.
  await assertAccountTakingWork(opts.inbox.accountId);
  // Nor does one whose plan has no Inbox (ADR 157): refused the same way, the mail stays with its sender.
  await assertPlanFeature({ accountId: opts.inbox.accountId, key: EMAIL_CHANNEL_FEATURE });
  const result = await storeOrQuarantine(opts);
  metrics().mailIn.inc({ via: opts.via, status: result.status });
  return result;
}

async function storeOrQuarantine(opts: IngestOptions): Promise<IngestResult> {
  try {
    return await storeEmail(opts);
  } catch (err) {
    if (isTemporaryFailure(err)) throw err;
    const reason = describeStoreFailure(err);
    const row = await quarantineEmail({
      accountId: opts.inbox.accountId,
      inboxId: opts.inbox.id,
      via: opts.via,
      reason,
      raw: opts.raw,
      recipients: opts.recipients ?? [],
      envelopeFrom: opts.envelopeFrom ?? null,
    });
    return { status: 'quarantined', quarantineId: row.id, reason };
  }
}

/** Stores a mail as it came (cleaned of what the database refuses); throws when it cannot. */
export async function storeEmail(opts: IngestOptions): Promise<IngestResult> {
  const { inbox } = opts;
  const log = getLogger();
  if (opts.raw.byteLength > MAX_RAW_EMAIL_BYTES) return { status: 'ignored', reason: 'too large' };
  const parsed = await simpleParser(opts.raw, { keepCidLinks: true });
  const { parts, forwarded, tnefBody, tnefHtml, notes } = await expandParts(parsed);

  // The forwarding check Parley mailed to the support address came back through forwarding: it works.
  const check = headerText(parsed, FORWARDING_CHECK_HEADER.toLowerCase());
  if (check) {
    if (!verifyForwardingCheck(inbox, check)) return { status: 'ignored', reason: 'forwarding check of another inbox' };
    if (!inbox.forwardingVerifiedAt) {
      await updateInbox({ accountId: inbox.accountId, actorId: null, id: inbox.id, changes: { forwardingVerifiedAt: new Date() } });
    }
    return { status: 'verified' };
  }

  // A feedback-loop complaint (ARF) about a campaign email: the address is suppressed; it opens no conversation.
  if (isFeedbackReport(parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined)) {
    const text = [parsed.text ?? '', ...parsed.attachments.map((a) => a.content.subarray(0, 256 * 1024).toString('utf8'))].join('\n');
    return { status: 'complaint', ...(await recordComplaint({ accountId: inbox.accountId, text })) };
  }
  if (isBounce(parsed)) return handleBounce(inbox, parsed);
  if (isAutomatic(parsed, opts.envelopeFrom)) return { status: 'auto-reply' };

  const sender = addressesOf(parsed.from)[0] ?? (opts.envelopeFrom ? { address: opts.envelopeFrom.toLowerCase(), name: '' } : undefined);
  if (!sender) return { status: 'ignored', reason: 'no sender' };
  // Mail from one of Parley's own forwarding or reply addresses would be a loop (an inbox answering itself).
  const own = parseInboundRecipient(sender.address);
  if (own && (await findInboxByForwardingToken(own.token))) return { status: 'ignored', reason: 'sent from a forwarding address' };

  const messageId = normaliseMessageId(dbText(parsed.messageId)) ?? `<${crypto.createHash('sha256').update(opts.raw).digest('hex').slice(0, 40)}@parley.invalid>`;
  const referenced = [
    ...new Set(
      [normaliseMessageId(dbText(parsed.inReplyTo)), ...[parsed.references ?? []].flat().map((r) => normaliseMessageId(dbText(r)))].filter((x): x is string => Boolean(x)),
    ),
  ];
  const to = addressesOf(parsed.to);
  const cc = addressesOf(parsed.cc);
  const recipients = [
    ...(opts.recipients ?? []),
    ...to.map((a) => a.address),
    ...cc.map((a) => a.address),
    ...`${headerText(parsed, 'delivered-to')} ${headerText(parsed, 'x-original-to')}`.match(/[^\s<>,;"]+@[^\s<>,;"]+/g) ?? [],
  ];
  const email: EmailHeaders = {
    messageId,
    inReplyTo: normaliseMessageId(dbText(parsed.inReplyTo)) ?? undefined,
    references: referenced.length ? referenced : undefined,
    from: sender.address,
    to: to.map((a) => a.address),
    cc: cc.map((a) => a.address),
  };

  const stored: string[] = [];
  try {
    return await getDb().transaction(async (tx) => {
      // The same mail may arrive twice at once (forwarded and read over IMAP): one of them waits here.
      await tx.execute(sql`select pg_advisory_xact_lock(${inbox.accountId}, hashtext(${messageId}))`);
      const [dup] = await tx
        .select({ conversationId: schema.messages.conversationId })
        .from(schema.messages)
        .where(and(eq(schema.messages.accountId, inbox.accountId), eq(schema.messages.emailMessageId, messageId)))
        .limit(1);
      if (dup) return { status: 'duplicate', conversationId: dup.conversationId } as const;

      const threadId = await findThread(tx, { accountId: inbox.accountId, referenced, recipients });
      // An answer to a campaign email counts as that recipient's reply (ADR 064); it becomes a conversation as any mail.
      await recordCampaignReply(tx, { accountId: inbox.accountId, referenced, from: sender.address });
      const fromTrustedDomain = await isFromTrustedDomain(tx, { accountId: inbox.accountId, address: sender.address });

      // Files first (not yet linked), so that inline images can point at them in the sanitised HTML.
      const saved: { id: number }[] = [];
      const skipped: string[] = [];
      const cidUrls = new Map<string, string>();
      let total = 0;
      for (const a of parts) {
        const name = a.filename;
        if (a.content.byteLength > MAX_ATTACHMENT_BYTES || total + a.content.byteLength > MAX_MESSAGE_ATTACHMENT_BYTES) {
          skipped.push(name);
          continue;
        }
        total += a.content.byteLength;
        const row = await saveAttachment(
          { accountId: inbox.accountId, messageId: null, filename: name, contentType: a.contentType, bytes: a.content, contentId: a.cid ?? null },
          tx,
        );
        stored.push(row.storageKey);
        saved.push(row);
        if (a.cid) cidUrls.set(a.cid.replace(/^<|>$/g, '').toLowerCase(), `/attachments/${row.id}`);
      }

      // Offending bytes removed (NUL: PostgreSQL text refuses it), forwarded messages shown inline after the body.
      const ownText = dbText(parsed.text ?? '').trim() || tnefBody.trim();
      // Without HTML of its own, Outlook's HTML from the winmail.dat's RTF body (the same body, richer): sanitized below like any.
      const ownHtml = typeof parsed.html === 'string' && parsed.html.trim() ? dbText(parsed.html) : tnefHtml;
      const fullHtml =
        forwarded.length > 0 ? (ownHtml ?? (ownText ? mailTextToHtml(ownText) : '')) + forwarded.map(forwardedHtml).join('') : ownHtml;
      const html = fullHtml ? sanitizeEmailHtml(fullHtml, { cidUrls }) || null : null;
      const text =
        [ownText, ...forwarded.map(forwardedText)].filter(Boolean).join('\n\n') || (html ? html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() : '');

      let conversationId: number;
      let newMessageId: number;
      let status: 'created' | 'threaded';
      if (threadId) {
        const { contact } = await findOrCreateContact(tx, { accountId: inbox.accountId, email: sender.address, name: sender.name, source: 'email' });
        const message = await addMessage(tx, {
          accountId: inbox.accountId,
          conversationId: threadId,
          kind: 'incoming',
          text,
          html,
          email,
          emailMessageId: messageId,
          fromTrustedDomain,
          senderContactId: contact.id,
        });
        conversationId = threadId;
        newMessageId = message.id;
        status = 'threaded';
      } else {
        const opened = await openConversation({
          tx,
          accountId: inbox.accountId,
          inboxId: inbox.id,
          sourceType: 'email',
          subject: dbText(parsed.subject ?? '').trim(),
          contact: { email: sender.address, name: sender.name },
          message: { kind: 'incoming', text, html, email, fromTrustedDomain },
        });
        conversationId = opened.conversation.id;
        newMessageId = opened.message.id;
        status = 'created';
      }
      await linkAttachments(tx, { accountId: inbox.accountId, messageId: newMessageId, ids: saved.map((s) => s.id) });
      if (skipped.length > 0) {
        await addMessage(tx, {
          accountId: inbox.accountId,
          conversationId,
          kind: 'system',
          text: `Not kept, too large (over ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB each, ${MAX_MESSAGE_ATTACHMENT_BYTES / (1024 * 1024)} MB per message): ${skipped.join(', ')}`,
        });
      }
      // A part Parley could not unpack (a winmail.dat it cannot read whole) is kept as it came; the agent is told.
      for (const note of notes) await addMessage(tx, { accountId: inbox.accountId, conversationId, kind: 'system', text: note });
      return { status, conversationId, messageId: newMessageId };
    });
  } catch (err) {
    await removeStoredFiles(stored);
    // The database's reason only: never the subject, the address or the text of the customer's mail.
    log.error({ reason: describeStoreFailure(err), inboxId: inbox.id, via: opts.via }, 'email ingestion failed');
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Finding the inbox

/**
 * The inbox of a forwarding token: an email inbox, or another inbox whose replies went out by email and carry its
 * reply address (ADR 033). Tokens are unique across the installation: this is the one lookup not scoped by an
 * account, because the token is how inbound mail tells which account it is for.
 */
export async function findInboxByForwardingToken(token: string) {
  const [row] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.forwardingToken, token.toLowerCase()));
  return row;
}

/** The email inbox of an id, for the HTTP endpoint (which then checks the inbox's own secret). */
export async function findEmailInboxById(id: number) {
  const [row] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.id, id), eq(schema.inboxes.channelType, 'email')));
  return row;
}

/**
 * Mail received by the inbound SMTP server: each inbox named by a recipient gets it once (a mail sent to two
 * inboxes of Parley is two conversations, as it would be in two mailboxes).
 */
export async function ingestSmtpMessage(opts: { raw: Buffer; recipients: string[]; envelopeFrom: string | null }) {
  const byInbox = new Map<number, { inbox: Inbox; recipients: string[] }>();
  for (const r of opts.recipients) {
    const parsed = parseInboundRecipient(r);
    if (!parsed) continue;
    const inbox = await findInboxByForwardingToken(parsed.token);
    if (!inbox) continue;
    const entry = byInbox.get(inbox.id) ?? { inbox, recipients: [] };
    entry.recipients.push(r);
    byInbox.set(inbox.id, entry);
  }
  const results: IngestResult[] = [];
  for (const { inbox, recipients } of byInbox.values()) {
    results.push(await ingestEmail({ inbox, raw: opts.raw, via: 'smtp', recipients, envelopeFrom: opts.envelopeFrom }));
  }
  return results;
}
