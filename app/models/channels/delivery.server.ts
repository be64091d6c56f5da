import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import type { ChannelType } from '../../../db/schema/inbox';
import type { ChannelPart } from '../../../db/schema/channels';
import { publishToAccount } from '../../utils/live.server';
import { recordChannelFailure, recordChannelSuccess } from './health.server';

/** The health part of each channel whose deliverer talks to a provider (email records its own, per server). */
const HEALTH_PART: Partial<Record<ChannelType, ChannelPart>> = { sms: 'sms', facebook: 'facebook', twitter: 'twitter' };

/**
 * Whether a delivery error is about the channel (provider unreachable, credentials refused, provider down)
 * rather than about this one message (a bad number, a contact without an id): only those change its health.
 */
function isChannelFailure(message: string) {
  return /could not be reached|answered (401|403|429|5\d\d)\b/.test(message);
}

export type OutgoingMessage = {
  message: typeof schema.messages.$inferSelect;
  conversation: typeof schema.conversations.$inferSelect;
  inbox: typeof schema.inboxes.$inferSelect;
  contact: typeof schema.contacts.$inferSelect | null;
};

/**
 * What a channel answered: the provider's id, the road the message took (`via`, default the channel's name), or
 * `deferred` when it will leave later by another job (a web-chat reply waiting for its visitor, ADR 033).
 */
export type DeliveryResult = { externalId?: string; via?: string; deferred?: boolean };

/** Sends one outgoing message through its channel; throws to be retried, throws DeliveryRefused to fail for good. */
export type ChannelDeliverer = (outgoing: OutgoingMessage) => Promise<DeliveryResult | void>;

/** A failure that no retry can mend (no address to send to, no way to send): the message is failed at once. */
export class DeliveryRefused extends Error {}

/** The road a delivery takes: a channel's own deliverer, by name. 'email' also carries the channels without one. */
export type DeliveryPath = ChannelType;

const deliverers = new Map<DeliveryPath, ChannelDeliverer>();

/** The one registration point for channels that send (email, web chat, SMS, social channels). */
export function registerChannelDeliverer(channel: DeliveryPath, deliverer: ChannelDeliverer) {
  deliverers.set(channel, deliverer);
}

/**
 * Which deliverer sends a conversation's replies. Conversations opened by a form (contact form, the offline
 * widget), internal tickets and contact-form inboxes have no sender of their own: their replies go by email, from
 * the inbox's sender, threaded so the answer comes back (ADR 033).
 */
export function deliveryPathOf(outgoing: Pick<OutgoingMessage, 'conversation' | 'inbox'>): DeliveryPath {
  const { conversation, inbox } = outgoing;
  if (['email', 'support_form', 'support_widget', 'internal_ticket'].includes(conversation.sourceType)) return 'email';
  if (inbox.channelType === 'contact_form' || inbox.channelType === 'internal') return 'email';
  return inbox.channelType;
}

/** The message with its conversation, inbox and contact, scoped by the message's account. */
export async function loadOutgoing(messageId: number): Promise<OutgoingMessage | undefined> {
  const [row] = await getDb()
    .select({ message: schema.messages, conversation: schema.conversations, inbox: schema.inboxes, contact: schema.contacts })
    .from(schema.messages)
    .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, schema.conversations.inboxId), eq(schema.inboxes.accountId, schema.conversations.accountId)))
    .leftJoin(schema.contacts, and(eq(schema.contacts.id, schema.conversations.contactId), eq(schema.contacts.accountId, schema.conversations.accountId)))
    .where(and(eq(schema.messages.id, messageId), eq(schema.messages.accountId, schema.conversations.accountId)));
  return row;
}

/**
 * Run by the engine for `channel.deliver`: hands the message to the deliverer of its conversation and records the
 * outcome. Nothing is marked sent without a deliverer having acted: no deliverer, or a refusal, fails the message
 * with its reason; any other failure is recorded and rethrown, so pg-boss retries with backoff.
 */
export async function deliverMessage(opts: { messageId: number; path?: DeliveryPath }) {
  const row = await loadOutgoing(opts.messageId);
  if (!row || row.message.kind !== 'outgoing' || row.message.deliveryStatus === 'sent' || row.message.deliveryStatus === 'delivered' || row.message.deletedAt) {
    return { skipped: true };
  }
  const path = opts.path ?? deliveryPathOf(row);
  const base = { accountId: row.message.accountId, messageId: row.message.id, conversationId: row.conversation.id };
  const deliverer = deliverers.get(path);
  if (!deliverer) {
    const error = `Not sent: Parley has no way to send messages of ${row.inbox.channelType.replace('_', ' ')} inboxes`;
    await markDelivery({ ...base, status: 'failed', error });
    return { failed: true, reason: error };
  }
  try {
    const result = (await deliverer(row)) ?? {};
    if (result.deferred) return result;
    await markDelivery({ ...base, status: 'sent', via: result.via ?? path });
    const part = HEALTH_PART[row.inbox.channelType];
    if (part) await recordChannelSuccess({ accountId: row.inbox.accountId, inboxId: row.inbox.id, part }).catch(() => {});
    return result;
  } catch (err) {
    await markDelivery({ ...base, status: 'failed', error: (err as Error).message.slice(0, 500) });
    const part = HEALTH_PART[row.inbox.channelType];
    if (part && isChannelFailure((err as Error).message)) {
      await recordChannelFailure({ accountId: row.inbox.accountId, inboxId: row.inbox.id, part, error: (err as Error).message }).catch(() => {});
    }
    if (err instanceof DeliveryRefused) return { failed: true, reason: err.message };
    throw err;
  }
}

export async function markDelivery(opts: {
  accountId: number;
  messageId: number;
  conversationId: number;
  status: 'queued' | 'sent' | 'delivered' | 'failed';
  error?: string;
  via?: string;
}) {
  await getDb()
    .update(schema.messages)
    .set({
      deliveryStatus: opts.status,
      deliveryError: opts.error ?? null,
      ...(opts.via ? { deliveredVia: opts.via } : {}),
    })
    .where(and(eq(schema.messages.id, opts.messageId), eq(schema.messages.accountId, opts.accountId)));
  await publishToAccount(opts.accountId, {
    type: 'message.updated',
    conversationId: opts.conversationId,
    messageId: opts.messageId,
    deliveryStatus: opts.status,
  });
}
