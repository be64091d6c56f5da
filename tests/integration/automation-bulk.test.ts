import { and, asc, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createTag, deleteTag } from '../../app/models/productivity/tags.server';
import { processEventBatch } from '../../engine/events';
import { automationRules } from '../../engine/handlers/automation';
import { profileSnapshot, resetProfile } from '../../engine/profile';
import { createTestAccount, createTestUser } from '../factories';

/**
 * A batch's actions applied set-based (ADR 109): the tags and notes of several events each in one statement, with
 * the same rows, domain events (actor and cause), run-log lines and skips as one by one, and nothing twice on a
 * redelivery that finds the claims.
 */
describe('actions applied across a batch', () => {
  it('tags and notes several conversations at once, exactly as one by one, and a redelivery adds nothing', async () => {
    const db = getDb();
    const { account, owner } = await createTestAccount({ domain: 'enginebulk' });
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: 'support@engine-bulk.test' });
    const tag = await createTag({ accountId: account.id, actorId: owner.id, name: 'order', color: 'blue' });
    const agent = await createTestUser({ accountId: account.id, firstName: 'Ada' });
    const gone = await createTag({ accountId: account.id, actorId: owner.id, name: 'gone', color: 'red' });
    const rule = (name: string, actions: unknown[]) => ({
      accountId: account.id,
      kind: 'workflow' as const,
      name,
      event: 'conversation_created',
      isActive: true,
      filters: [{ field: 'subject' as const, op: 'contains' as const, value: 'order' }],
      actions: actions as never,
    });
    const [r1, r2, r3, r4, r5, r6] = await db
      .insert(schema.automationRules)
      .values([
        rule('Tag and note', [
          { type: 'assign_tag', tagIds: [tag.id] },
          { type: 'leave_note', note: 'First look: refund?' },
        ]),
        rule('Same tag, another note', [
          { type: 'assign_tag', tagIds: [tag.id] },
          { type: 'leave_note', note: 'Second look' },
        ]),
        rule('A tag that is gone', [
          { type: 'assign_tag', tagIds: [gone.id] },
          { type: 'leave_note', note: 'Third look' },
        ]),
        rule('Priority', [{ type: 'set_priority', priority: 'high' }]),
        rule('Assign', [{ type: 'assign_user', userId: agent.id }]),
        rule('Pending', [{ type: 'set_status', status: 'pending' }]),
      ])
      .returning();
    await deleteTag({ accountId: account.id, actorId: owner.id, id: gone.id });
    const convs: number[] = [];
    for (const n of [1, 2, 3]) {
      const { conversation } = await openConversation({
        accountId: account.id,
        inboxId: inbox.id,
        sourceType: 'email',
        subject: `My order ${n}`,
        contact: { email: `bulk${n}@example.test` },
        message: { kind: 'incoming', text: 'Hi' },
      });
      convs.push(conversation.id);
    }
    const created = await db
      .select({ id: schema.domainEvents.id, subjectId: schema.domainEvents.subjectId })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_created')))
      .orderBy(asc(schema.domainEvents.id));
    const items = created.map((e) => ({ eventId: e.id, type: 'conversation_created' }));
    const before = created.at(-1)!.id;

    // The engine's phase probe (ADR 108) says which path each action took.
    process.env.PARLEY_ENGINE_PROFILE = '1';
    resetProfile();
    const first = await processEventBatch(items, [automationRules]);
    delete process.env.PARLEY_ENGINE_PROFILE;
    expect(first).toEqual(items.map(() => ({ ran: ['automation'] })));
    const phases = Object.fromEntries(profileSnapshot().map((p) => [p.phase, p.n]));
    // The first three rules' tags and notes are one segment per event: one group of 9 tags (the 3 naming the gone
    // tag then go one by one and skip), one of 9 notes; then the priorities, the assignments and the statuses, one
    // group each (ADR 127).
    expect(phases['automation: bulk tags and notes']).toBe(1);
    expect(phases['automation: action assign_tag']).toBe(3);
    expect(phases['automation: bulk priority']).toBe(1);
    expect(phases['automation: action set_priority']).toBeUndefined();
    expect(phases['automation: bulk status']).toBe(1);
    expect(phases['automation: action set_status']).toBeUndefined();
    expect(phases['automation: bulk assign']).toBe(1);
    expect(phases['automation: action assign_user']).toBeUndefined();
    expect(phases['automation: action leave_note']).toBeUndefined();
    expect(phases['automation: actions transaction']).toBe(1);

    const snapshot = async () => {
      const tags = await db
        .select({ conversationId: schema.conversationTags.conversationId, tagId: schema.conversationTags.tagId })
        .from(schema.conversationTags)
        .where(inArray(schema.conversationTags.conversationId, convs));
      const notes = await db
        .select({ id: schema.messages.id, conversationId: schema.messages.conversationId, text: schema.messages.text })
        .from(schema.messages)
        .where(and(inArray(schema.messages.conversationId, convs), eq(schema.messages.kind, 'note')))
        .orderBy(asc(schema.messages.id));
      const rows = await db
        .select({
          id: schema.conversations.id,
          messageCount: schema.conversations.messageCount,
          priority: schema.conversations.priority,
          status: schema.conversations.status,
          search: schema.conversations.search,
          assigneeId: schema.conversations.assigneeId,
        })
        .from(schema.conversations)
        .where(inArray(schema.conversations.id, convs));
      const events = await db
        .select()
        .from(schema.domainEvents)
        .where(
          and(
            eq(schema.domainEvents.accountId, account.id),
            inArray(schema.domainEvents.type, ['conversation_updated', 'message_created', 'conversation_assigned']),
          ),
        )
        .orderBy(asc(schema.domainEvents.id));
      const lines = await db
        .select()
        .from(schema.automationRunLog)
        .where(
          inArray(
            schema.automationRunLog.eventId,
            created.map((e) => e.id),
          ),
        )
        .orderBy(asc(schema.automationRunLog.id));
      return { tags, notes, rows, events: events.filter((e) => e.id > before), lines };
    };
    const after = await snapshot();
    // One tag row per conversation although two rules asked for it; the gone tag nowhere.
    expect(after.tags.map((t) => t.tagId).sort()).toEqual([tag.id, tag.id, tag.id]);
    for (const [k, conv] of convs.entries()) {
      const event = created[k].id;
      expect(after.notes.filter((n) => n.conversationId === conv).map((n) => n.text)).toEqual(['First look: refund?', 'Second look', 'Third look']);
      const row = after.rows.find((r) => r.id === conv)!;
      expect(row.messageCount).toBe(7); // the customer's message, three notes, the priority's, the assignment's and the status's system lines
      expect(row.assigneeId).toBe(agent.id);
      expect([row.priority, row.status]).toEqual([3, 'pending']);
      const system = await db
        .select({ text: schema.messages.text, senderUserId: schema.messages.senderUserId })
        .from(schema.messages)
        .where(and(eq(schema.messages.conversationId, conv), eq(schema.messages.kind, 'system')))
        .orderBy(asc(schema.messages.id));
      expect(system).toEqual([
        { text: 'Priority set to high by Parley', senderUserId: null },
        { text: `Assigned to ${`${agent.firstName} ${agent.lastName}`.trim()} by Parley`, senderUserId: null },
        { text: 'Status changed to pending by Parley', senderUserId: null },
      ]);
      expect(String(row.search)).toContain('refund');
      expect(String(row.search)).toContain('second');
      // The tag's event belongs to the first rule that added it; each note has its own, both written by the engine for their rule.
      const mine = after.events.filter((e) => e.subjectId === String(conv) && e.causedByEventId === event && e.actorType === 'engine');
      const tagEvents = mine.filter((e) => e.type === 'conversation_updated' && (e.payload as { changed?: { tags?: unknown } }).changed?.tags);
      expect(tagEvents.map((e) => [e.actorType, e.actorId, e.payload])).toEqual([['engine', r1.id, { changed: { tags: { added: [tag.id] } } }]]);
      const noteEvents = mine.filter((e) => e.type === 'message_created');
      expect(
        noteEvents.map((e) => [e.actorType, e.actorId, (e.payload as { kind: string }).kind, (e.payload as { mentions: boolean }).mentions]).sort(),
      ).toEqual(
        [
          ['engine', r1.id, 'note', false],
          ['engine', r2.id, 'note', false],
          ['engine', r3.id, 'note', false],
        ].sort(),
      );
      const assignedBy = mine.filter((e) => e.type === 'conversation_updated' && (e.payload as { changed?: { assigneeId?: unknown } }).changed?.assigneeId);
      expect(assignedBy.map((e) => [e.actorId, e.payload])).toEqual([[r5.id, { changed: { assigneeId: { from: null, to: agent.id } } }]]);
      const changedBy = (field: string) =>
        mine.filter((e) => e.type === 'conversation_updated' && (e.payload as { changed: Record<string, unknown> }).changed[field]).map((e) => [e.actorId, e.payload]);
      expect(changedBy('priority')).toEqual([[r4.id, { changed: { priority: { from: 0, to: 3 } } }]]);
      expect(changedBy('status')).toEqual([[r6.id, { changed: { status: { from: 'open', to: 'pending' } } }]]);
      const assigned = after.events.filter((e) => e.type === 'conversation_assigned' && e.subjectId === String(conv));
      expect(assigned.map((e) => [e.actorType, e.actorId, e.causedByEventId, e.payload])).toEqual([
        ['engine', r5.id, assignedBy[0].id, { assigneeId: agent.id, teamId: null, previousAssigneeId: null, previousTeamId: null }],
      ]);
      const lines = after.lines.filter((l) => l.eventId === event).map((l) => [l.ruleId, l.actionIndex, l.step, l.detail]);
      const notes = after.notes.filter((n) => n.conversationId === conv);
      expect(lines).toEqual([
        [r1.id, 0, 'action_applied', { result: `tagged conversation #${conv} with order` }],
        [r1.id, 1, 'action_applied', { result: `note ${notes[0].id} on conversation #${conv}` }],
        [r2.id, 0, 'action_applied', { result: `tagged conversation #${conv} with order` }],
        [r2.id, 1, 'action_applied', { result: `note ${notes[1].id} on conversation #${conv}` }],
        [r3.id, 0, 'action_skipped', { reason: 'Choose tags of this account' }],
        [r3.id, 1, 'action_applied', { result: `note ${notes[2].id} on conversation #${conv}` }],
        [r4.id, 0, 'action_applied', { result: 'priority set to high' }],
        [r5.id, 0, 'action_applied', { result: `assigned conversation #${conv} to ${`${agent.firstName} ${agent.lastName}`.trim()}` }],
        [r6.id, 0, 'action_applied', { result: 'status set to pending' }],
      ]);
    }

    // A redelivery whose handler records were lost (a crash after the commit, before the jobs' completion) finds the claims.
    await db.delete(schema.eventHandlings).where(
      inArray(
        schema.eventHandlings.eventId,
        created.map((e) => e.id),
      ),
    );
    const again = await processEventBatch(items, [automationRules]);
    expect(again).toEqual(items.map(() => ({ ran: ['automation'] })));
    const later = await snapshot();
    expect(later.tags.length).toBe(after.tags.length);
    expect(later.notes).toEqual(after.notes);
    expect(later.rows.map((r) => r.messageCount)).toEqual(after.rows.map((r) => r.messageCount));
    expect(later.events.length).toBe(after.events.length);
    expect(later.lines).toEqual(after.lines);
  });
}, 60_000);
