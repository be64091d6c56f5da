import crypto from 'node:crypto';
import { and, desc, eq, gte, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { sendBulkEmail } from '../mail/mail.server';
import { recordChange } from '../productivity/shared.server';
import { listEmailSenderOptions } from '../surveys/senders.server';
import { accountLink } from '../../utils/tenant.server';
import { REVIEW_REQUEST_DEFAULTS, REVIEW_REQUEST_MESSAGES } from './constants';
import type { ReviewRequestInput } from './schemas';

/**
 * Review-request emails (Settings → Reviews → Email setup, ADR 086): after a conversation is resolved — or, with a
 * CSAT condition, after its rating came in high enough — the contact is asked once per period to review the account on
 * the chosen source. Sent by the engine (engine/handlers/review-requests.ts), never by a request.
 */

const st = schema.reviewRequestSettings;
const rq = schema.reviewRequests;

export class ReviewRequestInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** The settings row, or the defaults when the account never saved one. */
export async function getReviewRequestSettings(opts: { accountId: number }) {
  const [row] = await getDb().select().from(st).where(eq(st.accountId, opts.accountId));
  return row ?? { accountId: opts.accountId, ...REVIEW_REQUEST_DEFAULTS, senderEmail: null, sourceId: null, minCsat: null, updatedAt: null };
}

/** Saves the setup; the sender must be one of the account's verified addresses and the source the account's own. */
export async function saveReviewRequestSettings(opts: { accountId: number; actorId: number; host: string; input: ReviewRequestInput }) {
  const { input } = opts;
  const senders = await listEmailSenderOptions({ accountId: opts.accountId, host: opts.host });
  if (input.senderEmail && !senders.includes(input.senderEmail.toLowerCase())) throw new ReviewRequestInputError(REVIEW_REQUEST_MESSAGES.sender, 'senderEmail');
  if (input.sourceId) {
    const [source] = await getDb()
      .select({ id: schema.reviewSources.id })
      .from(schema.reviewSources)
      .where(and(eq(schema.reviewSources.accountId, opts.accountId), eq(schema.reviewSources.id, input.sourceId)));
    if (!source) throw new ReviewRequestInputError(REVIEW_REQUEST_MESSAGES.source, 'sourceId');
  }
  const values = {
    isEnabled: input.isEnabled,
    senderName: input.senderName,
    senderEmail: input.senderEmail?.toLowerCase() ?? null,
    subject: input.subject,
    body: input.body,
    sourceId: input.sourceId,
    minCsat: input.minCsat,
    periodDays: input.periodDays,
    updatedAt: new Date(),
  };
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(st)
      .values({ accountId: opts.accountId, ...values })
      .onConflictDoUpdate({ target: st.accountId, set: values })
      .returning();
    await recordChange(tx, {
      accountId: opts.accountId,
      actorId: opts.actorId,
      type: 'review_request_settings_updated',
      subjectType: 'review_request_settings',
      subjectId: opts.accountId,
      payload: { isEnabled: row.isEnabled, minCsat: row.minCsat, periodDays: row.periodDays, sourceId: row.sourceId },
    });
    return row;
  });
}

/** The latest requests, for the setup screen. */
export async function listRecentReviewRequests(opts: { accountId: number; limit?: number }) {
  return getDb()
    .select({ id: rq.id, sentAt: rq.sentAt, email: schema.contacts.email, contactId: rq.contactId, conversationId: rq.conversationId })
    .from(rq)
    .innerJoin(schema.contacts, eq(schema.contacts.id, rq.contactId))
    .where(eq(rq.accountId, opts.accountId))
    .orderBy(desc(rq.id))
    .limit(opts.limit ?? 10);
}

const escapeHtml = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export type ReviewRequestTrigger = { kind: 'resolved' } | { kind: 'csat'; rating: number };

/**
 * Asks a conversation's contact for a review when the setup says so. `resolved` acts only without a CSAT condition;
 * `csat` (a rating came in) only with one, and only at or above it. Once per contact per period: the contact's row is
 * locked while the last request is read and the new one written, and the mail is sent in that transaction — a failed
 * send rolls the request back and the engine retries; two events at once ask once.
 */
export async function requestReview(opts: { accountId: number; conversationId: number; trigger: ReviewRequestTrigger; causedByEventId?: number }) {
  const db = getDb();
  const [settings] = await db.select().from(st).where(eq(st.accountId, opts.accountId));
  if (!settings?.isEnabled) return { sent: false, reason: 'off' } as const;
  if (settings.minCsat == null && opts.trigger.kind !== 'resolved') return { sent: false, reason: 'asked on resolve' } as const;
  if (settings.minCsat != null && (opts.trigger.kind !== 'csat' || opts.trigger.rating < settings.minCsat)) return { sent: false, reason: 'rating' } as const;
  const v = schema.conversations;
  const [conv] = await db
    .select({ id: v.id, contactId: v.contactId, status: v.status, domain: schema.accounts.domain, company: schema.accounts.name })
    .from(v)
    .innerJoin(schema.accounts, eq(schema.accounts.id, v.accountId))
    .where(and(eq(v.accountId, opts.accountId), eq(v.id, opts.conversationId)));
  if (!conv?.contactId) return { sent: false, reason: 'no contact' } as const;
  if (opts.trigger.kind === 'resolved' && conv.status !== 'resolved') return { sent: false, reason: 'not resolved' } as const;
  const link = await reviewLink({ accountId: opts.accountId, sourceId: settings.sourceId, domain: conv.domain });
  if (!link) return { sent: false, reason: 'no source' } as const;
  const host = new URL(accountLink(conv.domain)).hostname;
  const senders = await listEmailSenderOptions({ accountId: opts.accountId, host });
  const from = settings.senderEmail && senders.includes(settings.senderEmail) ? settings.senderEmail : senders[0];

  return db.transaction(async (tx) => {
    const c = schema.contacts;
    const [contact] = await tx
      .select({ id: c.id, email: c.email, firstName: c.firstName, lastName: c.lastName })
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, conv.contactId!)))
      .for('update');
    if (!contact?.email) return { sent: false, reason: 'no address' } as const;
    const email = contact.email.toLowerCase();
    const [optedOut] = await tx
      .select({ one: sql`1` })
      .from(schema.reviewRequestOptOuts)
      .where(and(eq(schema.reviewRequestOptOuts.accountId, opts.accountId), eq(schema.reviewRequestOptOuts.contactId, contact.id)));
    if (optedOut) return { sent: false, reason: 'unsubscribed' } as const;
    const [suppressed] = await tx
      .select({ one: sql`1` })
      .from(schema.emailSuppressions)
      .where(and(eq(schema.emailSuppressions.accountId, opts.accountId), eq(schema.emailSuppressions.email, email)));
    if (suppressed) return { sent: false, reason: 'unsubscribed' } as const;
    const since = new Date(Date.now() - settings.periodDays * 86_400_000);
    const [recent] = await tx
      .select({ id: rq.id })
      .from(rq)
      .where(and(eq(rq.accountId, opts.accountId), eq(rq.contactId, contact.id), gte(rq.sentAt, since)))
      .limit(1);
    if (recent) return { sent: false, reason: 'asked this period' } as const;
    const token = crypto.randomBytes(24).toString('hex');
    const [row] = await tx.insert(rq).values({ accountId: opts.accountId, contactId: contact.id, conversationId: conv.id, token }).returning({ id: rq.id });
    await recordChange(tx, {
      accountId: opts.accountId,
      actorId: null,
      type: 'review_request_sent',
      subjectType: 'review_request',
      subjectId: row.id,
      payload: { contactId: contact.id, conversationId: conv.id, sourceId: settings.sourceId, trigger: opts.trigger.kind, causedByEventId: opts.causedByEventId ?? null },
    });
    const unsubscribe = accountLink(conv.domain, `/review-requests/${opts.accountId}/${token}/unsubscribe`);
    const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ') || email;
    const fill = (t: string, l: string) => t.replaceAll('{{name}}', name).replaceAll('{{company}}', conv.company).replaceAll('{{review_link}}', l);
    const subject = fill(settings.subject || REVIEW_REQUEST_DEFAULTS.subject, link).replace(/[\r\n]+/g, ' ');
    const body = settings.body || REVIEW_REQUEST_DEFAULTS.body;
    const text = `${fill(body, link)}${body.includes('{{review_link}}') ? '' : `\n\n${link}`}\n\nUnsubscribe: ${unsubscribe}`;
    const button = `<a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;border-radius:6px;background:#2f6fde;color:#fff;text-decoration:none">Leave a review</a>`;
    const paragraphs = escapeHtml(fill(body, '\u0000'))
      .split(/\n{2,}/)
      .map((p) => `<p>${p.replace(/\n/g, '<br>').replaceAll('\u0000', `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`)}</p>`)
      .join('\n');
    const html = `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#1d2433">
<div style="max-width:560px;margin:0 auto;padding:24px">
${paragraphs}
<p>${button}</p>
<p style="color:#777;font-size:12px"><a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p></div></body></html>`;
    const senderName = (settings.senderName || conv.company).replace(/["\r\n]/g, '');
    await sendBulkEmail({
      accountId: opts.accountId,
      from: `"${senderName}" <${from}>`,
      to: email,
      subject,
      text,
      html,
      messageId: `<review-request-${token}@${host}>`,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    return { sent: true, requestId: row.id } as const;
  });
}

/** Where a happy customer is sent: the Parley review page of the account's host, or the external profile's review URL. */
async function reviewLink(opts: { accountId: number; sourceId: number | null; domain: string }) {
  if (!opts.sourceId) return null;
  const [source] = await getDb()
    .select({ kind: schema.reviewSources.kind, code: schema.reviewSources.code, reviewUrl: schema.reviewSources.reviewUrl })
    .from(schema.reviewSources)
    .where(and(eq(schema.reviewSources.accountId, opts.accountId), eq(schema.reviewSources.id, opts.sourceId)));
  if (!source) return null;
  if (source.kind === 'parley') return accountLink(opts.domain, `/r/${source.code}`);
  return source.reviewUrl;
}

export async function findReviewRequest(opts: { accountId: number; token: string }) {
  if (!/^[0-9a-f]{48}$/.test(opts.token)) return null;
  const [row] = await getDb()
    .select({ id: rq.id, token: rq.token, contactId: rq.contactId, email: schema.contacts.email })
    .from(rq)
    .innerJoin(schema.contacts, eq(schema.contacts.id, rq.contactId))
    .where(and(eq(rq.accountId, opts.accountId), eq(rq.token, opts.token)));
  return row ?? null;
}

/**
 * One-click unsubscribe (RFC 8058) from a review request: the contact is opted out of review requests, and the address
 * goes on the account's suppression list that campaigns and survey emails read (the same as their unsubscribe links).
 */
export async function unsubscribeReviewRequests(opts: { accountId: number; token: string }) {
  const found = await findReviewRequest(opts);
  if (!found) return null;
  await getDb().transaction(async (tx) => {
    await tx.insert(schema.reviewRequestOptOuts).values({ accountId: opts.accountId, contactId: found.contactId }).onConflictDoNothing();
    if (found.email) await tx.insert(schema.emailSuppressions).values({ accountId: opts.accountId, email: found.email.toLowerCase(), reason: 'unsubscribed' }).onConflictDoNothing();
  });
  return found.email ?? '';
}
