import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { RuleAction, RuleCondition, RuleFilter } from '../../app/models/automation/rule-types';
import { emitSurveyReceived } from '../../app/models/events/engagement.server';
import { createSource, submitPublicReview } from '../../app/models/reviews/reviews.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation, setConversationPriority } from '../../app/models/inbox/conversations.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { createContact } from '../../app/models/crm/contacts.server';
import { createTestAccount, createTestUser } from '../factories';
import { drainEvents, lastEventId, ruleRunLines } from '../helpers/engine';

type RuleInput = {
  accountId: number;
  kind?: 'workflow' | 'inbox_rule';
  event: string;
  conditions?: RuleCondition[];
  conditionOperator?: 'and' | 'or';
  filters?: RuleFilter[];
  actions: RuleAction[];
  sources?: number[];
  isActive?: boolean;
};

async function makeRule(r: RuleInput) {
  const [row] = await getDb()
    .insert(schema.automationRules)
    .values({
      accountId: r.accountId,
      kind: r.kind ?? 'workflow',
      name: `rule ${Math.random().toString(36).slice(2, 8)}`,
      event: r.event,
      conditions: r.conditions ?? [],
      conditionOperator: r.conditionOperator ?? 'and',
      filters: r.filters ?? [],
      actions: r.actions,
      sources: r.sources ?? [],
      isActive: r.isActive ?? true,
    })
    .returning();
  return row;
}

async function setup() {
  const { account, owner } = await createTestAccount();
  const agent = await createTestUser({
    accountId: account.id,
    firstName: 'Ana',
  });
  const inbox = await createInbox({
    accountId: account.id,
    actorId: owner.id,
    name: 'Support',
    channelType: 'email',
    email: `support-${account.id}@example.test`,
  });
  const vip = await createTag({
    accountId: account.id,
    actorId: owner.id,
    name: 'vip',
    color: 'red',
  });
  const refund = await createTag({
    accountId: account.id,
    actorId: owner.id,
    name: 'refund',
    color: 'blue',
  });
  return { account, owner, agent, inbox, vip, refund };
}

const runLog = ruleRunLines;

async function open(accountId: number, inboxId: number, subject: string, email = 'ada@example.com') {
  const { conversation } = await openConversation({
    accountId,
    inboxId,
    sourceType: 'email',
    subject,
    contact: { email, name: 'Ada Lovelace' },
    message: { kind: 'incoming', text: `${subject} — please help` },
  });
  return conversation;
}

async function conversationState(id: number) {
  const [c] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, id));
  const tags = await getDb()
    .select({ tagId: schema.conversationTags.tagId })
    .from(schema.conversationTags)
    .where(eq(schema.conversationTags.conversationId, id));
  const thread = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, id)).orderBy(asc(schema.messages.id));
  return { ...c, tagIds: tags.map((t) => t.tagId).sort(), thread };
}

describe('workflows on conversation_created', () => {
  it('a filter on the message body matches what the customer wrote, not only the subject', async () => {
    const { account, inbox, refund } = await setup();
    const rule = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      filters: [{ field: 'message', op: 'contains', value: 'money back' }],
      actions: [{ type: 'assign_tag', tagIds: [refund.id] }],
    });
    const after = await lastEventId(account.id);
    const { conversation: match } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Order 77',
      contact: { email: 'bo@example.com', name: 'Bo' },
      message: { kind: 'incoming', text: 'The parcel never came. I want my MONEY BACK please.' },
    });
    const { conversation: other } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'money back',
      contact: { email: 'cy@example.com', name: 'Cy' },
      message: { kind: 'incoming', text: 'Where is my parcel?' },
    });
    await drainEvents(account.id, { after });
    expect((await conversationState(match.id)).tagIds).toEqual([refund.id]);
    // The subject says it, the message does not: the message filter does not match.
    expect((await conversationState(other.id)).tagIds).toEqual([]);
    const log = await runLog(rule.id);
    expect(log.find((l) => l.conversationId === other.id && l.step === 'not_matched')?.detail).toMatchObject({ reason: 'filter 1 (message) does not match' });
  });

  it('a condition, a filter and two actions: applied once, with the run log saying why', async () => {
    const { account, agent, inbox, vip } = await setup();
    const rule = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      conditions: [{ field: 'new_contact', op: 'is', value: '' }],
      filters: [{ field: 'subject', op: 'contains', value: 'refund' }],
      actions: [
        { type: 'assign_user', userId: agent.id },
        { type: 'assign_tag', tagIds: [vip.id] },
      ],
    });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, 'Refund for order 1234');
    await drainEvents(account.id, { after });

    const state = await conversationState(conv.id);
    expect(state.assigneeId).toBe(agent.id);
    expect(state.tagIds).toEqual([vip.id]);
    expect(state.thread.some((m) => m.kind === 'system' && m.text.startsWith('Assigned to Ana'))).toBe(true);

    const log = await runLog(rule.id);
    expect(log.map((l) => [l.step, l.actionType])).toEqual([
      ['matched', null],
      ['action_applied', 'assign_user'],
      ['action_applied', 'assign_tag'],
    ]);
    expect(log.every((l) => l.conversationId === conv.id)).toBe(true);
    // The run history names the user and the tags, not their ids.
    expect(log[1].detail).toMatchObject({ result: `assigned conversation #${conv.id} to ${agent.firstName} ${agent.lastName}` });
    expect(log[2].detail).toMatchObject({ result: `tagged conversation #${conv.id} with vip` });

    // The events the actions wrote name the engine and the rule, and the conversation_created event as their cause.
    const [assigned] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_assigned'))).orderBy(schema.domainEvents.id);
    expect(assigned).toMatchObject({ actorType: 'engine', actorId: rule.id });
    const [updated] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.id, assigned.causedByEventId!)).orderBy(schema.domainEvents.id);
    expect(updated).toMatchObject({
      type: 'conversation_updated',
      actorType: 'engine',
      actorId: rule.id,
      causedByEventId: log[0].eventId,
    });

    // Redelivering the event (a crash after the actions, before the job completed) applies nothing twice.
    const { runRulesForEvent } = await import('../../app/models/automation/runner.server');
    const [created] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.id, log[0].eventId)).orderBy(schema.domainEvents.id);
    await runRulesForEvent(created);
    await runRulesForEvent(created);
    expect(await runLog(rule.id)).toHaveLength(3);
    const again = await conversationState(conv.id);
    expect(again.thread.length).toBe(state.thread.length);
  });

  it('a rule that does not match logs the deciding condition and acts on nothing', async () => {
    const { account, agent, inbox } = await setup();
    const rule = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      conditions: [{ field: 'repeat_contact', op: 'is', value: '' }],
      actions: [{ type: 'assign_user', userId: agent.id }],
    });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, 'First question');
    await drainEvents(account.id, { after });
    expect((await conversationState(conv.id)).assigneeId).toBeNull();
    const [line] = await runLog(rule.id);
    expect(line.step).toBe('not_matched');
    expect(line.detail).toMatchObject({
      decidedBy: { part: 'condition', field: 'repeat_contact', actual: false },
    });

    // The same customer's second conversation is a repeat: now it matches.
    const second = await open(account.id, inbox.id, 'Second question');
    await drainEvents(account.id, { after: line.eventId });
    expect((await conversationState(second.id)).assigneeId).toBe(agent.id);
  });

  it('inactive rules and other events do nothing', async () => {
    const { account, agent, inbox } = await setup();
    const inactive = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      isActive: false,
      actions: [{ type: 'assign_user', userId: agent.id }],
    });
    const other = await makeRule({
      accountId: account.id,
      event: 'contact_created',
      actions: [{ type: 'add_contact_title', title: 'Customer' }],
    });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, 'Hello');
    await drainEvents(account.id, { after });
    expect((await conversationState(conv.id)).assigneeId).toBeNull();
    expect(await runLog(inactive.id)).toHaveLength(0);
    // The new contact triggered the contact rule, not the conversation one.
    expect((await runLog(other.id)).map((l) => l.step)).toEqual(['matched', 'action_applied']);
  });
});

describe('contact_created workflows', () => {
  it('add website, company and title to the new contact, and a note', async () => {
    const { account, owner } = await setup();
    const [company] = await getDb().insert(schema.companies).values({ accountId: account.id, name: 'Analytical' }).returning();
    const rule = await makeRule({
      accountId: account.id,
      event: 'contact_created',
      filters: [{ field: 'domain', op: 'equals', value: 'engines.test' }],
      actions: [
        { type: 'add_contact_website', website: 'https://engines.test' },
        { type: 'add_contact_company', companyId: company.id },
        { type: 'add_contact_title', title: 'Founder' },
        { type: 'leave_note', note: 'Came in through the workflow test' },
      ],
    });
    const after = await lastEventId(account.id);
    const contact = await createContact({
      accountId: account.id,
      actorId: owner.id,
      input: { firstName: 'Ada', lastName: 'L', email: 'ada@engines.test' },
    });
    const outsider = await createContact({
      accountId: account.id,
      actorId: owner.id,
      input: { firstName: 'Bob', lastName: 'B', email: 'bob@elsewhere.test' },
    });
    await drainEvents(account.id, { after });
    const [row] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, contact.id));
    expect(row).toMatchObject({
      website: 'https://engines.test',
      companyId: company.id,
      title: 'Founder',
    });
    const notes = await getDb().select().from(schema.crmNotes).where(eq(schema.crmNotes.contactId, contact.id));
    expect(notes.map((n) => n.body)).toEqual(['Came in through the workflow test']);
    const [other] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, outsider.id));
    expect(other.title).toBeNull();
    const steps = (await runLog(rule.id)).map((l) => l.step);
    expect(steps.filter((s) => s === 'action_applied')).toHaveLength(4);
    expect(steps.filter((s) => s === 'not_matched')).toHaveLength(1);
  });
});

describe('surveys and reviews', () => {
  it('survey_received from the domain function drives a workflow (note and case), review_received tags the review’s conversation', async () => {
    const { account, owner, inbox, vip } = await setup();
    const contact = await createContact({
      accountId: account.id,
      actorId: owner.id,
      input: { firstName: 'Sam', lastName: 'Survey', email: 'sam@example.com' },
    });
    const surveyRule = await makeRule({
      accountId: account.id,
      event: 'survey_received',
      kind: 'inbox_rule',
      conditions: [{ field: 'rating', op: 'below', value: '3' }],
      actions: [
        { type: 'leave_note', note: 'Unhappy customer, call back' },
        {
          type: 'convert_to_case',
          inboxId: inbox.id,
          title: 'Low CSAT',
          description: 'Rated 1 of 5',
        },
      ],
    });
    const reviewRule = await makeRule({
      accountId: account.id,
      event: 'review_received',
      actions: [{ type: 'assign_tag', tagIds: [vip.id] }],
    });
    const after = await lastEventId(account.id);
    await getDb().transaction(async (tx) => {
      await emitSurveyReceived(tx, {
        accountId: account.id,
        responseId: 1,
        surveyId: 9,
        kind: 'csat',
        channel: 'email',
        rating: 1,
        contactId: contact.id,
      });
      await emitSurveyReceived(tx, {
        accountId: account.id,
        responseId: 2,
        surveyId: 9,
        kind: 'csat',
        channel: 'email',
        rating: 5,
        contactId: contact.id,
      });
    });
    // A review left on the account's page with the contact's email (ADR 149: the action works on the review's conversation).
    const page = await createSource({ accountId: account.id, actorId: owner.id, input: { kind: 'parley', name: 'Our page', reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null } });
    await submitPublicReview({ accountId: account.id, source: page, rating: 4, name: 'Sam', email: 'sam@example.com', text: 'Good' });
    await drainEvents(account.id, { after });
    const log = await runLog(surveyRule.id);
    expect(log.map((l) => l.step)).toEqual(['matched', 'action_applied', 'action_applied', 'not_matched']);
    const cases = await getDb()
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, account.id), eq(schema.conversations.sourceType, 'internal_ticket')))
      .orderBy(schema.conversations.id);
    expect(cases.map((c) => c.subject)).toEqual(['Low CSAT', '4★ review on Our page']);
    expect(cases.map((c) => c.contactId)).toEqual([contact.id, contact.id]);
    const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, cases[1].id));
    expect(tags.map((t) => t.tagId)).toEqual([vip.id]);
    expect((await runLog(reviewRule.id)).map((l) => l.step)).toEqual(['matched', 'action_applied']);
  });
});

describe('safety', () => {
  it('a rule’s own actions do not trigger it again, nor does a chain of two rules loop', async () => {
    const { account, owner, inbox } = await setup();
    // Two inbox rules that would ping-pong each other's conversation_updated forever.
    const up = await makeRule({
      accountId: account.id,
      kind: 'inbox_rule',
      event: 'conversation_updated',
      actions: [{ type: 'set_priority', priority: 'high' }],
    });
    const down = await makeRule({
      accountId: account.id,
      kind: 'inbox_rule',
      event: 'conversation_updated',
      actions: [{ type: 'set_priority', priority: 'low' }],
    });
    const conv = await open(account.id, inbox.id, 'Ping pong');
    const after = await lastEventId(account.id);
    await setConversationPriority({
      accountId: account.id,
      actorId: owner.id,
      ids: [conv.id],
      priority: 'medium',
    });
    const processed = await drainEvents(account.id, { after });
    expect(processed.length).toBeLessThan(30);
    const upLog = await runLog(up.id);
    const downLog = await runLog(down.id);
    expect(upLog.some((l) => l.step === 'loop_skipped')).toBe(true);
    expect(downLog.some((l) => l.step === 'loop_skipped')).toBe(true);
    expect(upLog.find((l) => l.step === 'loop_skipped')!.detail).toMatchObject({
      reason: expect.stringContaining('own actions'),
    });
  });

  it('a reference that is gone skips the action with the reason; the others still apply', async () => {
    const { account, inbox, vip } = await setup();
    const rule = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      actions: [
        { type: 'assign_user', userId: 999999 },
        { type: 'assign_tag', tagIds: [vip.id] },
      ],
    });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, 'Hello');
    await drainEvents(account.id, { after });
    const log = await runLog(rule.id);
    expect(log.map((l) => l.step)).toEqual(['matched', 'action_skipped', 'action_applied']);
    expect(log[1].detail).toMatchObject({
      reason: 'Choose a user of this account',
    });
    expect((await conversationState(conv.id)).tagIds).toEqual([vip.id]);
  });

  it('an unexpected failure is logged, fails the job for a retry, and the retry applies only what is left', async () => {
    const { account, inbox, vip } = await setup();
    // An id PostgreSQL cannot even compare with an integer: a database error, not a missing reference.
    const rule = await makeRule({
      accountId: account.id,
      event: 'conversation_created',
      actions: [
        { type: 'assign_tag', tagIds: [vip.id] },
        { type: 'assign_tag', tagIds: [99_999_999_999] },
        { type: 'leave_note', note: 'after the broken one' },
      ],
    });
    const { runRulesForEvent, ActionsFailedError } = await import('../../app/models/automation/runner.server');
    const conv = await open(account.id, inbox.id, 'Breaks');
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.type, 'conversation_created'), eq(schema.domainEvents.subjectId, String(conv.id)))).orderBy(schema.domainEvents.id);
    await expect(runRulesForEvent(event)).rejects.toBeInstanceOf(ActionsFailedError);
    let log = await runLog(rule.id);
    expect(log.map((l) => [l.step, l.actionIndex])).toEqual([
      ['matched', null],
      ['action_applied', 0],
      ['action_failed', 1],
    ]);
    expect(log[2].detail).toMatchObject({ error: expect.stringContaining('out of range') });
    // The later action waited; nothing half-done was left by the failed one.
    expect((await conversationState(conv.id)).thread.filter((m) => m.kind === 'note')).toHaveLength(0);

    // An admin fixes the rule; the retried job applies the rest, and the first action is not applied again.
    await getDb()
      .update(schema.automationRules)
      .set({
        actions: [
          { type: 'assign_tag', tagIds: [vip.id] },
          { type: 'unassign_tag', tagIds: [vip.id] },
          { type: 'leave_note', note: 'after the broken one' },
        ],
      })
      .where(eq(schema.automationRules.id, rule.id));
    await runRulesForEvent(event);
    log = await runLog(rule.id);
    expect(log.map((l) => [l.step, l.actionIndex])).toEqual([
      ['matched', null],
      ['action_applied', 0],
      ['action_failed', 1],
      ['action_applied', 1],
      ['action_applied', 2],
    ]);
    const state = await conversationState(conv.id);
    expect(state.tagIds).toEqual([]);
    expect(state.thread.filter((m) => m.kind === 'note').map((m) => m.text)).toEqual(['after the broken one']);
  });

  it('workflows stop running when the plan loses advanceWorkflows; inbox rules go on', async () => {
    const { account, agent, inbox, vip } = await setup();
    const { setAccountPlan } = await import('../../app/models/accounts/accounts.server');
    const workflow = await makeRule({ accountId: account.id, event: 'conversation_created', actions: [{ type: 'assign_user', userId: agent.id }] });
    const inboxRule = await makeRule({
      accountId: account.id,
      kind: 'inbox_rule',
      event: 'conversation_created',
      actions: [{ type: 'assign_tag', tagIds: [vip.id] }],
    });
    await setAccountPlan({ domain: account.domain, planKey: 'starter' });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, 'On a small plan');
    await drainEvents(account.id, { after });
    const state = await conversationState(conv.id);
    expect(state.assigneeId).toBeNull();
    expect(await runLog(workflow.id)).toHaveLength(0);
    expect(state.tagIds).toEqual([vip.id]);
    expect((await runLog(inboxRule.id)).map((l) => l.step)).toEqual(['matched', 'action_applied']);
  });

  it('one account’s rules never act on another account’s data', async () => {
    const a = await setup();
    const b = await setup();
    // B's rule names A's user and tag: even if B's rule ran on A's event it could not use them.
    const bRule = await makeRule({
      accountId: b.account.id,
      event: 'conversation_created',
      actions: [{ type: 'assign_tag', tagIds: [a.vip.id] }],
    });
    const aAfter = await lastEventId(a.account.id);
    const conv = await open(a.account.id, a.inbox.id, 'Only mine');
    await drainEvents(a.account.id, { after: aAfter });
    expect(await runLog(bRule.id)).toHaveLength(0);
    expect((await conversationState(conv.id)).tagIds).toEqual([]);
    // And on B's own event, A's tag id is not found in B: skipped, nothing written to A.
    const bAfter = await lastEventId(b.account.id);
    await open(b.account.id, b.inbox.id, 'B question');
    await drainEvents(b.account.id, { after: bAfter });
    expect((await runLog(bRule.id)).map((l) => l.step)).toEqual(['matched', 'action_skipped']);
    const tagged = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.tagId, a.vip.id));
    expect(tagged).toHaveLength(0);
  });
});
