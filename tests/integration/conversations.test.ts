import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import {
  assignConversations,
  countConversations,
  deleteConversations,
  getConversation,
  listConversations,
  mergeConversations,
  moveConversations,
  openConversation,
  postMessage,
  setConversationPriority,
  setConversationStatus,
  snoozeConversation,
  splitMessage,
  wakeSnoozedConversation,
  InvalidReferenceError,
} from '../../app/models/inbox/conversations.server';
import { listThread } from '../../app/models/inbox/messages.server';
import { createTestAccount, createTestUser } from '../factories';

async function setup() {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: 'support@acme.test' });
  const open = (email: string, subject: string, text = 'Hello there') =>
    openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject, contact: { email, name: 'Cara Customer' }, message: { kind: 'incoming', text } });
  return { ...a, inbox, open };
}

const eventsOf = async (accountId: number, type: string) =>
  getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);

describe('conversations', () => {
  it('opens a conversation from a new sender: a contact, conversation_created, message_created', async () => {
    const s = await setup();
    const { conversation, contact } = await s.open('Cara@Example.test', 'Broken invoice');
    expect(contact.email).toBe('cara@example.test');
    expect(conversation.status).toBe('open');
    expect(await eventsOf(s.account.id, 'contact_created')).toHaveLength(1);
    expect(await eventsOf(s.account.id, 'conversation_created')).toHaveLength(1);
    expect(await eventsOf(s.account.id, 'message_created')).toHaveLength(1);
    // The same sender again is the same contact.
    const again = await s.open('cara@example.test', 'Another question');
    expect(again.contact.id).toBe(contact.id);
    expect(await eventsOf(s.account.id, 'contact_created')).toHaveLength(1);
  });

  it('filters, counts and searches in SQL, scoped to the account', async () => {
    const s = await setup();
    const other = await setup();
    const agent = await createTestUser({ accountId: s.account.id });
    const c1 = (await s.open('a@x.test', 'Refund for order 991', 'Please refund the parcel')).conversation;
    const c2 = (await s.open('b@x.test', 'Login trouble', 'I cannot sign in since Tuesday')).conversation;
    await other.open('a@x.test', 'Refund for order 991');
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [c1.id], assigneeId: agent.id });
    await setConversationPriority({ accountId: s.account.id, actorId: s.owner.id, ids: [c2.id], priority: 'high' });
    const list = (filters: Parameters<typeof listConversations>[0]['filters'], userId = s.owner.id) =>
      listConversations({ accountId: s.account.id, userId, filters }).then((r) => r.rows.map((x) => x.id));
    expect(await list({})).toEqual([c2.id, c1.id]);
    expect(await list({ assignee: 'mine' }, agent.id)).toEqual([c1.id]);
    expect(await list({ assignee: 'unassigned' })).toEqual([c2.id]);
    expect(await list({ priority: 'high' })).toEqual([c2.id]);
    expect(await list({ q: 'refund' })).toEqual([c1.id]);
    expect(await list({ q: 'tuesday' })).toEqual([c2.id]);
    expect(await list({ q: `#${c2.id}` })).toEqual([c2.id]);
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [c2.id], status: 'resolved' });
    const counts = await countConversations({ accountId: s.account.id, userId: s.owner.id, filters: {} });
    expect(counts.byStatus).toEqual({ open: 1, resolved: 1 });
    expect(counts.byInbox).toEqual({ [s.inbox.id]: 1 });
  });

  it('assigns, records the change and refuses users of another account', async () => {
    const s = await setup();
    const other = await setup();
    const { conversation } = await s.open('a@x.test', 'Hi');
    await expect(assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [conversation.id], assigneeId: other.owner.id })).rejects.toThrow(InvalidReferenceError);
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [conversation.id], assigneeId: s.owner.id });
    const [assigned] = await eventsOf(s.account.id, 'conversation_assigned');
    expect(assigned.payload).toMatchObject({ assigneeId: s.owner.id, previousAssigneeId: null });
    const updated = await eventsOf(s.account.id, 'conversation_updated');
    expect(updated[0].payload).toEqual({ changed: { assigneeId: { from: null, to: s.owner.id } } });
    const { messages } = await listThread({ accountId: s.account.id, conversationId: conversation.id });
    expect(messages.at(-1)?.message.text).toBe('Assigned to Olive Owner by Olive Owner');
    // Another account cannot touch it: its ids are simply not found.
    expect(await setConversationStatus({ accountId: other.account.id, actorId: other.owner.id, ids: [conversation.id], status: 'resolved' })).toHaveLength(0);
    expect((await getConversation({ accountId: s.account.id, id: conversation.id }))?.conversation.status).toBe('open');
  });

  it('snoozes and wakes only when the time has come; an incoming message reopens', async () => {
    const s = await setup();
    const { conversation } = await s.open('a@x.test', 'Hi');
    await snoozeConversation({ accountId: s.account.id, actorId: s.owner.id, id: conversation.id, until: new Date(Date.now() + 60_000) });
    expect(await wakeSnoozedConversation({ accountId: s.account.id, conversationId: conversation.id })).toEqual({ woke: false });
    await getDb().update(schema.conversations).set({ snoozedUntil: new Date(Date.now() - 1000) }).where(eq(schema.conversations.id, conversation.id));
    expect(await wakeSnoozedConversation({ accountId: s.account.id, conversationId: conversation.id })).toEqual({ woke: true });
    expect((await getConversation({ accountId: s.account.id, id: conversation.id }))?.conversation.status).toBe('open');
  });

  it('moves, merges, splits and deletes', async () => {
    const s = await setup();
    const second = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Billing', channelType: 'email' });
    const c1 = (await s.open('a@x.test', 'One', 'first')).conversation;
    const c2 = (await s.open('a@x.test', 'Two', 'second')).conversation;
    await moveConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [c1.id], inboxId: second.id });
    expect((await getConversation({ accountId: s.account.id, id: c1.id }))?.inbox.name).toBe('Billing');
    await mergeConversations({ accountId: s.account.id, actorId: s.owner.id, targetId: c1.id, sourceIds: [c2.id] });
    expect(await getConversation({ accountId: s.account.id, id: c2.id })).toBeUndefined();
    const thread = await listThread({ accountId: s.account.id, conversationId: c1.id });
    expect(thread.messages.map((m) => m.message.text)).toContain('second');
    const secondMessage = thread.messages.find((m) => m.message.text === 'second')!;
    const split = await splitMessage({ accountId: s.account.id, actorId: s.owner.id, messageId: secondMessage.message.id });
    expect((await listThread({ accountId: s.account.id, conversationId: split.id })).messages.map((m) => m.message.text)).toContain('second');
    await deleteConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [c1.id, split.id] });
    expect((await listConversations({ accountId: s.account.id, userId: s.owner.id, filters: { status: 'all' } })).total).toBe(0);
  });

  it('a reply is queued for its channel in the same transaction', async () => {
    const s = await setup();
    const { conversation } = await s.open('a@x.test', 'Hi');
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversation.id, kind: 'outgoing', text: 'Hello back' });
    expect(reply.deliveryStatus).toBe('queued');
    const jobs = await getDb().execute<{ n: number }>(
      // pg-boss's own table: the job exists because the message committed.
      (await import('drizzle-orm')).sql`select count(*)::int as n from pgboss.job where name = 'channel.deliver' and data->>'messageId' = ${String(reply.id)}`,
    );
    expect(jobs[0].n).toBe(1);
  });
});
