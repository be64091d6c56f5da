import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, getSql, schema } from '../../db/client';
import { LIVE_CHANNEL } from '../../app/utils/live.server';
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
  it('several tags and notes per step: bulk writes what one by one writes, one tag event per rule and step listing its tags', async () => {
    const db = getDb();
    const { account, owner } = await createTestAccount({ domain: 'enginebulktwo' });
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: 'support@engine-bulk2.test' });
    const agent = await createTestUser({ accountId: account.id, firstName: 'Grace' });
    const [t1, t2, t3, t4] = await Promise.all(['a', 'b', 'c', 'd'].map((n) => createTag({ accountId: account.id, actorId: owner.id, name: `t-${n}`, color: 'blue' })));
    const rule = (name: string, prefix: string, actions: unknown[]) => ({
      accountId: account.id,
      kind: 'workflow' as const,
      name,
      event: 'conversation_created',
      isActive: true,
      filters: [{ field: 'subject' as const, op: 'contains' as const, value: prefix }],
      actions: actions as never,
    });
    // The same two workflows twice, one pair per subject: the first pair's events go through the set-based path, the
    // second's one by one (PARLEY_ENGINE_BULK=0).
    const workflows = (prefix: string) => [
      rule(`${prefix} one`, prefix, [
        { type: 'assign_tag', tagIds: [t1.id] },
        { type: 'assign_tag', tagIds: [t2.id] },
        { type: 'leave_note', note: 'Check the order' },
        { type: 'assign_user', userId: agent.id },
        { type: 'assign_tag', tagIds: [t3.id] },
        { type: 'leave_note', note: 'Refund asked' },
      ]),
      rule(`${prefix} two`, prefix, [
        { type: 'assign_tag', tagIds: [t2.id] },
        { type: 'leave_note', note: 'Second opinion' },
        { type: 'assign_tag', tagIds: [t4.id, t1.id] },
        { type: 'set_priority', priority: 'high' },
        { type: 'leave_note', note: 'Escalated' },
        { type: 'assign_tag', tagIds: [t3.id] },
      ]),
    ];
    const rules = await db
      .insert(schema.automationRules)
      .values([...workflows('bulkpath'), ...workflows('onebyone')])
      .returning();
    const open = async (prefix: string) => {
      const convs: number[] = [];
      for (const n of [1, 2, 3]) {
        const { conversation } = await openConversation({
          accountId: account.id,
          inboxId: inbox.id,
          sourceType: 'email',
          subject: `${prefix} ${n}`,
          contact: { email: `${prefix}${n}@example.test` },
          message: { kind: 'incoming', text: 'Hi' },
        });
        convs.push(conversation.id);
      }
      const created = await db
        .select({ id: schema.domainEvents.id, subjectId: schema.domainEvents.subjectId })
        .from(schema.domainEvents)
        .where(
          and(
            eq(schema.domainEvents.accountId, account.id),
            eq(schema.domainEvents.type, 'conversation_created'),
            inArray(
              schema.domainEvents.subjectId,
              convs.map(String),
            ),
          ),
        )
        .orderBy(asc(schema.domainEvents.id));
      return { convs, created };
    };
    const bulk = await open('bulkpath');
    const single = await open('onebyone');
    // The live updates each side publishes (they reach listeners at commit); a marker sent afterwards says all have come.
    const heard: { conversationId?: number; type: string; kind?: string; changed?: string[] }[] = [];
    let marker = () => {};
    const listener = await getSql().listen(LIVE_CHANNEL, (payload) => {
      const p = JSON.parse(payload) as { accountId: number; message: { type: string; conversationId?: number; kind?: string; changed?: string[] } | 'marker' };
      if (p.message === 'marker') return marker();
      if (p.accountId === account.id) heard.push(p.message);
    });
    const run = async (created: { id: number }[]) => {
      const outcome = await processEventBatch(created.map((e) => ({ eventId: e.id, type: 'conversation_created' })), [automationRules]);
      const arrived = new Promise<void>((resolve) => (marker = resolve));
      await db.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify({ accountId: account.id, message: 'marker' })})`);
      await arrived;
      return outcome;
    };
    const liveOf = (convs: number[]) => {
      const mine = heard.splice(0).filter((m) => m.conversationId !== undefined && convs.includes(m.conversationId));
      const perConversation = convs.map((c) => mine.filter((m) => m.conversationId === c));
      return {
        // Each conversation's new messages in order, and its other changes.
        messages: perConversation.map((ms) => ms.filter((m) => m.type === 'message.created').map((m) => m.kind)),
        changes: perConversation.map((ms) => ms.filter((m) => m.type === 'conversation.updated' && m.changed?.join() !== 'tags').map((m) => m.changed!.join())),
        tagUpdates: mine.filter((m) => m.type === 'conversation.updated' && m.changed?.join() === 'tags').length,
      };
    };
    process.env.PARLEY_ENGINE_PROFILE = '1';
    resetProfile();
    heard.length = 0;
    expect(await run(bulk.created)).toEqual(bulk.created.map(() => ({ ran: ['automation'] })));
    const liveBulk = liveOf(bulk.convs);
    const phases = Object.fromEntries(profileSnapshot().map((p) => [p.phase, p.n]));
    expect(phases['automation: bulk tags and notes']).toBe(3);
    expect(phases['automation: action assign_tag']).toBeUndefined();
    expect(phases['automation: action leave_note']).toBeUndefined();
    process.env.PARLEY_ENGINE_BULK = '0';
    resetProfile();
    try {
      expect(await run(single.created)).toEqual(single.created.map(() => ({ ran: ['automation'] })));
    } finally {
      delete process.env.PARLEY_ENGINE_BULK;
      delete process.env.PARLEY_ENGINE_PROFILE;
    }
    expect(Object.keys(Object.fromEntries(profileSnapshot().map((p) => [p.phase, p.n]))).filter((p) => p.startsWith('automation: bulk'))).toEqual([]);

    // Rule k of one pair is rule k of the other: ids and the subjects' own numbers are made comparable.
    const ruleIndex = new Map(rules.map((r, k) => [r.id, k % 2]));
    const picture = async (side: { convs: number[]; created: { id: number }[] }, prefix: string) => {
      const convIndex = new Map(side.convs.map((c, k) => [c, k]));
      const createdIndex = new Map(side.created.map((e, k) => [e.id, k]));
      const messages = await db
        .select({ id: schema.messages.id, conversationId: schema.messages.conversationId, kind: schema.messages.kind, text: schema.messages.text, senderUserId: schema.messages.senderUserId })
        .from(schema.messages)
        .where(inArray(schema.messages.conversationId, side.convs))
        // Each conversation's thread in order (how conversations interleave in the table is not part of the picture).
        .orderBy(asc(schema.messages.conversationId), asc(schema.messages.id));
      const noteIndex = new Map(messages.map((m) => [m.id, `${convIndex.get(m.conversationId)}:${messages.filter((o) => o.conversationId === m.conversationId).indexOf(m)}`]));
      const anon = (text: string) =>
        text
          .replace(/note (\d+) on conversation #(\d+)/, (_, m, c) => `note ${noteIndex.get(Number(m))} on conversation ${convIndex.get(Number(c))}`)
          .replace(/conversation #(\d+)/, (_, c) => `conversation ${convIndex.get(Number(c))}`);
      const rows = await db
        .select({
          id: schema.conversations.id,
          messageCount: schema.conversations.messageCount,
          priority: schema.conversations.priority,
          status: schema.conversations.status,
          assigneeId: schema.conversations.assigneeId,
          search: schema.conversations.search,
        })
        .from(schema.conversations)
        .where(inArray(schema.conversations.id, side.convs))
        .orderBy(asc(schema.conversations.id));
      const tags = await db
        .select({ conversationId: schema.conversationTags.conversationId, tagId: schema.conversationTags.tagId })
        .from(schema.conversationTags)
        .where(inArray(schema.conversationTags.conversationId, side.convs));
      const lines = await db
        .select()
        .from(schema.automationRunLog)
        .where(
          inArray(
            schema.automationRunLog.eventId,
            side.created.map((e) => e.id),
          ),
        )
        .orderBy(asc(schema.automationRunLog.eventId), asc(schema.automationRunLog.ruleId), asc(schema.automationRunLog.actionIndex));
      const events = await db
        .select()
        .from(schema.domainEvents)
        .where(
          and(
            eq(schema.domainEvents.accountId, account.id),
            inArray(
              schema.domainEvents.causedByEventId,
              side.created.map((e) => e.id),
            ),
          ),
        )
        .orderBy(asc(schema.domainEvents.id));
      const byId = new Map(events.map((e) => [e.id, e]));
      const eventShape = (e: (typeof events)[number]) => ({
        type: e.type,
        conversation: convIndex.get(Number(e.subjectId)),
        actor: e.actorType === 'engine' ? [e.actorType, ruleIndex.get(Number(e.actorId))] : [e.actorType],
        cause: createdIndex.get(Number(e.causedByEventId)) ?? `${byId.get(Number(e.causedByEventId))?.type}`,
        payload: JSON.parse(JSON.stringify(e.payload).replace(/"messageId":(\d+)/, (_, m) => `"messageId":"${noteIndex.get(Number(m))}"`)),
      });
      const isTags = (e: (typeof events)[number]) => e.type === 'conversation_updated' && Boolean((e.payload as { changed?: { tags?: unknown } }).changed?.tags);
      // A rule's tags per conversation, in the order its events list them.
      const tagsAdded = new Map<string, number[]>();
      for (const e of events.filter(isTags)) {
        const k = `${convIndex.get(Number(e.subjectId))}:${ruleIndex.get(Number(e.actorId))}:${createdIndex.get(Number(e.causedByEventId))}`;
        tagsAdded.set(k, [...(tagsAdded.get(k) ?? []), ...(e.payload as { changed: { tags: { added: number[] } } }).changed.tags.added]);
      }
      return {
        messages: messages.map((m) => [convIndex.get(m.conversationId), m.kind, m.text, m.senderUserId]),
        rows: rows.map((r) => [convIndex.get(r.id), r.messageCount, r.priority, r.status, r.assigneeId, String(r.search).replaceAll(prefix, 'P').split(' ').sort().join(' ')]),
        tags: tags.map((t) => `${convIndex.get(t.conversationId)}:${t.tagId}`).sort(),
        lines: lines.map((l) => [createdIndex.get(Number(l.eventId)), ruleIndex.get(l.ruleId!), l.actionIndex, l.step, l.conversationId ? convIndex.get(l.conversationId) : null, anon(JSON.stringify(l.detail))]),
        otherEvents: events
          .filter((e) => !isTags(e))
          .map(eventShape)
          .map((e) => JSON.stringify(e))
          .sort(),
        tagsAdded: Object.fromEntries(tagsAdded),
        tagEvents: events.filter(isTags).length,
      };
    };
    // The same live updates. (One "tags changed" per conversation either way: PostgreSQL folds identical NOTIFYs of a
    // transaction into one, and the set-based side publishes one per tag event, one by one one per tag action.)
    const liveSingle = liveOf(single.convs);
    expect(liveBulk.messages).toEqual(liveSingle.messages);
    expect(liveBulk.messages[0]).toEqual(['note', 'system', 'note', 'note', 'system', 'note']);
    expect(liveBulk.changes.map((c) => [...c].sort())).toEqual(liveSingle.changes.map((c) => [...c].sort()));
    expect([liveBulk.tagUpdates, liveSingle.tagUpdates]).toEqual([3, 3]);
    const a = await picture(bulk, 'bulkpath');
    const b = await picture(single, 'onebyone');
    expect(a.messages).toEqual(b.messages);
    expect(a.rows).toEqual(b.rows);
    expect(a.tags).toEqual(b.tags);
    expect(a.lines).toEqual(b.lines);
    expect(a.otherEvents).toEqual(b.otherEvents);
    // The same tags added by the same rule for the same event, in the same order...
    expect(a.tagsAdded).toEqual(b.tagsAdded);
    // ...in fewer events: one by one writes one per action that adds something (3 of rule one's, 3 of rule two's:
    // its first tag was rule one's already); set-based one per (rule, step): rule one's first step [t1, t2] and its
    // third [t3]; rule two's in that third step [t4] (t2 and t1 were there) and its last [t3]... which rule one had added.
    expect(b.tagEvents).toBe(3 * 4);
    expect(a.tagEvents).toBe(3 * 3);
    expect(a.tagsAdded['0:0:0']).toEqual([t1.id, t2.id, t3.id]);
    expect(a.tagsAdded['0:1:0']).toEqual([t4.id]);

    // A redelivery finds the claims and adds nothing.
    await db.delete(schema.eventHandlings).where(
      inArray(
        schema.eventHandlings.eventId,
        bulk.created.map((e) => e.id),
      ),
    );
    expect(await run(bulk.created)).toEqual(bulk.created.map(() => ({ ran: ['automation'] })));
    expect(await picture(bulk, 'bulkpath')).toEqual(a);
    // ...and publishes nothing.
    expect(liveOf(bulk.convs)).toEqual({ messages: [[], [], []], changes: [[], [], []], tagUpdates: 0 });
    await listener.unlisten();
  });
}, 60_000);
