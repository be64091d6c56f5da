import { sql } from 'drizzle-orm';
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

type FactsRow = {
  conversation_id: number | null;
  subject: string | null;
  message: string | null;
  inbox_id: number | null;
  source_type: string | null;
  assignee_id: number | null;
  status: string | null;
  priority: number | null;
  contact_id: number | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  country: string | null;
  company_id: number | null;
  company_name: string | null;
  earlier: boolean | null;
  page_url: string | null;
  page_referrer: string | null;
};

/** The ids a facts query needs for one event, and the facts known without a read. */
function factsInput(event: DomainEvent) {
  const p = event.payload as Record<string, unknown>;
  const { conversationId, contactId } = subjectsOf(event);
  // The message a filter on the body reads: the event's own (a new message), else the conversation's first from the customer.
  const messageId = typeof p.messageId === 'number' || typeof p.messageId === 'string' ? Number(p.messageId) || null : null;
  const facts: Facts = {
    eventType: event.type,
    rating: p.rating === undefined || p.rating === null ? null : Number(p.rating),
    sourceType: typeof p.channel === 'string' ? p.channel : null,
    inboxId: p.inboxId === undefined || p.inboxId === null ? null : Number(p.inboxId),
    subject:
      event.subjectType !== 'conversation' && event.subjectType !== 'contact' && Number.isSafeInteger(Number(event.subjectId)) && Number(event.subjectId) > 0
        ? { type: event.subjectType, id: Number(event.subjectId) }
        : null,
  };
  return { p, conversationId, contactId, messageId, facts };
}

function completeFacts(event: DomainEvent, input: ReturnType<typeof factsInput>, row: FactsRow | undefined): Facts {
  const { p, conversationId, contactId, facts } = input;
  if (conversationId || contactId) {
    if (conversationId) {
      facts.conversation =
        row?.conversation_id != null
          ? {
              id: Number(row.conversation_id),
              subject: row.subject ?? '',
              message: row.message ?? '',
              inboxId: Number(row.inbox_id),
              sourceType: row.source_type ?? '',
              assigneeId: row.assignee_id === null ? null : Number(row.assignee_id),
              status: row.status ?? '',
              priority: Number(row.priority ?? 0),
            }
          : null;
    }
    if (row?.contact_id != null) {
      facts.contact = {
        id: Number(row.contact_id),
        email: row.email,
        firstName: row.first_name ?? '',
        lastName: row.last_name ?? '',
        country: row.country,
        companyId: row.company_id === null ? null : Number(row.company_id),
        companyName: row.company_name,
        // New = created by this event, or no conversation before the one the event is about.
        isNew: event.type === 'contact_created' ? true : !row.earlier && !!conversationId,
      };
      facts.page = row.page_url === null ? null : { url: row.page_url, referrer: row.page_referrer };
    }
  }
  // A channel that knows the visitor's page at the time (the messenger widget) says so in the event.
  if (typeof p.pageUrl === 'string') facts.page = { url: p.pageUrl, referrer: typeof p.referrer === 'string' ? p.referrer : null };
  return facts;
}

/**
 * Gathers what rules look at for one event in one indexed query: the conversation (if the event has one and it is
 * not deleted), its contact (or the event's) with the company, whether the contact had a conversation before this
 * one, and the contact's latest page view.
 */
export async function gatherFacts(event: DomainEvent, db: DbOrTx = getDb()): Promise<Facts> {
  return (await gatherFactsMany([event], db))[0];
}

/**
 * The facts of many events (a fetched batch, ADR 043) in one query: the per-event query of `gatherFacts` run as a
 * lateral join over the batch's ids. Returns the facts in the order of `events`.
 */
export async function gatherFactsMany(events: DomainEvent[], db: DbOrTx = getDb()): Promise<Facts[]> {
  const inputs = events.map(factsInput);
  const wanted = inputs
    .map((input, idx) => ({
      idx,
      account_id: events[idx].accountId,
      conversation_id: input.conversationId ?? 0,
      contact_id: input.contactId ?? 0,
      message_id: input.messageId ?? 0,
    }))
    .filter((x) => x.conversation_id || x.contact_id);
  const rows = new Map<number, FactsRow>();
  if (wanted.length > 0) {
    const found = await db.execute<FactsRow & { idx: number }>(sql`
      select ev.idx, f.* from jsonb_to_recordset(${JSON.stringify(
        wanted,
      )}::jsonb) as ev(idx int, account_id int, conversation_id int, contact_id int, message_id int)
      cross join lateral (
        with conv as (
          select id, subject, inbox_id, source_type, assignee_id, status, priority, contact_id from ${schema.conversations}
           where account_id = ev.account_id and id = ev.conversation_id and deleted_at is null
        ), who as (
          select coalesce((select contact_id from conv), ev.contact_id) as id
        )
        select conv.id as conversation_id, conv.subject, conv.inbox_id,
               (select m.text from ${schema.messages} m
                 where m.account_id = ev.account_id and m.conversation_id = conv.id and m.deleted_at is null
                   and (case when ev.message_id <> 0 then m.id = ev.message_id else m.kind = 'incoming' end)
                 order by m.id limit 1) as message, conv.source_type, conv.assignee_id, conv.status, conv.priority,
               ct.id as contact_id, ct.email, ct.first_name, ct.last_name, ct.country, ct.company_id, co.name as company_name,
               exists (select 1 from ${schema.conversations} e
                        where e.account_id = ev.account_id and e.contact_id = ct.id and e.id < ev.conversation_id) as earlier,
               pv.url as page_url, pv.referrer as page_referrer
          from who
          left join conv on true
          left join ${schema.contacts} ct on ct.account_id = ev.account_id and ct.id = who.id
          left join ${schema.companies} co on co.account_id = ev.account_id and co.id = ct.company_id
          left join lateral (
            select url, referrer from ${schema.pageViews}
             where account_id = ev.account_id and contact_id = ct.id
             order by last_seen_at desc limit 1
          ) pv on true
      ) f`);
    for (const r of found) rows.set(Number(r.idx), r);
  }
  return events.map((event, idx) => completeFacts(event, inputs[idx], rows.get(idx)));
}
