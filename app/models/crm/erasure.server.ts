import { sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { AccountSettings } from '../../../db/schema/accounts';
import { emitEvent, actorOf } from '../events/events.server';
import { refreshConversationSearch } from '../inbox/messages.server';
import { removeStoredFiles } from '../storage/files.server';
import { publishToAccount } from '../../utils/live.server';

/**
 * Contact erasure (GDPR art. 17, ADR 153): the contact, what they wrote and everything filed under them leave the
 * database and the file storage in one transaction (the files right after it commits). Their conversations stay
 * with the contact anonymised, or go too, as the account's setting says. The audit log keeps one `contact_erased`
 * event with ids and counts only; earlier events that carried their data keep their type, time and actor but lose
 * their payload, IP and user agent.
 */

export type ErasureMode = NonNullable<AccountSettings['erasureConversations']>;
export const ERASURE_MODES: ErasureMode[] = ['anonymise', 'delete'];
/** The subject an anonymised conversation keeps: the contact's own subject line is their words. */
export const ERASED_SUBJECT = 'Conversation with an erased contact';

export function erasureModeOf(settings: AccountSettings): ErasureMode {
  return settings.erasureConversations === 'delete' ? 'delete' : 'anonymise';
}

export type ErasureCounts = {
  conversationsDeleted: number;
  conversationsAnonymised: number;
  messages: number;
  files: number;
  notes: number;
  surveyResponses: number;
  csatRatings: number;
  formResponses: number;
  meetingBookings: number;
  scrubbedEvents: number;
};

const ids = (list: number[]) => sql.raw(`(${list.length ? list.map((n) => Number(n)).join(',') : 'null'})`);

async function count(tx: Tx, query: ReturnType<typeof sql>) {
  const rows = await tx.execute<{ id: number | string }>(query);
  return [...rows];
}

/** Storage keys of a form response's uploaded files (the answers keep `{ storageKey, filename... }` objects). */
const FORM_FILES = (accountId: number, contactId: number, email: string | null) => sql`
  select a.value ->> 'storageKey' as key from form_responses r, jsonb_each(r.answers) a
   where r.account_id = ${accountId} and (r.contact_id = ${contactId} ${email ? sql`or lower(r.email) = lower(${email})` : sql``})
     and jsonb_typeof(a.value) = 'object' and a.value ? 'storageKey'`;

/**
 * Erases one contact of the account. Returns the counts of what went (also written on the audit event), or null when
 * the account has no such contact. `mode` defaults to the account's setting.
 */
export async function eraseContact(opts: { accountId: number; contactId: number; actorId: number | null; mode?: ErasureMode }) {
  const result = await getDb().transaction(async (tx) => {
    const [contact] = await tx.execute<{ id: number; email: string | null; settings: AccountSettings }>(sql`
      select c.id, c.email, a.settings from contacts c join accounts a on a.id = c.account_id
       where c.account_id = ${opts.accountId} and c.id = ${opts.contactId} for update of c`);
    if (!contact) return null;
    const mode = opts.mode ?? erasureModeOf(contact.settings ?? {});
    const { accountId, contactId } = opts;
    const email = contact.email;

    const conversationIds = (await count(tx, sql`select id from conversations where account_id = ${accountId} and contact_id = ${contactId} for update`)).map((r) => Number(r.id));
    // The contact's messages: what they sent, wherever it is; with `delete`, every message of their conversations.
    const messageIds = (
      await count(
        tx,
        mode === 'delete'
          ? sql`select id from messages where account_id = ${accountId} and (sender_contact_id = ${contactId} or conversation_id in ${ids(conversationIds)})`
          : sql`select id from messages where account_id = ${accountId} and (sender_contact_id = ${contactId} or (conversation_id in ${ids(conversationIds)} and kind = 'incoming'))`,
      )
    ).map((r) => Number(r.id));

    const fileKeys = [
      ...(await count(tx, sql`select storage_key as id from attachments where account_id = ${accountId} and message_id in ${ids(messageIds)}`)).map((r) => String(r.id)),
      ...(await tx.execute<{ key: string }>(FORM_FILES(accountId, contactId, email))).map((r) => r.key),
    ];

    // Domain events that carried the contact's data: about the contact, by the contact, or about what goes now.
    // They keep type, time and actor (the audit trail says something happened) but not what it was.
    const scrubbed = await count(
      tx,
      sql`update domain_events set payload = '{"erased": true}'::jsonb, ip = null, user_agent = null
           where account_id = ${accountId} and (
             (subject_type = 'contact' and subject_id = ${String(contactId)})
             or (actor_type = 'contact' and actor_id = ${contactId})
             or payload ->> 'contactId' = ${String(contactId)}
             or (subject_type = 'message' and subject_id in (select id::text from messages where id in ${ids(messageIds)}))
             or (subject_type = 'conversation' and subject_id in (select id::text from conversations where id in ${ids(conversationIds)}))
           ) returning id`,
    );

    const deletedMessages = await count(tx, sql`delete from messages where account_id = ${accountId} and id in ${ids(messageIds)} returning id`);
    const notes = await count(tx, sql`delete from crm_notes where account_id = ${accountId} and contact_id = ${contactId} returning id`);
    const surveyResponses = await count(tx, sql`delete from survey_responses where account_id = ${accountId} and contact_id = ${contactId} returning id`);
    const csatRatings = await count(tx, sql`delete from csat_ratings where account_id = ${accountId} and contact_id = ${contactId} returning id`);
    const formResponses = await count(
      tx,
      sql`delete from form_responses where account_id = ${accountId} and (contact_id = ${contactId} ${email ? sql`or lower(email) = lower(${email})` : sql``}) returning id`,
    );
    const meetingBookings = await count(tx, sql`delete from meeting_bookings where account_id = ${accountId} and contact_id = ${contactId} returning id`);
    // Rows that only exist to know this person (their visits, devices, sends to their address), not counted.
    await tx.execute(sql`delete from page_views where account_id = ${accountId} and contact_id = ${contactId}`);
    await tx.execute(sql`delete from push_subscriptions where account_id = ${accountId} and contact_id = ${contactId}`);
    await tx.execute(sql`delete from widget_visitors where account_id = ${accountId} and contact_id = ${contactId}`);
    await tx.execute(sql`delete from review_requests where account_id = ${accountId} and contact_id = ${contactId}`);
    await tx.execute(sql`delete from campaign_recipients where account_id = ${accountId} and contact_id = ${contactId}`);
    await tx.execute(sql`delete from survey_email_recipients where account_id = ${accountId} and contact_id = ${contactId}`);
    // A published review stays public where it was written; here it is no longer tied to the person.
    await tx.execute(sql`update reviews set contact_id = null, reviewer_email = null where account_id = ${accountId} and contact_id = ${contactId}`);
    // Notifications quote the conversation (its subject, the last message): gone with what they quoted.
    await tx.execute(sql`delete from notifications where account_id = ${accountId} and conversation_id in ${ids(conversationIds)}`);

    let conversationsDeleted = 0;
    let conversationsAnonymised = 0;
    if (mode === 'delete') {
      conversationsDeleted = (await count(tx, sql`delete from conversations where account_id = ${accountId} and id in ${ids(conversationIds)} returning id`)).length;
    } else if (conversationIds.length) {
      // Kept for the account's history and reports: no contact, a neutral subject, the preview of the newest message
      // that is left (an agent's reply or a note), the addresses gone from what the agents sent.
      conversationsAnonymised = (
        await count(
          tx,
          sql`update conversations c set contact_id = null, subject = ${ERASED_SUBJECT}, updated_at = now(),
                message_count = (select count(*)::int from messages m where m.conversation_id = c.id and m.deleted_at is null),
                last_message_preview = coalesce((select left(regexp_replace(m.text, '\\s+', ' ', 'g'), 160) from messages m
                   where m.conversation_id = c.id and m.deleted_at is null and m.kind in ('incoming', 'outgoing') order by m.id desc limit 1), '')
               where c.account_id = ${accountId} and c.id in ${ids(conversationIds)} returning c.id`,
        )
      ).length;
      await tx.execute(sql`update messages set email = null, sender_contact_id = null where account_id = ${accountId} and conversation_id in ${ids(conversationIds)}`);
      await tx.execute(sql`delete from widget_visitors where account_id = ${accountId} and conversation_id in ${ids(conversationIds)}`);
    }
    await tx.execute(sql`delete from contacts where account_id = ${accountId} and id = ${contactId}`);
    // After the contact is gone, the search words are rebuilt from what is left (no name, no address, no message of theirs).
    if (mode === 'anonymise') await refreshConversationSearch(tx, { accountId, conversationIds });

    const counts: ErasureCounts = {
      conversationsDeleted,
      conversationsAnonymised,
      messages: deletedMessages.length,
      files: fileKeys.length,
      notes: notes.length,
      surveyResponses: surveyResponses.length,
      csatRatings: csatRatings.length,
      formResponses: formResponses.length,
      meetingBookings: meetingBookings.length,
      scrubbedEvents: scrubbed.length,
    };
    await emitEvent(tx, {
      accountId,
      type: 'contact_erased',
      subjectType: 'contact',
      subjectId: contactId,
      payload: { contactId, mode, counts },
      actor: actorOf(opts.actorId),
    });
    for (const id of conversationIds) {
      await publishToAccount(accountId, mode === 'delete' ? { type: 'conversation.deleted', conversationId: id } : { type: 'conversation.updated', conversationId: id, changed: ['contact'] }, { tx });
    }
    return { counts, fileKeys, mode };
  });
  if (!result) return null;
  // Files go once the rows naming them are gone for good (a rolled-back erasure must keep them).
  await removeStoredFiles(result.fileKeys);
  return { mode: result.mode, counts: result.counts };
}
