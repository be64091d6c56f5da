import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { markRecipientOpened } from '../surveys/email-surveys.server';
import { suppress } from './sending.server';
import { verifyTracking } from './tracking.server';

const r = schema.campaignRecipients;
const c = schema.campaigns;

/** The recipient a verified link names, within its own account only. */
async function recipientOf(accountId: number, recipientId: number) {
  const [row] = await getDb()
    .select({ id: r.id, campaignId: r.campaignId, address: r.address, unsubscribedAt: r.unsubscribedAt })
    .from(r)
    .where(and(eq(r.accountId, accountId), eq(r.id, recipientId)));
  return row;
}

/** Counts one event and, the first time for this recipient, the campaign's counter (first open, first click...). */
async function record(opts: {
  accountId: number;
  recipient: { id: number; campaignId: number };
  kind: 'open' | 'click' | 'unsubscribe';
  url?: string;
  column: 'openedAt' | 'clickedAt' | 'unsubscribedAt';
  counter: 'openedCount' | 'clickedCount' | 'unsubscribedCount';
}) {
  await getDb().transaction(async (tx) => {
    await tx.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: opts.recipient.campaignId, recipientId: opts.recipient.id, kind: opts.kind, url: opts.url ?? null });
    const first = await tx
      .update(r)
      .set({ [opts.column]: new Date() })
      .where(and(eq(r.accountId, opts.accountId), eq(r.id, opts.recipient.id), isNull(r[opts.column])))
      .returning({ id: r.id });
    if (first.length) {
      await tx
        .update(c)
        .set({ [opts.counter]: sql`${c[opts.counter]} + 1` })
        .where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.recipient.campaignId)));
    }
    // A click proves the mail was opened even when images were blocked.
    if (opts.kind === 'click') {
      const opened = await tx
        .update(r)
        .set({ openedAt: new Date() })
        .where(and(eq(r.accountId, opts.accountId), eq(r.id, opts.recipient.id), isNull(r.openedAt)))
        .returning({ id: r.id });
      if (opened.length) await tx.update(c).set({ openedCount: sql`${c.openedCount} + 1` }).where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.recipient.campaignId)));
    }
  });
}

/** The open pixel of campaign and survey emails (ADR 094): true when the token was genuine (the pixel is served either way). */
export async function recordOpen(token: string) {
  const p = verifyTracking(token, 'o');
  if (!p) return false;
  if (p.t === 's') return markRecipientOpened({ accountId: p.a, id: p.r });
  const recipient = await recipientOf(p.a, p.r);
  if (!recipient) return false;
  await record({ accountId: p.a, recipient, kind: 'open', column: 'openedAt', counter: 'openedCount' });
  return true;
}

/** A click: the destination to redirect to, or null for a forged or altered link (refused, never redirected). */
export async function recordClick(token: string) {
  const p = verifyTracking(token, 'c');
  if (!p?.u) return null;
  const recipient = await recipientOf(p.a, p.r);
  if (recipient) await record({ accountId: p.a, recipient, kind: 'click', url: p.u, column: 'clickedAt', counter: 'clickedCount' });
  return p.u;
}

/** What the unsubscribe page shows for a link: null when forged. */
export async function readUnsubscribeLink(token: string) {
  const p = verifyTracking(token, 'u');
  if (!p) return null;
  const recipient = await recipientOf(p.a, p.r);
  if (!recipient) return null;
  const [account] = await getDb().select({ name: schema.accounts.name }).from(schema.accounts).where(eq(schema.accounts.id, p.a));
  return { address: recipient.address, accountName: account?.name ?? '', done: Boolean(recipient.unsubscribedAt) };
}

/** Unsubscribes the link's address from the account's later campaigns (RFC 8058 one-click and the page's button). */
export async function unsubscribe(token: string) {
  const p = verifyTracking(token, 'u');
  if (!p) return false;
  const recipient = await recipientOf(p.a, p.r);
  if (!recipient) return false;
  if (!recipient.unsubscribedAt) await record({ accountId: p.a, recipient, kind: 'unsubscribe', column: 'unsubscribedAt', counter: 'unsubscribedCount' });
  await suppress({ accountId: p.a, campaignId: recipient.campaignId, address: recipient.address, reason: 'unsubscribed', recipientId: recipient.id });
  return true;
}

const CAMPAIGN_MESSAGE_ID = /^<campaign\.(\d{1,10})\.(\d{1,15})\.a(\d{1,10})@/;

/**
 * An inbound email that answers a campaign email (its In-Reply-To or References names the campaign's Message-ID,
 * ADR 064) counts as that recipient's reply, once, in the transaction that records the mail. Only a reply from the
 * recipient's own address, to a campaign of the inbox's own account, counts.
 */
export async function recordCampaignReply(tx: Tx, opts: { accountId: number; referenced: string[]; from: string }) {
  for (const id of opts.referenced) {
    const m = CAMPAIGN_MESSAGE_ID.exec(id);
    if (!m || Number(m[3]) !== opts.accountId) continue;
    const [campaignId, recipientId] = [Number(m[1]), Number(m[2])];
    const first = await tx
      .update(r)
      .set({ repliedAt: new Date() })
      .where(and(eq(r.accountId, opts.accountId), eq(r.id, recipientId), eq(r.campaignId, campaignId), eq(r.address, opts.from.toLowerCase()), isNull(r.repliedAt)))
      .returning({ id: r.id });
    if (!first.length) return false;
    await tx.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId, recipientId, kind: 'reply' });
    await tx.update(c).set({ repliedCount: sql`${c.repliedCount} + 1` }).where(and(eq(c.accountId, opts.accountId), eq(c.id, campaignId)));
    return true;
  }
  return false;
}
