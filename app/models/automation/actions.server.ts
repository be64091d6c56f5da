import { and, eq, inArray } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import type { Facts } from '../../../engine/rules/evaluate';
import type { Cause } from '../events/events.server';
import {
  assignConversations,
  deleteConversations,
  InvalidReferenceError,
  moveConversations,
  openConversation,
  postMessage,
  setConversationPriority,
  setConversationStatus,
  tagConversations,
  untagConversation,
} from '../inbox/conversations.server';
import { setContactFields, tagContacts } from '../crm/contacts.server';
import { addNote } from '../crm/notes.server';
import { FieldInputError } from '../productivity/shared.server';
import { NoLinkedConversation } from '../inbox/linked-conversations.server';
import { findOrOpenReviewConversation } from '../reviews/review-conversations.server';
import { findOrOpenResponseConversation } from '../surveys/response-conversations.server';
import type { RuleAction } from './rule-types';

/** `conversationId`: the conversation the action opened or reused for a review or an anonymous answer (ADR 149). */
export type ActionOutcome = { applied: true; result: string; conversationId?: number } | { applied: false; reason: string };

/** The action cannot apply to what the event is about (not an error: the run log says why). */
class Skip extends Error {}

/**
 * Applies one action of a rule to what the event is about, inside the caller's transaction (which also writes the
 * run log's line: the action and its record commit together). It goes through the same domain functions as
 * people do, with the cause, so threads, events and live updates are the same. A reference that no longer
 * exists (a deleted user, tag or inbox) skips the action; anything else throws, and the engine retries.
 */
export async function applyAction(
  tx: Tx,
  opts: { accountId: number; action: RuleAction; facts: Facts; cause: Cause; names?: NameMemo },
): Promise<ActionOutcome> {
  const linked: Linked = {};
  try {
    const result = await apply(tx, opts, linked);
    return { applied: true, result, ...(linked.conversationId ? { conversationId: linked.conversationId } : {}) };
  } catch (err) {
    if (err instanceof Skip || err instanceof InvalidReferenceError || err instanceof FieldInputError || err instanceof NoLinkedConversation)
      return { applied: false, reason: err.message };
    throw err;
  }
}

type Linked = { conversationId?: number; opened?: boolean };

/**
 * The conversation an event about a review, or about an anonymous survey answer, stands for (ADR 149): found, or
 * opened now, so that assigning, tagging and noting have something a team sees. Null for any other event (its
 * actions keep working on the event's contact).
 */
async function linkedConversation(tx: Tx, opts: { accountId: number; facts: Facts; cause: Cause }, linked: Linked) {
  const { facts } = opts;
  const subject = facts.subject;
  let found: { conversationId: number; opened: boolean } | null = null;
  if (facts.eventType === 'review_received' && subject?.type === 'review')
    found = await findOrOpenReviewConversation(tx, { accountId: opts.accountId, reviewId: subject.id, cause: opts.cause });
  else if (facts.eventType === 'survey_received' && !facts.contact && subject?.type === 'survey_response')
    found = await findOrOpenResponseConversation(tx, { accountId: opts.accountId, responseId: subject.id, inboxId: facts.inboxId, cause: opts.cause });
  if (!found) return null;
  linked.conversationId = found.conversationId;
  linked.opened = found.opened;
  return { id: found.conversationId };
}

const what = (facts: Facts) => (facts.eventType === 'review_received' ? 'the review' : 'the survey answer');
const openedFor = (linked: Linked, facts: Facts) => (linked.opened ? ` (opened for ${what(facts)})` : '');

async function apply(tx: Tx, opts: { accountId: number; action: RuleAction; facts: Facts; cause: Cause; names?: NameMemo }, linked: Linked): Promise<string> {
  const { accountId, action: a, facts, cause } = opts;
  const memo = opts.names ?? new Map();
  const userName = (db: Tx, account: number, id: number) => remember(memo, `u${account}:${id}`, () => readUserName(db, account, id));
  const tagNames = (db: Tx, account: number, ids: number[]) => remember(memo, `t${account}:${ids.join(',')}`, () => readTagNames(db, account, ids));
  const inboxName = (db: Tx, account: number, id: number) => remember(memo, `i${account}:${id}`, () => readInboxName(db, account, id));
  const companyName = (db: Tx, account: number, id: number) => remember(memo, `c${account}:${id}`, () => readCompanyName(db, account, id));
  const base = { accountId, actorId: null, tx, cause };
  const conversation = facts.conversation ?? null;
  // Assigning, tagging, noting: on the event's conversation, else on the one its review or anonymous answer has.
  const target = conversation ?? (ACTS_ON_LINKED.includes(a.type) ? await linkedConversation(tx, { accountId, facts, cause }, linked) : null);
  const contact = facts.contact ?? null;
  const opened = openedFor(linked, facts);
  const needConversation = () => {
    if (!conversation) throw new Skip('the event has no conversation');
    return conversation;
  };
  const needContact = () => {
    if (!contact) throw new Skip('the event has no contact');
    return contact;
  };
  switch (a.type) {
    case 'assign_user': {
      if (target) {
        const changed = await assignConversations({
          ...base,
          ids: [target.id],
          assigneeId: a.userId!,
        });
        return changed.length
          ? `assigned conversation #${target.id}${opened} to ${await userName(tx, accountId, a.userId!)}`
          : `conversation #${target.id} was already assigned to ${await userName(tx, accountId, a.userId!)}`;
      }
      const c = needContact();
      await setContactFields({
        ...base,
        id: c.id,
        fields: { assigneeId: a.userId! },
      });
      return `contact ${c.id} now owned by ${await userName(tx, accountId, a.userId!)}`;
    }
    case 'assign_tag': {
      if (target) {
        await tagConversations({
          ...base,
          ids: [target.id],
          tagIds: a.tagIds!,
        });
        return `tagged conversation #${target.id}${opened} with ${await tagNames(tx, accountId, a.tagIds!)}`;
      }
      const c = needContact();
      for (const tagId of a.tagIds!) await tagContacts({ ...base, ids: [c.id], tagId });
      return `tagged contact ${c.id} with ${await tagNames(tx, accountId, a.tagIds!)}`;
    }
    case 'unassign_tag': {
      const conv = needConversation();
      let removed = 0;
      for (const tagId of a.tagIds!) if (await untagConversation({ ...base, id: conv.id, tagId })) removed++;
      return `removed ${removed} of ${a.tagIds!.length} (${await tagNames(tx, accountId, a.tagIds!)}) from conversation #${conv.id}`;
    }
    case 'leave_note': {
      if (target) {
        const note = await postMessage({
          ...base,
          conversationId: target.id,
          kind: 'note',
          text: a.note!,
        });
        return `note ${note.id} on conversation #${target.id}${opened}`;
      }
      const c = needContact();
      const note = await addNote({
        ...base,
        target: { contactId: c.id },
        body: a.note!,
      });
      if (!note) throw new Skip('the contact no longer exists');
      return `note ${note.id} on contact ${c.id}`;
    }
    case 'convert_to_case': {
      if (!contact && facts.eventType === 'survey_received') throw new Skip('the survey answer is anonymous: a case needs a contact with an email address');
      const c = needContact();
      if (!c.email) throw new Skip('the contact has no email address for a case');
      const opened = await openConversation({
        accountId,
        inboxId: a.inboxId!,
        sourceType: 'internal_ticket',
        subject: a.title!,
        contact: {
          email: c.email,
          name: `${c.firstName} ${c.lastName}`.trim(),
        },
        message: { kind: 'note', text: a.description! },
        tx,
      });
      return `case #${opened.conversation.id} opened`;
    }
    case 'set_status': {
      const conv = needConversation();
      const changed = await setConversationStatus({
        ...base,
        ids: [conv.id],
        status: a.status!,
      });
      return changed.length ? `status set to ${a.status}` : `status was already ${a.status}`;
    }
    case 'set_priority': {
      const conv = needConversation();
      const changed = await setConversationPriority({
        ...base,
        ids: [conv.id],
        priority: a.priority!,
      });
      return changed.length ? `priority set to ${a.priority}` : `priority was already ${a.priority}`;
    }
    case 'move_conversation': {
      const conv = needConversation();
      await moveConversations({ ...base, ids: [conv.id], inboxId: a.inboxId! });
      return `moved to inbox ${await inboxName(tx, accountId, a.inboxId!)}`;
    }
    case 'delete_conversation': {
      const conv = needConversation();
      // The action names an inbox (section 5): it deletes conversations of that inbox only.
      if (conv.inboxId !== a.inboxId)
        throw new Skip(`the conversation is in inbox ${await inboxName(tx, accountId, conv.inboxId)}, not ${await inboxName(tx, accountId, a.inboxId!)}`);
      const rows = await deleteConversations({ ...base, ids: [conv.id] });
      return rows.length ? `deleted conversation #${conv.id}` : `conversation #${conv.id} was already deleted`;
    }
    case 'add_contact_website':
    case 'add_contact_company':
    case 'add_contact_title': {
      const c = needContact();
      const fields =
        a.type === 'add_contact_website' ? { website: a.website! } : a.type === 'add_contact_title' ? { title: a.title! } : { companyId: a.companyId! };
      const row = await setContactFields({ ...base, id: c.id, fields });
      if (!row) throw new Skip('the contact no longer exists');
      const shown = 'companyId' in fields ? { company: await companyName(tx, accountId, fields.companyId!) } : fields;
      return `contact ${c.id}: ${Object.entries(shown)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}`;
    }
  }
}

/** The actions that work on a review's or an anonymous answer's conversation when the event has none (ADR 149). */
const ACTS_ON_LINKED: readonly RuleAction['type'][] = ['assign_user', 'assign_tag', 'leave_note'];

// The run history names what an action touched (ADR 037): names are read when the line is written, so a later
// rename or deletion does not change what the line said happened. A missing row keeps its id. One event's actions
// share what they read (ADR 043): eleven actions naming the same tag read it once.

/** Names already read for one event's actions. */
export type NameMemo = Map<string, Promise<string>>;

function remember(memo: NameMemo, key: string, read: () => Promise<string>) {
  let name = memo.get(key);
  if (!name) {
    name = read();
    memo.set(key, name);
    name.catch(() => memo.delete(key));
  }
  return name;
}

async function readUserName(tx: Tx, accountId: number, id: number) {
  const [u] = await tx
    .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, id)));
  return u ? `${u.firstName} ${u.lastName}`.trim() : `user ${id}`;
}

async function readTagNames(tx: Tx, accountId: number, ids: number[]) {
  if (ids.length === 0) return 'no tags';
  const rows = await tx
    .select({ id: schema.tags.id, name: schema.tags.name })
    .from(schema.tags)
    .where(and(eq(schema.tags.accountId, accountId), inArray(schema.tags.id, ids)));
  const names = new Map(rows.map((r) => [r.id, r.name]));
  return ids.map((id) => names.get(id) ?? `tag ${id}`).join(', ');
}

async function readInboxName(tx: Tx, accountId: number, id: number) {
  const [i] = await tx
    .select({ name: schema.inboxes.name })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, id)));
  return i ? i.name : `inbox ${id}`;
}

async function readCompanyName(tx: Tx, accountId: number, id: number) {
  const [c] = await tx
    .select({ name: schema.companies.name })
    .from(schema.companies)
    .where(and(eq(schema.companies.accountId, accountId), eq(schema.companies.id, id)));
  return c ? c.name : `company ${id}`;
}
