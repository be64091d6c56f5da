import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { Facts } from '../../../engine/rules/evaluate';
import type { DomainEvent } from '../../../engine/handlers/types';

/** The conversation and contact an event is about (ids only), read from its subject and payload. */
export function subjectsOf(event: Pick<DomainEvent, 'type' | 'subjectType' | 'subjectId' | 'payload'>) {
  const p = event.payload as Record<string, unknown>;
  const num = (v: unknown) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v));
  return {
    conversationId: event.subjectType === 'conversation' ? num(event.subjectId) : num(p.conversationId),
    contactId: event.subjectType === 'contact' ? num(event.subjectId) : num(p.contactId),
  };
}

/**
 * Gathers what rules look at for one event, in three small indexed reads: the conversation, the contact with its
 * company (and whether this is its first conversation), and the contact's latest page view.
 */
export async function gatherFacts(event: DomainEvent, db: DbOrTx = getDb()): Promise<Facts> {
  const p = event.payload as Record<string, unknown>;
  let { conversationId, contactId } = subjectsOf(event);
  const facts: Facts = {
    eventType: event.type,
    rating: p.rating === undefined || p.rating === null ? null : Number(p.rating),
    sourceType: typeof p.channel === 'string' ? p.channel : null,
    inboxId: p.inboxId === undefined || p.inboxId === null ? null : Number(p.inboxId),
  };
  if (conversationId) {
    const [c] = await db
      .select({
        id: schema.conversations.id,
        subject: schema.conversations.subject,
        inboxId: schema.conversations.inboxId,
        sourceType: schema.conversations.sourceType,
        assigneeId: schema.conversations.assigneeId,
        status: schema.conversations.status,
        priority: schema.conversations.priority,
        contactId: schema.conversations.contactId,
        deletedAt: schema.conversations.deletedAt,
      })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, event.accountId), eq(schema.conversations.id, conversationId)));
    if (c && !c.deletedAt) {
      facts.conversation = {
        id: c.id,
        subject: c.subject,
        inboxId: c.inboxId,
        sourceType: c.sourceType,
        assigneeId: c.assigneeId,
        status: c.status,
        priority: c.priority,
      };
      contactId ??= c.contactId;
    } else {
      facts.conversation = null;
    }
  }
  if (contactId) {
    const [row] = await db
      .select({
        id: schema.contacts.id,
        email: schema.contacts.email,
        firstName: schema.contacts.firstName,
        lastName: schema.contacts.lastName,
        country: schema.contacts.country,
        companyId: schema.contacts.companyId,
        companyName: schema.companies.name,
      })
      .from(schema.contacts)
      .leftJoin(schema.companies, and(eq(schema.companies.id, schema.contacts.companyId), eq(schema.companies.accountId, event.accountId)))
      .where(and(eq(schema.contacts.accountId, event.accountId), eq(schema.contacts.id, contactId)));
    if (row) {
      let isNew = true;
      if (event.type !== 'contact_created') {
        // New = no conversation of this contact before the one the event is about.
        const [earlier] = await db
          .select({ one: sql<number>`1` })
          .from(schema.conversations)
          .where(
            and(
              eq(schema.conversations.accountId, event.accountId),
              eq(schema.conversations.contactId, row.id),
              conversationId ? lt(schema.conversations.id, conversationId) : sql`true`,
            ),
          )
          .limit(1);
        isNew = !earlier && !!conversationId;
      }
      facts.contact = { ...row, isNew };
      const [view] = await db
        .select({
          url: schema.pageViews.url,
          referrer: schema.pageViews.referrer,
        })
        .from(schema.pageViews)
        .where(and(eq(schema.pageViews.accountId, event.accountId), eq(schema.pageViews.contactId, row.id)))
        .orderBy(desc(schema.pageViews.lastSeenAt))
        .limit(1);
      facts.page = view ?? null;
    }
  }
  // A channel that knows the visitor's page at the time (the messenger widget) says so in the event.
  if (typeof p.pageUrl === 'string')
    facts.page = {
      url: p.pageUrl,
      referrer: typeof p.referrer === 'string' ? p.referrer : null,
    };
  return facts;
}
