import { isAccountSuspended, suspendedResponse } from '../accounts/suspension.server';
import { applySmsKeyword } from '../campaigns/sms-opt-out.server';
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { ChannelType, SourceType } from '../../../db/schema/inbox';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { findOrCreateContact } from '../contacts/contacts.server';
import { openConversation, setConversationStatus } from '../inbox/conversations.server';
import type { Inbox } from '../inbox/inboxes.server';
import { addMessage } from '../inbox/messages.server';
import { markDelivery } from './delivery.server';
import { FEATURE_DENIED_MESSAGE } from '../plans/catalogue';
import { planAllows } from '../plans/enforce.server';

/**
 * How a message from an SMS or social channel becomes part of a conversation (ADR 020): one function for Twilio,
 * custom SMS, Facebook, X and Google Business payloads once their webhook has checked the provider's signature.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** Longest text kept from one channel message (an SMS is at most 1,600 characters; DMs 10,000). */
export const MAX_CHANNEL_TEXT = 10_000;

export type ChannelSender = { phone: string; name?: string | null } | { identity: { channel: string; externalId: string }; name?: string | null };

export type ChannelIngestResult =
  | { status: 'created' | 'threaded'; conversationId: number; messageId: number }
  | { status: 'duplicate'; conversationId: number };

/** The SMS settings that decide threading, assignment and auto-resolve; social inboxes use the defaults. */
export function conversationRules(inbox: Inbox) {
  const s = inbox.settings as { threadingInterval?: unknown; autoResolvedDays?: unknown; assigneeIds?: unknown };
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  return {
    threadingIntervalDays: num(s.threadingInterval),
    autoResolvedDays: num(s.autoResolvedDays),
    assigneeIds: Array.isArray(s.assigneeIds) ? s.assigneeIds.filter((x): x is number => typeof x === 'number') : [],
  };
}

/**
 * The inbox of a webhook's id, when it is of that channel. Webhooks name their inbox in the URL and prove who
 * they are by a signature with the inbox's secret: this is the one lookup not scoped by an account.
 */
export async function findChannelInbox(id: number, channelType: ChannelType) {
  const [row] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.id, id), eq(schema.inboxes.channelType, channelType)));
  return row;
}

/** Of the inbox's assignees still active in the account, the one with the fewest open conversations there (first listed on a tie). */
async function pickAssignee(tx: Tx, inbox: Inbox, assigneeIds: number[]) {
  if (assigneeIds.length === 0) return null;
  const active = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, inbox.accountId), inArray(schema.users.id, assigneeIds), eq(schema.users.status, 'active')));
  const ids = assigneeIds.filter((id) => active.some((a) => a.id === id));
  if (ids.length === 0) return null;
  const loads = await tx
    .select({ assigneeId: schema.conversations.assigneeId, n: count() })
    .from(schema.conversations)
    .where(
      and(
        eq(schema.conversations.accountId, inbox.accountId),
        eq(schema.conversations.inboxId, inbox.id),
        inArray(schema.conversations.assigneeId, ids),
        inArray(schema.conversations.status, ['open', 'pending']),
        isNull(schema.conversations.deletedAt),
      ),
    )
    .groupBy(schema.conversations.assigneeId);
  const load = (id: number) => loads.find((l) => l.assigneeId === id)?.n ?? 0;
  return ids.reduce((best, id) => (load(id) < load(best) ? id : best), ids[0]);
}

/** The auto-resolve timer of a conversation, due when it will have been quiet for the inbox's days (none when 0). */
export async function scheduleAutoResolve(tx: Tx, opts: { inbox: Inbox; conversationId: number; lastActivityAt: Date }) {
  const { autoResolvedDays } = conversationRules(opts.inbox);
  if (autoResolvedDays <= 0) return null;
  const at = new Date(opts.lastActivityAt.getTime() + autoResolvedDays * DAY_MS);
  await enqueueInTx(tx, QUEUES.channelAutoResolve, { accountId: opts.inbox.accountId, conversationId: opts.conversationId }, { startAfter: at });
  return at;
}

/**
 * The auto-resolve timer: resolves the conversation if nothing was said in it for the inbox's days. A message
 * since then scheduled a later timer of its own, so an early one simply does nothing.
 */
export async function autoResolveConversation(opts: { accountId: number; conversationId: number; now?: Date }) {
  const now = opts.now ?? new Date();
  const [row] = await getDb()
    .select({ conversation: schema.conversations, inbox: schema.inboxes })
    .from(schema.conversations)
    .innerJoin(schema.inboxes, eq(schema.inboxes.id, schema.conversations.inboxId))
    .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
  if (!row || row.conversation.deletedAt || row.conversation.status === 'resolved') return { resolved: false };
  const { autoResolvedDays } = conversationRules(row.inbox);
  if (autoResolvedDays <= 0) return { resolved: false };
  // One second of slack: pg-boss may start the job a moment before its time.
  if (row.conversation.lastMessageAt.getTime() + autoResolvedDays * DAY_MS > now.getTime() + 1000) return { resolved: false };
  const changed = await setConversationStatus({ accountId: opts.accountId, actorId: null, ids: [row.conversation.id], status: 'resolved' });
  return { resolved: changed.length > 0 };
}

/**
 * Adds an incoming channel message: drops a redelivered one (same provider id in this inbox), continues the
 * sender's last conversation in the inbox unless its last message is older than the threading interval (0 =
 * Never: always continue), else opens a new one assigned among the inbox's assignees; then arms auto-resolve.
 */
export async function ingestChannelMessage(opts: {
  inbox: Inbox;
  sourceType: SourceType;
  sender: ChannelSender;
  text: string;
  externalId: string;
  receivedAt?: Date;
}): Promise<ChannelIngestResult> {
  const { inbox } = opts;
  const rules = conversationRules(inbox);
  const text = opts.text.slice(0, MAX_CHANNEL_TEXT);
  const senderKey = 'phone' in opts.sender ? `phone:${opts.sender.phone}` : `${opts.sender.identity.channel}:${opts.sender.identity.externalId}`;
  return getDb().transaction(async (tx) => {
    // One sender's messages are threaded one at a time, and a redelivery waits for the first delivery to commit.
    await tx.execute(sql`select pg_advisory_xact_lock(${inbox.accountId}, hashtext(${`channel:${inbox.id}:${senderKey}`}))`);
    const [dup] = await tx
      .select({ conversationId: schema.messages.conversationId })
      .from(schema.messages)
      .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
      .where(and(eq(schema.messages.accountId, inbox.accountId), eq(schema.messages.externalId, opts.externalId), eq(schema.conversations.inboxId, inbox.id)))
      .limit(1);
    if (dup) return { status: 'duplicate', conversationId: dup.conversationId };

    const contactInput =
      'phone' in opts.sender ? { phone: opts.sender.phone, name: opts.sender.name } : { identity: opts.sender.identity, name: opts.sender.name };
    const { contact } = await findOrCreateContact(tx, { accountId: inbox.accountId, ...contactInput, source: opts.sourceType });
    const [last] = await tx
      .select({ id: schema.conversations.id, lastMessageAt: schema.conversations.lastMessageAt })
      .from(schema.conversations)
      .where(
        and(
          eq(schema.conversations.accountId, inbox.accountId),
          eq(schema.conversations.inboxId, inbox.id),
          eq(schema.conversations.contactId, contact.id),
          isNull(schema.conversations.deletedAt),
        ),
      )
      .orderBy(desc(schema.conversations.lastMessageAt), desc(schema.conversations.id))
      .limit(1);
    const now = opts.receivedAt ?? new Date();
    const continues = last && (rules.threadingIntervalDays === 0 || now.getTime() - last.lastMessageAt.getTime() <= rules.threadingIntervalDays * DAY_MS);

    let result: ChannelIngestResult;
    if (continues) {
      const message = await addMessage(tx, {
        accountId: inbox.accountId,
        conversationId: last.id,
        kind: 'incoming',
        text,
        senderContactId: contact.id,
        createdAt: opts.receivedAt,
      });
      result = { status: 'threaded', conversationId: last.id, messageId: message.id };
    } else {
      const opened = await openConversation({
        tx,
        accountId: inbox.accountId,
        inboxId: inbox.id,
        sourceType: opts.sourceType,
        subject: '',
        contact: contactInput,
        message: { kind: 'incoming', text, createdAt: opts.receivedAt },
        assigneeId: await pickAssignee(tx, inbox, rules.assigneeIds),
      });
      result = { status: 'created', conversationId: opened.conversation.id, messageId: opened.message.id };
    }
    await setExternalId(tx, { accountId: inbox.accountId, messageId: result.messageId, externalId: opts.externalId });
    // STOP and START from a phone: campaign opt-out, recorded with the message (ADR 066).
    if (inbox.channelType === 'sms' && 'phone' in opts.sender) await applySmsKeyword(tx, { accountId: inbox.accountId, phone: opts.sender.phone, text });
    await scheduleAutoResolve(tx, { inbox, conversationId: result.conversationId, lastActivityAt: now });
    return result;
  });
}

export async function setExternalId(tx: Tx, opts: { accountId: number; messageId: number; externalId: string }) {
  await tx
    .update(schema.messages)
    .set({ externalId: opts.externalId.slice(0, 200) })
    .where(and(eq(schema.messages.id, opts.messageId), eq(schema.messages.accountId, opts.accountId)));
}

/**
 * After a reply left through a channel: records the provider's id (status callbacks find the message by it) and
 * arms auto-resolve from the reply's time.
 */
export async function recordChannelSend(opts: { inbox: Inbox; messageId: number; conversationId: number; externalId: string | null }) {
  await getDb().transaction(async (tx) => {
    if (opts.externalId) await setExternalId(tx, { accountId: opts.inbox.accountId, messageId: opts.messageId, externalId: opts.externalId });
    await scheduleAutoResolve(tx, { inbox: opts.inbox, conversationId: opts.conversationId, lastActivityAt: new Date() });
  });
}

/** The channel identity (Facebook PSID, X user id…) of a conversation's contact, the address a reply goes to. */
export async function contactIdentityOf(opts: { accountId: number; contactId: number | null; channel: string }) {
  if (!opts.contactId) return null;
  const [row] = await getDb()
    .select({ externalId: schema.contactIdentities.externalId })
    .from(schema.contactIdentities)
    .where(
      and(
        eq(schema.contactIdentities.accountId, opts.accountId),
        eq(schema.contactIdentities.contactId, opts.contactId),
        eq(schema.contactIdentities.channel, opts.channel),
      ),
    )
    .orderBy(asc(schema.contactIdentities.createdAt))
    .limit(1);
  return row?.externalId ?? null;
}

const STATUS_RANK = { queued: 0, sent: 1, delivered: 2, failed: 2 } as const;

/**
 * A provider's delivery report for a message this inbox sent (found by the provider's id). A late "sent" never
 * undoes "delivered". Returns false when no such message exists.
 */
export async function applyDeliveryReport(opts: { inbox: Inbox; externalId: string; status: 'sent' | 'delivered' | 'failed'; error?: string }) {
  const [row] = await getDb()
    .select({ id: schema.messages.id, conversationId: schema.messages.conversationId, deliveryStatus: schema.messages.deliveryStatus })
    .from(schema.messages)
    .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
    .where(
      and(
        eq(schema.messages.accountId, opts.inbox.accountId),
        eq(schema.messages.externalId, opts.externalId),
        eq(schema.messages.kind, 'outgoing'),
        eq(schema.conversations.inboxId, opts.inbox.id),
      ),
    )
    .limit(1);
  if (!row) return false;
  if (row.deliveryStatus && row.deliveryStatus !== 'queued' && STATUS_RANK[opts.status] < STATUS_RANK[row.deliveryStatus]) return true;
  await markDelivery({ accountId: opts.inbox.accountId, messageId: row.id, conversationId: row.conversationId, status: opts.status, error: opts.error });
  return true;
}

/** Largest webhook body accepted from a provider: their payloads are a few kilobytes. */
export const MAX_WEBHOOK_BYTES = 256 * 1024;

export class WebhookBodyTooLarge extends Error {}

/** Reads a webhook's raw body (signatures are over the exact bytes), refusing more than MAX_WEBHOOK_BYTES. */
export async function readWebhookBody(request: Request, max = MAX_WEBHOOK_BYTES) {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > max) throw new WebhookBodyTooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new WebhookBodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A route parameter naming an inbox, or null (the webhook answers 404). */
export function webhookInboxId(param: string | undefined) {
  if (!param || !/^\d{1,10}$/.test(param)) return null;
  const n = Number(param);
  return n >= 1 && n <= 2_147_483_647 ? n : null;
}

/**
 * How every channel webhook starts: the inbox its URL names (of that channel, and accepted by `accept`), and its
 * raw body within MAX_WEBHOOK_BYTES — or the 404 / 413 answer to send instead.
 */
export async function openWebhook(
  request: Request,
  param: string | undefined,
  channelType: ChannelType,
  accept: (inbox: Inbox) => boolean = () => true,
): Promise<{ inbox: Inbox; raw: string } | { response: Response }> {
  const id = webhookInboxId(param);
  const inbox = id === null ? undefined : await findChannelInbox(id, channelType);
  if (!inbox || !accept(inbox)) return { response: plainResponse(404, 'Not Found') };
  // A suspended account (ADR 152): a temporary refusal, so the provider keeps the message and retries it.
  if (await isAccountSuspended(inbox.accountId)) return { response: suspendedResponse() };
  // The plan (ADR 157): every provider's channel needs channels/enabled, SMS channels/sms as well. The provider gets
  // a 403 with the reason (a final refusal: the plan, unlike a suspension, is not a passing state) and the inbox keeps
  // everything it already holds.
  if (!(await planAllows({ accountId: inbox.accountId, key: channelType === 'sms' ? 'channels/sms' : 'channels/enabled' })))
    return { response: plainResponse(403, FEATURE_DENIED_MESSAGE) };
  try {
    return { inbox, raw: await readWebhookBody(request) };
  } catch (err) {
    if (err instanceof WebhookBodyTooLarge) return { response: plainResponse(413, 'Payload Too Large') };
    throw err;
  }
}

/** A webhook's JSON body, or the 400 to answer when it is not JSON. */
export function parseWebhookJson(raw: string): { json: unknown } | { response: Response } {
  try {
    return { json: JSON.parse(raw) as unknown };
  } catch {
    return { response: plainResponse(400, 'The body must be JSON') };
  }
}

export function plainResponse(status: number, text: string, headers: Record<string, string> = {}) {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}
