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

/** Sends one outgoing message through its channel; throws to be retried. Returns what the channel answered. */
export type ChannelDeliverer = (outgoing: OutgoingMessage) => Promise<{ externalId?: string } | void>;

const deliverers = new Map<ChannelType, ChannelDeliverer>();

/** The one registration point for channels that send (email now; SMS and social channels later). */
export function registerChannelDeliverer(channel: ChannelType, deliverer: ChannelDeliverer) {
  deliverers.set(channel, deliverer);
}

/**
 * Run by the engine for `channel.deliver`: hands the message to its inbox's channel and records the outcome.
 * A failure is recorded on the message and rethrown, so pg-boss retries with backoff.
 */
export async function deliverMessage(opts: { messageId: number }) {
  const db = getDb();
  const [row] = await db
    .select({ message: schema.messages, conversation: schema.conversations, inbox: schema.inboxes, contact: schema.contacts })
    .from(schema.messages)
    .innerJoin(schema.conversations, eq(schema.conversations.id, schema.messages.conversationId))
    .innerJoin(schema.inboxes, eq(schema.inboxes.id, schema.conversations.inboxId))
    .leftJoin(schema.contacts, eq(schema.contacts.id, schema.conversations.contactId))
    .where(and(eq(schema.messages.id, opts.messageId), eq(schema.messages.accountId, schema.conversations.accountId)));
  if (!row || row.message.kind !== 'outgoing' || row.message.deliveryStatus === 'sent' || row.message.deletedAt) return { skipped: true };
  const deliverer = deliverers.get(row.inbox.channelType);
  if (!deliverer) {
    await markDelivery({ accountId: row.message.accountId, messageId: row.message.id, conversationId: row.conversation.id, status: 'sent' });
    return { skipped: true, reason: `no deliverer for ${row.inbox.channelType}` };
  }
  try {
    const result = await deliverer(row);
    await markDelivery({ accountId: row.message.accountId, messageId: row.message.id, conversationId: row.conversation.id, status: 'sent' });
    const part = HEALTH_PART[row.inbox.channelType];
    if (part) await recordChannelSuccess({ accountId: row.inbox.accountId, inboxId: row.inbox.id, part }).catch(() => {});
    return result ?? {};
  } catch (err) {
    await markDelivery({
      accountId: row.message.accountId,
      messageId: row.message.id,
      conversationId: row.conversation.id,
      status: 'failed',
      error: (err as Error).message,
    });
    const part = HEALTH_PART[row.inbox.channelType];
    if (part && isChannelFailure((err as Error).message)) {
      await recordChannelFailure({ accountId: row.inbox.accountId, inboxId: row.inbox.id, part, error: (err as Error).message }).catch(() => {});
    }
    throw err;
  }
}

export async function markDelivery(opts: {
  accountId: number;
  messageId: number;
  conversationId: number;
  status: 'sent' | 'delivered' | 'failed';
  error?: string;
}) {
  await getDb()
    .update(schema.messages)
    .set({ deliveryStatus: opts.status, deliveryError: opts.error ?? null })
    .where(and(eq(schema.messages.id, opts.messageId), eq(schema.messages.accountId, opts.accountId)));
  await publishToAccount(opts.accountId, {
    type: 'message.updated',
    conversationId: opts.conversationId,
    messageId: opts.messageId,
    deliveryStatus: opts.status,
  });
}
