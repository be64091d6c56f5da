import { and, desc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { addMessage } from '../inbox/messages.server';
import { setConversationStatus } from '../inbox/conversations.server';
import type { ProviderId } from './providers';

/** Issues and tasks linked to conversations (GitHub, Asana, ClickUp; ADR 080). */
const l = schema.integrationLinks;

export async function listConversationLinks(opts: { accountId: number; conversationId: number; provider?: ProviderId }) {
  return getDb()
    .select({ id: l.id, provider: l.provider, externalId: l.externalId, title: l.title, url: l.url, status: l.status, reopenOnClose: l.reopenOnClose })
    .from(l)
    .where(and(eq(l.accountId, opts.accountId), eq(l.conversationId, opts.conversationId), opts.provider ? eq(l.provider, opts.provider) : undefined))
    .orderBy(desc(l.id));
}

export class LinkExistsError extends Error {}

/** Links an item to a conversation, with a system note and `integration_item_linked` in the same transaction. */
export async function saveConversationLink(opts: {
  accountId: number;
  userId: number;
  conversationId: number;
  provider: ProviderId;
  externalId: string;
  title: string;
  url: string;
  status: string;
  reopenOnClose: boolean;
  created: boolean;
}) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(l)
      .values({
        accountId: opts.accountId,
        conversationId: opts.conversationId,
        provider: opts.provider,
        externalId: opts.externalId,
        title: opts.title.slice(0, 500),
        url: opts.url,
        status: opts.status,
        reopenOnClose: opts.reopenOnClose,
        createdByUserId: opts.userId,
      })
      .onConflictDoNothing()
      .returning({ id: l.id });
    if (!row) throw new LinkExistsError(`${opts.externalId} is already linked to this conversation`);
    await addMessage(tx, { accountId: opts.accountId, conversationId: opts.conversationId, kind: 'system', text: `${opts.created ? 'Created' : 'Linked'} ${opts.externalId}: ${opts.title.slice(0, 200)}`, senderUserId: opts.userId });
    await emitEvent(tx, { accountId: opts.accountId, type: 'integration_item_linked', subjectType: 'conversation', subjectId: opts.conversationId, payload: { provider: opts.provider, item: opts.externalId, created: opts.created }, actor: { type: 'user', id: opts.userId } });
    return row;
  });
}

export async function updateLinkStatus(opts: { accountId: number; id: number; status: string; title?: string }) {
  await getDb()
    .update(l)
    .set({ status: opts.status, ...(opts.title ? { title: opts.title.slice(0, 500) } : {}), updatedAt: new Date() })
    .where(and(eq(l.accountId, opts.accountId), eq(l.id, opts.id)));
}

/**
 * The provider says the item closed (a verified webhook): every conversation linked to it gets a note, and those
 * linked with "reopen" are reopened. Each conversation in one transaction with `integration_item_closed`.
 * A repeated delivery changes nothing (the link is already closed).
 */
export async function closeLinkedItem(opts: { accountId: number; provider: ProviderId; externalId: string; by: string }) {
  const links = await getDb()
    .select()
    .from(l)
    .where(and(eq(l.accountId, opts.accountId), eq(l.provider, opts.provider), eq(l.externalId, opts.externalId), eq(l.status, 'open')));
  for (const link of links) {
    await getDb().transaction(async (tx) => {
      const [claimed] = await tx
        .update(l)
        .set({ status: 'closed', updatedAt: new Date() })
        .where(and(eq(l.accountId, opts.accountId), eq(l.id, link.id), eq(l.status, 'open')))
        .returning({ id: l.id });
      if (!claimed) return;
      await addMessage(tx, { accountId: opts.accountId, conversationId: link.conversationId, kind: 'note', text: `${opts.externalId} was closed${opts.by ? ` by ${opts.by}` : ''}: ${link.title}` });
      await emitEvent(tx, { accountId: opts.accountId, type: 'integration_item_closed', subjectType: 'conversation', subjectId: link.conversationId, payload: { provider: opts.provider, item: opts.externalId, reopen: link.reopenOnClose }, actor: { type: 'system' } });
      if (link.reopenOnClose) await setConversationStatus({ tx, accountId: opts.accountId, actorId: null, ids: [link.conversationId], status: 'open' });
    });
  }
  return links.length;
}

export async function reopenLinkedItem(opts: { accountId: number; provider: ProviderId; externalId: string }) {
  await getDb()
    .update(l)
    .set({ status: 'open', updatedAt: new Date() })
    .where(and(eq(l.accountId, opts.accountId), eq(l.provider, opts.provider), eq(l.externalId, opts.externalId)));
}
