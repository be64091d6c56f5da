import { and, eq, sql } from 'drizzle-orm';
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

/** A known contact that the chosen channel cannot reach (no phone number, no website chat): the form says why. */
export class UnreachableContactError extends Error {}

export const NO_PHONE_MESSAGE = 'This contact has no phone number: add one on their page to send them an SMS';
export const NO_CHAT_MESSAGE = 'This contact has never chatted on this website chat, so there is no chat window to write to';
export const NO_CONTACT_MESSAGE = 'No contact has this email address or phone number';

/**
 * A known contact by id, or by the email address or phone number an agent typed (phone numbers compared on their
 * digits and a leading +, however they were written). Undefined when the account has none.
 */
export async function findKnownContact(opts: { accountId: number; id?: number | null; key?: string | null }) {
  const c = schema.contacts;
  const key = opts.key?.trim() ?? '';
  const digits = key.replace(/[^0-9+]/g, '');
  const where = opts.id
    ? eq(c.id, opts.id)
    : key.includes('@')
      ? sql`lower(${c.email}) = ${key.toLowerCase()}`
      : digits.replace('+', '').length >= 5
        ? sql`regexp_replace(coalesce(${c.phone}, ''), '[^0-9+]', '', 'g') = ${digits}`
        : undefined;
  if (!where) return undefined;
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), where))
    .orderBy(c.id)
    .limit(1);
  return row;
}

/** The website chats (web inboxes) where the contact has a widget session: where an agent can start a chat with them. */
export async function chatInboxesOf(opts: { accountId: number; contactId: number }) {
  const w = schema.widgetVisitors;
  return getDb()
    .selectDistinct({ id: schema.inboxes.id, name: schema.inboxes.name })
    .from(w)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, w.inboxId), eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'web')))
    .where(and(eq(w.accountId, opts.accountId), eq(w.contactId, opts.contactId)));
}

/**
 * An agent texts a known contact first: a new conversation of the SMS inbox, the agent's message leaving through the
 * inbox's provider (Twilio or the custom gateway) like any SMS reply, to the contact's phone number. Nothing is
 * created when the inbox is not an SMS inbox of the account or the contact has no phone number.
 */
export async function startSmsConversation(opts: { accountId: number; actorId: number; inboxId: number; contactId: number; message: string }) {
  return getDb().transaction(async (tx) => {
    const [inbox] = await tx
      .select()
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId), eq(schema.inboxes.channelType, 'sms')));
    if (!inbox) throw new InvalidReferenceError('Choose an SMS inbox');
    const [contact] = await tx
      .select()
      .from(schema.contacts)
      .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.contactId)));
    if (!contact) throw new InvalidReferenceError(NO_CONTACT_MESSAGE);
    if (!contact.phone?.trim()) throw new UnreachableContactError(NO_PHONE_MESSAGE);
    const provider = (inbox.settings as { provider?: string }).provider === 'custom_sms' ? 'custom_sms' : 'twilio';
    return openConversation({
      accountId: opts.accountId,
      inboxId: inbox.id,
      // The source type the inbox's incoming texts get, so the contact's answer threads the same way.
      sourceType: provider,
      subject: '',
      contact: { id: contact.id },
      message: { kind: 'outgoing', text: opts.message },
      actorUserId: opts.actorId,
      assigneeId: opts.actorId,
      tx,
    });
  });
}

/**
 * An agent starts a chat with a known contact who has a widget session on this website chat: a new conversation of
 * the web inbox whose first message is the agent's; every widget session of the contact there now shows it, at once
 * over the visitor socket when the widget is open (the web channel's delivery), else the next time it opens. Nothing
 * is created when the inbox is not a website chat of the account or the contact has no session on it.
 */
export async function startChatConversation(opts: { accountId: number; actorId: number; inboxId: number; contactId: number; message: string }) {
  return getDb().transaction(async (tx) => {
    const [inbox] = await tx
      .select({ id: schema.inboxes.id })
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId), eq(schema.inboxes.channelType, 'web')));
    if (!inbox) throw new InvalidReferenceError('Choose a website chat');
    const [contact] = await tx
      .select({ id: schema.contacts.id })
      .from(schema.contacts)
      .where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.contactId)));
    if (!contact) throw new InvalidReferenceError(NO_CONTACT_MESSAGE);
    const w = schema.widgetVisitors;
    const sessions = and(eq(w.accountId, opts.accountId), eq(w.inboxId, inbox.id), eq(w.contactId, contact.id));
    // Locked: a session the contact is chatting in right now is moved to the new chat in this transaction, not beside it.
    const visitors = await tx.select({ id: w.id }).from(w).where(sessions).for('update');
    if (visitors.length === 0) throw new UnreachableContactError(NO_CHAT_MESSAGE);
    const opened = await openConversation({
      accountId: opts.accountId,
      inboxId: inbox.id,
      sourceType: 'web',
      subject: '',
      contact: { id: contact.id },
      message: { kind: 'outgoing', text: opts.message },
      actorUserId: opts.actorId,
      assigneeId: opts.actorId,
      tx,
    });
    // Before the commit: the delivery job and the socket read which sessions chat in it.
    await tx.update(w).set({ conversationId: opened.conversation.id }).where(sessions);
    return opened;
  });
}
