import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { InvalidReferenceError, openConversation } from './conversations.server';
import { addMessage } from './messages.server';

/**
 * A new internal ticket (POST conversation/ticket): an agent opens a conversation on behalf of a contact. The
 * message is the contact's request as the agent took it down, so nothing is sent to the contact; the thread
 * says who opened it.
 */
export async function openInternalTicket(opts: {
  accountId: number;
  actorId: number;
  inboxId: number;
  contact: { email: string; name?: string | null };
  subject: string;
  message: string;
}) {
  return getDb().transaction(async (tx) => {
    const opened = await openConversation({
      accountId: opts.accountId,
      inboxId: opts.inboxId,
      sourceType: 'internal_ticket',
      subject: opts.subject,
      contact: { email: opts.contact.email, name: opts.contact.name || null },
      message: { kind: 'incoming', text: opts.message },
      actorUserId: opts.actorId,
      tx,
    });
    const [actor] = await tx
      .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
      .from(schema.users)
      .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.id, opts.actorId)));
    const by = actor ? `${actor.firstName} ${actor.lastName}`.trim() : 'an agent';
    await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: opened.conversation.id,
      kind: 'system',
      text: `Ticket created by ${by}`,
      senderUserId: opts.actorId,
    });
    return opened;
  });
}

/**
 * An agent writes first (ADR 035): a new email conversation with a contact, from one of the account's email
 * inboxes. The message is the agent's, so it leaves by email like any reply; the conversation is theirs.
 */
export async function startEmailConversation(opts: {
  accountId: number;
  actorId: number;
  inboxId: number;
  contact: { email: string; name?: string | null };
  subject: string;
  message: string;
}) {
  return getDb().transaction(async (tx) => {
    const [inbox] = await tx
      .select({ id: schema.inboxes.id })
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId), eq(schema.inboxes.channelType, 'email')));
    if (!inbox) throw new InvalidReferenceError('Choose an email inbox');
    return openConversation({
      accountId: opts.accountId,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: opts.subject,
      contact: { email: opts.contact.email, name: opts.contact.name || null },
      message: { kind: 'outgoing', text: opts.message },
      actorUserId: opts.actorId,
      assigneeId: opts.actorId,
      tx,
    });
  });
}
