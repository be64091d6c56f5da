import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { builtOnce, getDb, schema, type Tx } from '../../../db/client';
import type { EmailHeaders } from '../../../db/schema/inbox';
import { emitEvent } from '../events/events.server';
import { publishToAccount } from '../../utils/live.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { mentionTokens } from '../notifications/mentions';

export type Message = typeof schema.messages.$inferSelect;
export type MessageKind = Message['kind'];

export const THREAD_WINDOW = 50;

export function previewOf(text: string) {
  return text.replace(/\s+/g, ' ').trim().slice(0, 160);
}

/**
 * Appends a message to a conversation in the caller's transaction: updates the conversation's last-message
 * fields (an incoming message reopens a resolved or snoozed conversation), records `message_created`, queues
 * an outgoing message for its channel, and tells connected agents at commit.
 */
export async function addMessage(
  tx: Tx,
  opts: {
    accountId: number;
    conversationId: number;
    kind: MessageKind;
    text: string;
    html?: string | null;
    senderUserId?: number | null;
    senderContactId?: number | null;
    email?: EmailHeaders | null;
    emailMessageId?: string | null;
    /** The channel's own id of the message (a provider's id, the widget's idempotency key). */
    externalId?: string | null;
    fromTrustedDomain?: boolean;
    createdAt?: Date;
    causedByEventId?: number;
    /** Written by this automation rule (the event's actor is then the engine). */
    engineRuleId?: number;
    /** Written by this chatbot (ADR 075): shown in the chat as it is written, so nothing is queued for delivery. */
    botId?: number;
  },
) {
  const [message] = await tx
    .insert(schema.messages)
    .values({
      accountId: opts.accountId,
      conversationId: opts.conversationId,
      kind: opts.kind,
      text: opts.text,
      html: opts.html ?? null,
      senderUserId: opts.senderUserId ?? null,
      senderContactId: opts.senderContactId ?? null,
      email: opts.email ?? null,
      emailMessageId: opts.emailMessageId ?? opts.email?.messageId ?? null,
      ...(opts.externalId ? { externalId: opts.externalId } : {}),
      deliveryStatus: opts.kind === 'outgoing' ? (opts.botId ? 'sent' : 'queued') : null,
      deliveredVia: opts.botId ? 'widget' : null,
      botId: opts.botId ?? null,
      fromTrustedDomain: opts.fromTrustedDomain ?? false,
      ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
    })
    .returning();
  const visible = opts.kind === 'incoming' || opts.kind === 'outgoing';
  await tx
    .update(schema.conversations)
    .set({
      messageCount: sql`${schema.conversations.messageCount} + 1`,
      ...(opts.kind !== 'system' ? { search: sql`strip(coalesce(${schema.conversations.search}, ''::tsvector) || to_tsvector('simple', ${opts.text}))` } : {}),
      ...(visible ? { lastMessageAt: message.createdAt, lastMessagePreview: previewOf(opts.text) } : {}),
      ...(opts.kind === 'incoming'
        ? { status: sql`case when ${schema.conversations.status} in ('resolved', 'snoozed') then 'open' else ${schema.conversations.status} end`, snoozedUntil: null }
        : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(schema.conversations.id, opts.conversationId), eq(schema.conversations.accountId, opts.accountId)));
  if (opts.kind !== 'system') {
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'message_created',
      subjectType: 'conversation',
      subjectId: opts.conversationId,
      // Whether a note has @words: the engine queues a note only when it may mention someone (ADR 043).
      payload: { messageId: message.id, kind: opts.kind, ...(opts.kind === 'note' ? { mentions: mentionTokens(opts.text).length > 0 } : {}) },
      actor: opts.senderUserId
        ? { type: 'user', id: opts.senderUserId }
        : opts.senderContactId
          ? { type: 'contact', id: opts.senderContactId }
          : opts.causedByEventId && opts.engineRuleId !== undefined
            ? { type: 'engine', id: opts.engineRuleId }
            : { type: 'system' },
      causedByEventId: opts.causedByEventId,
    });
  }
  if (opts.kind === 'outgoing' && !opts.botId) await enqueueInTx(tx, QUEUES.channelDeliver, { messageId: message.id });
  await publishToAccount(opts.accountId, { type: 'message.created', conversationId: opts.conversationId, messageId: message.id, kind: opts.kind }, { tx });
  return message;
}

/**
 * Rebuilds the search words of conversations from their subject and remaining messages: after a merge,
 * a split, an edit or a deletion changed which text belongs where.
 */
export async function refreshConversationSearch(tx: Tx, opts: { accountId: number; conversationIds: number[] }) {
  if (opts.conversationIds.length === 0) return;
  await tx.execute(sql`
    update ${schema.conversations} c
    set search = strip(to_tsvector('simple', c.subject || ' ' || coalesce((
      select concat_ws(' ', ct.first_name, ct.last_name, ct.email, translate(coalesce(ct.email, ''), '@.+_-', '     '), ct.phone)
      from ${schema.contacts} ct where ct.id = c.contact_id and ct.account_id = ${opts.accountId}
    ), '')) || coalesce((
      select to_tsvector('simple', string_agg(m.text, ' '))
      from ${schema.messages} m
      where m.conversation_id = c.id and m.account_id = ${opts.accountId} and m.deleted_at is null and m.kind <> 'system'
    ), ''::tsvector))
    where c.account_id = ${opts.accountId} and c.id in ${sql.raw(`(${opts.conversationIds.map(Number).join(',')})`)}`);
}

/** A window of the thread, oldest first: the newest THREAD_WINDOW messages, or those before a given id. */
/** The thread's newest messages before an id (the largest safe integer when none), built once (ADR 136). */
const threadQuery = () =>
  builtOnce('thread', (db) => {
    const accountId = sql.placeholder('accountId');
    return db
      .select({
        message: schema.messages,
        userFirstName: schema.users.firstName,
        userLastName: schema.users.lastName,
        contactFirstName: schema.contacts.firstName,
        contactLastName: schema.contacts.lastName,
        contactEmail: schema.contacts.email,
        botName: schema.chatbots.name,
      })
      .from(schema.messages)
      .leftJoin(schema.users, eq(schema.users.id, schema.messages.senderUserId))
      .leftJoin(schema.contacts, eq(schema.contacts.id, schema.messages.senderContactId))
      .leftJoin(schema.chatbots, and(eq(schema.chatbots.id, schema.messages.botId), eq(schema.chatbots.accountId, accountId)))
      .where(
        and(
          eq(schema.messages.accountId, accountId),
          eq(schema.messages.conversationId, sql.placeholder('conversationId')),
          isNull(schema.messages.deletedAt),
          lt(schema.messages.id, sql.placeholder('before')),
        ),
      )
      .orderBy(desc(schema.messages.id))
      .limit(sql.placeholder('limit'))
      .prepare('thread');
  });

export async function listThread(opts: { accountId: number; conversationId: number; before?: number; limit?: number }) {
  const limit = opts.limit ?? THREAD_WINDOW;
  const rows = await threadQuery().execute({ accountId: opts.accountId, conversationId: opts.conversationId, before: opts.before ?? Number.MAX_SAFE_INTEGER, limit: limit + 1 });
  const hasOlder = rows.length > limit;
  return { messages: rows.slice(0, limit).reverse(), hasOlder };
}

export async function getMessage(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.messages)
    .where(and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.id, opts.id), isNull(schema.messages.deletedAt)));
  return row;
}

/** Refused edit: the message already left for a place where the customer keeps the original. */
export class MessageNotEditableError extends Error {}

/**
 * Whether a message can still be edited (ADR 033): notes always; a reply only while it lives in the web chat (the
 * widget shows the edit). A reply that left by email, SMS or a social channel is the customer's copy now.
 */
export function isMessageEditable(m: { kind: MessageKind; deliveredVia: string | null }, conversation: { sourceType: string }) {
  if (m.kind === 'note') return true;
  if (m.kind !== 'outgoing') return false;
  return conversation.sourceType === 'web' && (m.deliveredVia === null || m.deliveredVia === 'widget');
}

const LEFT_BY: Record<string, string> = { email: 'email', sms: 'SMS', facebook: 'Facebook', twitter: 'X (Twitter)' };

/** Agents may edit their own replies and notes while they are editable; the edit is recorded. */
export async function editMessage(opts: { accountId: number; actorId: number; id: number; text: string }) {
  return getDb().transaction(async (tx) => {
    const [current] = await tx
      .select({ kind: schema.messages.kind, deliveredVia: schema.messages.deliveredVia, sourceType: schema.conversations.sourceType })
      .from(schema.messages)
      .innerJoin(schema.conversations, and(eq(schema.conversations.id, schema.messages.conversationId), eq(schema.conversations.accountId, opts.accountId)))
      .where(and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.id, opts.id)))
      // The delivery job waits for the edit (or the edit for the job): a reply never leaves half-edited.
      .for('update', { of: schema.messages });
    if (current && current.kind === 'outgoing' && !isMessageEditable(current, current)) {
      const road = LEFT_BY[current.deliveredVia ?? ''] ?? LEFT_BY[current.sourceType] ?? 'its channel';
      throw new MessageNotEditableError(`This reply has left by ${road}: the customer has the original, so it can no longer be edited`);
    }
    const [message] = await tx
      .update(schema.messages)
      .set({ text: opts.text, html: null, editedAt: new Date() })
      .where(
        and(
          eq(schema.messages.accountId, opts.accountId),
          eq(schema.messages.id, opts.id),
          eq(schema.messages.senderUserId, opts.actorId),
          isNull(schema.messages.deletedAt),
          sql`${schema.messages.kind} in ('outgoing', 'note')`,
        ),
      )
      .returning();
    if (!message) return undefined;
    await refreshConversationSearch(tx, { accountId: opts.accountId, conversationIds: [message.conversationId] });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'message_updated',
      subjectType: 'conversation',
      subjectId: message.conversationId,
      payload: { messageId: message.id },
      actor: { type: 'user', id: opts.actorId },
    });
    await publishToAccount(opts.accountId, { type: 'message.updated', conversationId: message.conversationId, messageId: message.id, edited: true }, { tx });
    return message;
  });
}

/** Deletes a message or a note (soft: the thread keeps its place, the text is gone from view). */
export async function deleteMessage(opts: { accountId: number; actorId: number; id: number; kind?: 'note' | 'message' }) {
  return getDb().transaction(async (tx) => {
    const [message] = await tx
      .update(schema.messages)
      .set({ deletedAt: new Date() })
      .where(
        and(
          eq(schema.messages.accountId, opts.accountId),
          eq(schema.messages.id, opts.id),
          isNull(schema.messages.deletedAt),
          opts.kind === 'note' ? eq(schema.messages.kind, 'note') : sql`${schema.messages.kind} <> 'system'`,
        ),
      )
      .returning();
    if (!message) return undefined;
    await tx
      .update(schema.conversations)
      .set({ messageCount: sql`greatest(${schema.conversations.messageCount} - 1, 0)` })
      .where(and(eq(schema.conversations.id, message.conversationId), eq(schema.conversations.accountId, opts.accountId)));
    await refreshConversationSearch(tx, { accountId: opts.accountId, conversationIds: [message.conversationId] });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'message_deleted',
      subjectType: 'conversation',
      subjectId: message.conversationId,
      payload: { messageId: message.id, kind: message.kind },
      actor: { type: 'user', id: opts.actorId },
    });
    await publishToAccount(opts.accountId, { type: 'message.deleted', conversationId: message.conversationId, messageId: message.id }, { tx });
    return message;
  });
}
