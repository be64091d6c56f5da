import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import type { Cause } from '../events/events.server';
import { openConversation } from './conversations.server';

/**
 * Conversations opened for something that is not a message (a review, an anonymous survey answer) so that a team
 * can act on it (ADR 149). The conversation's first message carries the thing's words and a link key in the
 * message's external id (`review:12`, `survey-response:34`): the key finds the conversation again, so a second
 * action, rule or delivery reuses it instead of opening another. No column of its own: the messages' external-id
 * index answers the lookup.
 */
export type LinkKey = `review:${number}` | `survey-response:${number}`;

/** The live (not deleted) conversation opened for this key, if any. */
export async function findLinkedConversationId(db: Pick<Tx, 'select'>, opts: { accountId: number; key: LinkKey }): Promise<number | null> {
  const m = schema.messages;
  const c = schema.conversations;
  const [row] = await db
    .select({ id: c.id })
    .from(m)
    .innerJoin(c, and(eq(c.id, m.conversationId), eq(c.accountId, opts.accountId)))
    .where(and(eq(m.accountId, opts.accountId), eq(m.externalId, opts.key), isNull(c.deletedAt), isNull(m.deletedAt)))
    .orderBy(asc(c.id))
    .limit(1);
  return row ? row.id : null;
}

/** Why a linked conversation cannot be opened: the action that needed it is skipped with this reason. */
export class NoLinkedConversation extends Error {}

/**
 * The account's inbox a linked conversation opens in: the one asked for when it is the account's, else the oldest
 * internal inbox, else the oldest inbox. None: NoLinkedConversation.
 */
async function inboxFor(tx: Tx, opts: { accountId: number; preferred?: number | null }) {
  const i = schema.inboxes;
  const [row] = await tx
    .select({ id: i.id })
    .from(i)
    .where(eq(i.accountId, opts.accountId))
    .orderBy(sql`${i.id} = ${opts.preferred ?? 0} desc`, sql`${i.channelType} = 'internal' desc`, asc(i.id))
    .limit(1);
  if (!row) throw new NoLinkedConversation('the account has no inbox to open the conversation in');
  return row.id;
}

/**
 * Finds the conversation opened for `key`, or opens it (an internal ticket whose first message, from the contact,
 * is `text`), inside the caller's transaction. Answers its id and whether it was opened now.
 */
export async function findOrOpenLinkedConversation(
  tx: Tx,
  opts: {
    accountId: number;
    key: LinkKey;
    subject: string;
    text: string;
    contact: { id?: number | null; name?: string | null; identity?: { channel: string; externalId: string } | null };
    inboxId?: number | null;
    cause?: Cause;
  },
): Promise<{ conversationId: number; contactId: number | null; opened: boolean }> {
  const found = await findLinkedConversationId(tx, opts);
  if (found) {
    const [c] = await tx
      .select({ contactId: schema.conversations.contactId })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, found)));
    return { conversationId: found, contactId: c?.contactId ?? null, opened: false };
  }
  const inboxId = await inboxFor(tx, { accountId: opts.accountId, preferred: opts.inboxId });
  const opened = await openConversation({
    accountId: opts.accountId,
    inboxId,
    sourceType: 'internal_ticket',
    subject: opts.subject,
    contact: opts.contact,
    message: { kind: 'incoming', text: opts.text, externalId: opts.key },
    cause: opts.cause,
    tx,
  });
  return { conversationId: opened.conversation.id, contactId: opened.contact.id, opened: true };
}
