import { and, desc, eq, isNull, lte, ne, or, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { getInboxBusinessHours } from '../automation/business-hours.server';
import { isOpenAt } from '../automation/business-time';
import type { WidgetVisitor } from '../channels/widget.server';
import { segmentWhere } from '../crm/segments.server';
import { conditionMatches } from '../surveys/in-app.server';

const c = schema.campaigns;
const r = schema.campaignRecipients;

/** A widget visitor is a message campaign's recipient as `v:` and its id: the unique key makes "once per visitor". */
export const visitorAddress = (visitor: Pick<WidgetVisitor, 'id'>) => `v:${visitor.id}`;

/** What the widget gets in its session answer when a message campaign is for this visitor on this page. */
export type WidgetCampaign = { id: number; text: string; author: string | null; delay: number };

/** Live: running (sending), or scheduled and its time has come (a message campaign has no send job, ADR 082). */
const live = (now: Date) => or(eq(c.status, 'sending'), and(eq(c.status, 'scheduled'), lte(c.scheduledAt, now)));

/**
 * The message campaign to show this visitor on this page, if any (ADR 082): live, in this messenger, not yet shown to
 * this visitor, and its page, visitor, hours and segment conditions hold. One read of the inbox's live campaigns; the
 * visitor's facts (returning, business hours, segment) are read only when a candidate needs them. Newest first.
 */
export async function chatCampaignFor(opts: { visitor: WidgetVisitor; url: string; now?: Date }): Promise<WidgetCampaign | null> {
  const { visitor } = opts;
  const now = opts.now ?? new Date();
  const db = getDb();
  const rows = await db
    .select({ id: c.id, text: c.bodyText, chat: c.chat, segmentId: c.segmentId, author: schema.users.firstName })
    .from(c)
    .leftJoin(schema.users, and(eq(schema.users.accountId, c.accountId), sql`${schema.users.id} = (${c.chat}->>'senderUserId')::int`))
    .where(
      and(
        eq(c.accountId, visitor.accountId),
        eq(c.kind, 'message'),
        eq(c.inboxId, visitor.inboxId),
        live(now),
        sql`not exists (select 1 from ${r} where ${r.campaignId} = ${c.id} and ${r.address} = ${visitorAddress(visitor)})`,
      ),
    )
    .orderBy(desc(c.id))
    .limit(100);
  const candidates = rows.filter((row) => row.chat && (row.chat.pages.length === 0 || row.chat.pages.some((p) => conditionMatches(p, opts.url))));
  if (candidates.length === 0) return null;
  let returning: boolean | undefined;
  let open: boolean | undefined;
  for (const row of candidates) {
    const chat = row.chat!;
    if (chat.visitor !== 'any') {
      returning ??= await isReturning(visitor);
      if ((chat.visitor === 'new') === returning) continue;
    }
    if (chat.businessHoursOnly) {
      if (open === undefined) {
        const hours = await getInboxBusinessHours({ accountId: visitor.accountId, inboxId: visitor.inboxId });
        open = hours ? isOpenAt(hours, now) : true;
      }
      if (!open) continue;
    }
    if (row.segmentId && !(await inSegment(visitor, row.segmentId))) continue;
    return { id: row.id, text: row.text, author: row.author ?? null, delay: chat.delaySeconds };
  }
  return null;
}

/**
 * A returning visitor came before: its browser row is older than a day, or its contact has a conversation or
 * another browser of the account.
 */
async function isReturning(visitor: WidgetVisitor) {
  if (visitor.createdAt.getTime() < Date.now() - 86_400_000) return true;
  if (!visitor.contactId) return false;
  const [row] = await getDb()
    .select({ id: schema.conversations.id })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, visitor.accountId), eq(schema.conversations.contactId, visitor.contactId)))
    .limit(1);
  if (row) return true;
  const [other] = await getDb()
    .select({ id: schema.widgetVisitors.id })
    .from(schema.widgetVisitors)
    .where(and(eq(schema.widgetVisitors.accountId, visitor.accountId), eq(schema.widgetVisitors.contactId, visitor.contactId), ne(schema.widgetVisitors.id, visitor.id)))
    .limit(1);
  return Boolean(other);
}

/** Whether the visitor's contact is in the segment (an anonymous visitor is in no segment). */
async function inSegment(visitor: WidgetVisitor, segmentId: number) {
  if (!visitor.contactId) return false;
  const [segment] = await getDb()
    .select()
    .from(schema.segments)
    .where(and(eq(schema.segments.accountId, visitor.accountId), eq(schema.segments.id, segmentId), eq(schema.segments.kind, 'contact')));
  if (!segment) return false;
  const [row] = await getDb()
    .select({ id: schema.contacts.id })
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, visitor.accountId), eq(schema.contacts.id, visitor.contactId), segmentWhere({ accountId: visitor.accountId, segment })))
    .limit(1);
  return Boolean(row);
}

/**
 * The widget showed the campaign: the visitor becomes its recipient (once; a second report changes nothing) and the
 * shown figure (sentCount) counts it. Only a live campaign of the visitor's own messenger counts.
 */
export async function recordChatCampaignShown(opts: { visitor: WidgetVisitor; campaignId: number; now?: Date }) {
  const { visitor } = opts;
  const now = opts.now ?? new Date();
  return getDb().transaction(async (tx) => {
    const [campaign] = await tx
      .select({ id: c.id })
      .from(c)
      .where(and(eq(c.accountId, visitor.accountId), eq(c.id, opts.campaignId), eq(c.kind, 'message'), eq(c.inboxId, visitor.inboxId), live(now)));
    if (!campaign) return false;
    const inserted = await tx
      .insert(r)
      .values({ accountId: visitor.accountId, campaignId: campaign.id, contactId: visitor.contactId, address: visitorAddress(visitor), status: 'sent', sentAt: now })
      .onConflictDoNothing()
      .returning({ id: r.id });
    if (inserted.length === 0) return true;
    await tx.insert(schema.campaignEvents).values({ accountId: visitor.accountId, campaignId: campaign.id, recipientId: inserted[0].id, kind: 'delivered' });
    await tx
      .update(c)
      .set({ sentCount: sql`${c.sentCount} + 1`, recipientCount: sql`${c.recipientCount} + 1` })
      .where(and(eq(c.accountId, visitor.accountId), eq(c.id, campaign.id)));
    return true;
  });
}

/**
 * The campaign message a visitor's first message answers: the one shown to this visitor and not yet replied to.
 * Read before the reply opens its conversation, so the conversation starts with the campaign's words.
 */
export async function chatCampaignToAnswer(opts: { visitor: WidgetVisitor; campaignId: number }) {
  const { visitor } = opts;
  const [row] = await getDb()
    .select({ id: c.id, text: c.bodyText, chat: c.chat, recipientId: r.id })
    .from(c)
    .innerJoin(r, and(eq(r.campaignId, c.id), eq(r.accountId, c.accountId)))
    .where(
      and(
        eq(c.accountId, visitor.accountId),
        eq(c.id, opts.campaignId),
        eq(c.kind, 'message'),
        eq(r.address, visitorAddress(visitor)),
        isNull(r.repliedAt),
      ),
    );
  return row ? { id: row.id, text: row.text, senderUserId: row.chat?.senderUserId ?? null, recipientId: row.recipientId } : null;
}

/** In the reply's transaction: the recipient replied, in this conversation, counted once. */
export async function recordChatCampaignReply(tx: Tx, opts: { accountId: number; campaignId: number; recipientId: number; conversationId: number }) {
  const first = await tx
    .update(r)
    .set({ repliedAt: new Date(), conversationId: opts.conversationId })
    .where(and(eq(r.accountId, opts.accountId), eq(r.id, opts.recipientId), eq(r.campaignId, opts.campaignId), isNull(r.repliedAt)))
    .returning({ id: r.id });
  if (!first.length) return false;
  await tx.insert(schema.campaignEvents).values({ accountId: opts.accountId, campaignId: opts.campaignId, recipientId: opts.recipientId, kind: 'reply', meta: { conversationId: opts.conversationId } });
  await tx.update(c).set({ repliedCount: sql`${c.repliedCount} + 1` }).where(and(eq(c.accountId, opts.accountId), eq(c.id, opts.campaignId)));
  return true;
}

/** The conversations a message campaign's replies opened (the report links them). */
export async function chatCampaignConversations(opts: { accountId: number; campaignId: number; limit?: number }) {
  return getDb()
    .select({ conversationId: r.conversationId, repliedAt: r.repliedAt, subject: schema.conversations.subject })
    .from(r)
    .innerJoin(schema.conversations, and(eq(schema.conversations.id, r.conversationId), eq(schema.conversations.accountId, r.accountId)))
    .where(and(eq(r.accountId, opts.accountId), eq(r.campaignId, opts.campaignId)))
    .orderBy(desc(r.repliedAt))
    .limit(opts.limit ?? 20);
}

/**
 * What postVisitorMessage needs to open a conversation that answers a message campaign, or null when the visitor
 * was not shown it or already replied (the message is then an ordinary first message).
 */
export async function campaignReplyOpener(opts: { visitor: WidgetVisitor; campaignId: number }) {
  const answered = await chatCampaignToAnswer(opts);
  if (!answered) return null;
  return {
    text: answered.text,
    senderUserId: answered.senderUserId,
    onOpened: (tx: Tx, conversationId: number) =>
      recordChatCampaignReply(tx, { accountId: opts.visitor.accountId, campaignId: answered.id, recipientId: answered.recipientId, conversationId }),
  };
}
