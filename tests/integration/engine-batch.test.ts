import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { processEventBatch, processEventBatchStaged } from '../../engine/events';
import { automationRules } from '../../engine/handlers/automation';
import type { EventHandler } from '../../engine/handlers/types';
import { createTestAccount } from '../factories';
import { ruleRunLines } from '../helpers/engine';

/**
 * The engine works a fetched batch of events whole (ADR 043): one event's failure fails its job alone, the others'
 * work and records stand, and a redelivery of the whole batch applies nothing twice.
 */
describe('a batch of domain events', () => {
  it('isolates a failing event and applies each action exactly once across redeliveries', async () => {
    const { account, owner } = await createTestAccount({ domain: 'enginebatch' });
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: 'support@engine-batch.test' });
    const tag = await createTag({ accountId: account.id, actorId: owner.id, name: 'order', color: 'blue' });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: account.id,
        kind: 'workflow',
        name: 'Orders',
        event: 'conversation_created',
        isActive: true,
        filters: [{ field: 'subject', op: 'contains', value: 'order' }],
        actions: [{ type: 'assign_tag', tagIds: [tag.id] }],
      })
      .returning();
    const convs = [];
    for (const subject of ['My order 1', 'Hello there', 'My order 2']) {
      const { conversation } = await openConversation({
        accountId: account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject,
        contact: { email: `${subject.replace(/\W/g, '').toLowerCase()}@example.test` },
        message: { kind: 'incoming', text: 'Hi' },
      });
      convs.push(conversation.id);
    }
    const events = await getDb()
      .select({ id: schema.domainEvents.id, subjectId: schema.domainEvents.subjectId })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_created'))).orderBy(schema.domainEvents.id);
    const ids = convs.map((c) => events.find((e) => e.subjectId === String(c))!.id);

    let failFor: number | null = ids[1];
    const boom: EventHandler = {
      name: 'boom',
      on: ['conversation_created'],
      async handle(event) {
        if (event.id === failFor) throw new Error('boom');
        return { ok: true };
      },
    };
    const later: EventHandler = { name: 'later', on: ['conversation_created'], handle: async () => ({ later: true }) };
    const handlers = [automationRules, boom, later];
    const items = ids.map((eventId) => ({ eventId, type: 'conversation_created' }));

    const first = await processEventBatch(items, handlers);
    expect(first[0]).toEqual({ ran: ['automation', 'boom', 'later'] });
    expect(first[1]).toBeInstanceOf(Error);
    expect(first[2]).toEqual({ ran: ['automation', 'boom', 'later'] });

    const handlings = async () =>
      (
        await getDb()
          .select({ eventId: schema.eventHandlings.eventId, handler: schema.eventHandlings.handler, status: schema.eventHandlings.status })
          .from(schema.eventHandlings)
          .where(inArray(schema.eventHandlings.eventId, ids))
      )
        .map((h) => `${ids.indexOf(h.eventId)}:${h.handler}:${h.status}`)
        .sort();
    expect(await handlings()).toEqual([
      '0:automation:done',
      '0:boom:done',
      '0:later:done',
      '1:automation:done',
      '1:boom:failed',
      '2:automation:done',
      '2:boom:done',
      '2:later:done',
    ]);

    // Redelivered whole (pg-boss retries the failed job; a crash would redeliver them all): nothing runs twice.
    failFor = null;
    const second = await processEventBatch(items, handlers);
    expect(second).toEqual([{ ran: [] }, { ran: ['boom', 'later'] }, { ran: [] }]);
    const tagged = await getDb()
      .select({ conversationId: schema.conversationTags.conversationId })
      .from(schema.conversationTags)
      .where(and(eq(schema.conversationTags.accountId, account.id), eq(schema.conversationTags.tagId, tag.id)));
    expect(tagged.map((t) => t.conversationId).sort((a, b) => a - b)).toEqual([convs[0], convs[2]].sort((a, b) => a - b));
    const log = await ruleRunLines(rule.id);
    const steps = log.map((l) => `${ids.indexOf(l.eventId)}:${l.step}`).sort();
    expect(steps).toEqual(['0:action_applied', '0:matched', '1:not_matched', '2:action_applied', '2:matched']);
  });

  it('three deliveries of the same events at once apply each action once, with one run-log line each', async () => {
    const { account, owner } = await createTestAccount({ domain: 'enginetwice' });
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: 'support@engine-twice.test' });
    const tag = await createTag({ accountId: account.id, actorId: owner.id, name: 'refund', color: 'red' });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: account.id,
        kind: 'workflow',
        name: 'Refunds',
        event: 'conversation_created',
        isActive: true,
        filters: [{ field: 'subject', op: 'contains', value: 'refund' }],
        actions: [
          { type: 'leave_note', note: 'Check the order first' },
          { type: 'assign_tag', tagIds: [tag.id] },
          { type: 'set_priority', priority: 'high' },
          { type: 'leave_note', note: 'Then the payment' },
        ],
      })
      .returning();
    const convs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const { conversation } = await openConversation({
        accountId: account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject: `A refund ${i}`,
        contact: { email: `refund${i}@example.test` },
        message: { kind: 'incoming', text: 'Hi' },
      });
      convs.push(conversation.id);
    }
    const events = await getDb()
      .select({ id: schema.domainEvents.id })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_created')));
    const items = events.map((e) => ({ eventId: e.id, type: 'conversation_created' }));
    // A job that expired while it ran is delivered again before the first delivery commits.
    const answers = await Promise.all([1, 2, 3].map(() => processEventBatch(items, [automationRules])));
    for (const answer of answers) for (const a of answer) expect(a).not.toBeInstanceOf(Error);
    const notes = await getDb()
      .select({ conversationId: schema.messages.conversationId })
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, account.id), eq(schema.messages.kind, 'note')));
    expect(notes.length).toBe(2 * convs.length);
    expect(notes.map((n) => n.conversationId).sort((a, b) => a - b)).toEqual([...convs, ...convs].sort((a, b) => a - b));
    // Each conversation's message count counts its messages once, the notes included.
    const counted = await getDb().execute<{ count: number; messages: number }>(
      sql`select c.message_count as count, (select count(*) from messages m where m.conversation_id = c.id)::int as messages from conversations c where c.id = any(${`{${convs.join(',')}}`}::int[])`,
    );
    expect(counted.map((r) => Number(r.count))).toEqual(counted.map((r) => Number(r.messages)));
    const priorities = await getDb().select({ priority: schema.conversations.priority }).from(schema.conversations).where(inArray(schema.conversations.id, convs));
    expect(new Set(priorities.map((p) => p.priority)).size).toBe(1);
    expect(priorities[0].priority).toBeGreaterThan(0);
    const log = await ruleRunLines(rule.id);
    const applied = log.filter((l) => l.step === 'action_applied');
    expect(applied.length).toBe(4 * convs.length);
    expect(new Set(applied.map((l) => `${l.eventId}:${l.actionIndex}`)).size).toBe(4 * convs.length);
    const updates = await getDb()
      .select({ id: schema.domainEvents.id })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_updated')));
    // The priority change and the tag each wrote one event per conversation, not one per delivery.
    expect(updates.length).toBe(2 * convs.length);
  });

  it("overlaps batches one stage apart: the next batch's first stage runs beside this one's later handlers, which keep the batches' order", async () => {
    const { account, owner } = await createTestAccount({ domain: 'enginestaged' });
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: 'support@engine-staged.test' });
    const ids: number[] = [];
    for (const n of [1, 2]) {
      const { conversation } = await openConversation({
        accountId: account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject: `Question ${n}`,
        contact: { email: `staged${n}@example.test` },
        message: { kind: 'incoming', text: 'Hi' },
      });
      const [event] = await getDb()
        .select({ id: schema.domainEvents.id })
        .from(schema.domainEvents)
        .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_created'), eq(schema.domainEvents.subjectId, String(conversation.id))));
      ids.push(event.id);
    }
    const seen: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first: EventHandler = { name: 'first', on: ['conversation_created'], handle: async (e) => void seen.push(`first ${e.id}`) };
    const later: EventHandler = {
      name: 'later',
      parallel: true,
      on: ['conversation_created'],
      async handle(e) {
        seen.push(`later ${e.id} starts`);
        // The first batch's later handler waits until the test lets it go.
        if (e.id === ids[0]) await held;
        seen.push(`later ${e.id} ends`);
      },
    };
    const handlers = [first, later];
    const one = await processEventBatchStaged([{ eventId: ids[0], type: 'conversation_created' }], handlers);
    const two = await processEventBatchStaged([{ eventId: ids[1], type: 'conversation_created' }], handlers, one.answers);
    // The second batch's first stage is done while the first batch's later handler is still held.
    expect(seen).toEqual([`first ${ids[0]}`, `later ${ids[0]} starts`, `first ${ids[1]}`]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).not.toContain(`later ${ids[1]} starts`);
    release();
    const [a, b] = await Promise.all([one.answers, two.answers]);
    expect(a[0]).toEqual({ ran: ['first', 'later'] });
    expect(b[0]).toEqual({ ran: ['first', 'later'] });
    expect(seen.slice(3)).toEqual([`later ${ids[0]} ends`, `later ${ids[1]} starts`, `later ${ids[1]} ends`]);
  });
});
