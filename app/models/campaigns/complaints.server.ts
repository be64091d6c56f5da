import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { suppress } from './sending.server';

const r = schema.campaignRecipients;
const c = schema.campaigns;

/** A campaign email's Message-ID (ADR 064): campaign, recipient and account. */
const CAMPAIGN_MESSAGE_ID = /<campaign\.(\d{1,10})\.(\d{1,15})\.a(\d{1,10})@[^>]+>/g;
const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Whether a parsed mail's Content-Type is an ARF feedback report (RFC 5965): multipart/report; report-type=feedback-report. */
export function isFeedbackReport(contentType: { value?: string; params?: Record<string, string> } | undefined) {
  return contentType?.value?.toLowerCase() === 'multipart/report' && (contentType.params?.['report-type'] ?? '').toLowerCase() === 'feedback-report';
}

/**
 * A complaint (a mailbox provider's feedback-loop report, ADR 065 addendum): the campaign emails the report quotes
 * (their Message-IDs, of this account only) count a complaint once per recipient, and the complaining address is
 * suppressed for later campaigns. Without a campaign Message-ID, the report's Original-Rcpt-To (or Removal-Recipient)
 * address is suppressed. `text` is the report's parts as text (the machine-readable part and the quoted message).
 */
export async function recordComplaint(opts: { accountId: number; text: string }) {
  const db = getDb();
  const found: { campaignId: number; recipientId: number }[] = [];
  for (const m of opts.text.matchAll(CAMPAIGN_MESSAGE_ID)) {
    if (Number(m[3]) !== opts.accountId) continue;
    if (!found.some((f) => f.recipientId === Number(m[2]))) found.push({ campaignId: Number(m[1]), recipientId: Number(m[2]) });
  }
  let suppressed = 0;
  for (const f of found.slice(0, 20)) {
    const counted = await db.transaction(async (tx) => {
      // One complaint per recipient counts (a provider may report the same mail twice).
      const [row] = await tx
        .select({ id: r.id, address: r.address })
        .from(r)
        .where(and(eq(r.accountId, opts.accountId), eq(r.id, f.recipientId), eq(r.campaignId, f.campaignId)));
      if (!row) return null;
      const [already] = await tx
        .select({ id: schema.campaignEvents.id })
        .from(schema.campaignEvents)
        .where(and(eq(schema.campaignEvents.accountId, opts.accountId), eq(schema.campaignEvents.campaignId, f.campaignId), eq(schema.campaignEvents.recipientId, row.id), eq(schema.campaignEvents.kind, 'complaint')));
      if (!already) {
        await tx.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: f.campaignId, recipientId: row.id, kind: 'complaint' });
        await tx.update(c).set({ complainedCount: sql`${c.complainedCount} + 1` }).where(and(eq(c.accountId, opts.accountId), eq(c.id, f.campaignId)));
      }
      return row;
    });
    if (counted) {
      await suppress({ accountId: opts.accountId, campaignId: f.campaignId, address: counted.address, reason: 'complained', recipientId: counted.id });
      suppressed++;
    }
  }
  if (suppressed === 0) {
    const rcpt = /^(?:Original-Rcpt-To|Removal-Recipient):\s*(?:rfc822;\s*)?<?([^\s<>]+)>?/im.exec(opts.text)?.[1]?.toLowerCase();
    if (rcpt && EMAIL.test(rcpt) && rcpt.length <= 320) {
      await suppress({ accountId: opts.accountId, campaignId: null, address: rcpt, reason: 'complained' });
      suppressed++;
    }
  }
  return { suppressed };
}
