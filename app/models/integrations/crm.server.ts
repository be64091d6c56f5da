import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { addMessage } from '../inbox/messages.server';
import { IntegrationError } from './http.server';
import type { ProviderId } from './providers';

/** What HubSpot and Pipedrive share (ADR 099): the conversation's contact, and the line an action leaves. */
export async function conversationContact(opts: { accountId: number; conversationId: number; label: string }) {
  const [row] = await getDb()
    .select({ contact: schema.contacts, company: schema.companies })
    .from(schema.conversations)
    .innerJoin(schema.contacts, eq(schema.contacts.id, schema.conversations.contactId))
    .leftJoin(schema.companies, eq(schema.companies.id, schema.contacts.companyId))
    .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
  if (!row?.contact.email) throw new IntegrationError(`The contact has no email address to look up in ${opts.label}`, 422);
  return row;
}

/** A system line in the conversation and `integration_item_linked`, in one transaction. */
export async function crmNote(opts: { accountId: number; userId: number; conversationId: number; provider: ProviderId; text: string; item: string }) {
  await getDb().transaction(async (tx) => {
    await addMessage(tx, { accountId: opts.accountId, conversationId: opts.conversationId, kind: 'system', text: opts.text, senderUserId: opts.userId });
    await emitEvent(tx, { accountId: opts.accountId, type: 'integration_item_linked', subjectType: 'conversation', subjectId: opts.conversationId, payload: { provider: opts.provider, item: opts.item, created: true }, actor: { type: 'user', id: opts.userId } });
  });
}
