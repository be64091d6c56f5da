import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { RuleAction } from '../../app/models/automation/rule-types';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { findReviewConversationId } from '../../app/models/reviews/review-conversations.server';
import { createSource, importSourceReviews } from '../../app/models/reviews/reviews.server';
import { recordAnswers } from '../../app/models/surveys/responses.server';
import { createTestAccount, createTestUser } from '../factories';
import { drainEvents, lastEventId, ruleRunLines } from '../helpers/engine';
import { startGoogleReviews } from '../helpers/review-apis';
import { publishedSurvey, questionOf } from '../helpers/surveys';

// ADR 149: a workflow's assign, tag and note on a review or an anonymous survey answer act on a conversation opened
// (or reused) for it, which the team sees in the inbox; the engine runs the events as it does in production.

async function setup() {
  const { account, owner } = await createTestAccount();
  const agent = await createTestUser({ accountId: account.id, firstName: 'Rita' });
  // An email inbox first, then an internal one: the linked conversations go to the internal inbox.
  await createInbox({ accountId: account.id, actorId: owner.id, name: 'Mail', channelType: 'email', email: `mail-${account.id}@example.test` });
  const internal = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Team', channelType: 'internal' });
  const tag = await createTag({ accountId: account.id, actorId: owner.id, name: 'needs-answer', color: 'red' });
  return { account, owner, agent, internal, tag };
}

async function workflow(accountId: number, event: string, actions: RuleAction[]) {
  const [row] = await getDb()
    .insert(schema.automationRules)
    .values({ accountId, kind: 'workflow', name: `wf ${event}`, event, conditions: [], conditionOperator: 'and', filters: [], actions, sources: [], isActive: true })
    .returning();
  return row;
}

async function thread(conversationId: number) {
  const conv = (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)))[0];
  const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversationId)).orderBy(asc(schema.messages.id));
  const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversationId));
  const [contact] = conv.contactId ? await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conv.contactId)) : [];
  return { conv, messages, tagIds: tags.map((t) => t.tagId), contact };
}

describe('workflows on review_received', () => {
  it('assign + tag + note on imported Google reviews open one conversation per review, in the inbox, with the review in its thread', async () => {
    const s = await setup();
    const location = 'accounts/1/locations/2';
    const google = await startGoogleReviews({
      location,
      token: 'tok',
      reviews: [
        { id: 'g1', name: 'Gus Grumble', rating: 2, comment: 'Waited two days for an answer' },
        { id: 'g2', name: 'Gus Grumble', rating: 3 },
      ],
    });
    try {
      const rule = await workflow(s.account.id, 'review_received', [
        { type: 'assign_user', userId: s.agent.id },
        { type: 'assign_tag', tagIds: [s.tag.id] },
        { type: 'leave_note', note: 'Answer this one publicly today' },
      ]);
      const source = await createSource({
        accountId: s.account.id,
        actorId: s.owner.id,
        input: { kind: 'google', name: 'Google', reviewUrl: null, locationName: location, businessUnitId: null, apiKey: null, accessToken: 'tok' },
        apiBase: google.url,
      });
      const after = await lastEventId(s.account.id);
      expect(await importSourceReviews({ accountId: s.account.id, sourceId: source.id })).toEqual({ imported: 2 });
      await drainEvents(s.account.id, { after });

      const reviews = await getDb().select().from(schema.reviews).where(eq(schema.reviews.accountId, s.account.id)).orderBy(asc(schema.reviews.id));
      expect(reviews).toHaveLength(2);
      const convIds = await Promise.all(reviews.map((r) => findReviewConversationId({ accountId: s.account.id, reviewId: r.id })));
      expect(convIds.every((id) => typeof id === 'number')).toBe(true);
      expect(new Set(convIds).size).toBe(2);

      const first = await thread(convIds[0]!);
      expect(first.conv).toMatchObject({ accountId: s.account.id, inboxId: s.internal.id, sourceType: 'internal_ticket', assigneeId: s.agent.id, status: 'open' });
      expect(first.conv.subject).toBe('2★ review on Google');
      expect(first.tagIds).toEqual([s.tag.id]);
      const [opening] = first.messages;
      expect(opening).toMatchObject({ kind: 'incoming', externalId: `review:${reviews[0].id}`, senderContactId: first.contact!.id });
      expect(opening.text).toContain('★★☆☆☆ 2 of 5 on Google');
      expect(opening.text).toContain('Waited two days for an answer');
      expect(opening.text).toContain(`/reviews/${reviews[0].id}`);
      expect(first.messages.filter((m) => m.kind === 'note').map((m) => m.text)).toEqual(['Answer this one publicly today']);
      // The reviewer is a contact by their public name on this source, and the review now names them.
      expect(first.contact).toMatchObject({ firstName: 'Gus', lastName: 'Grumble', email: null, source: 'internal_ticket' });
      expect(reviews.map((r) => r.contactId)).toEqual([first.contact!.id, first.contact!.id]);
      const second = await thread(convIds[1]!);
      expect(second.contact!.id).toBe(first.contact!.id);
      expect(second.messages[0].text).toContain('(Only a rating, no text.)');

      // The run history says what was done, on which conversation; nothing was skipped.
      const lines = await ruleRunLines(rule.id);
      const actions = lines.filter((l) => l.actionIndex !== null);
      expect(actions.map((l) => l.step)).toEqual(Array(6).fill('action_applied'));
      expect(actions.filter((l) => l.eventId === lines[0].eventId).map((l) => l.conversationId)).toEqual([convIds[0], convIds[0], convIds[0]]);
      expect(String(actions[0].detail.result)).toBe(`assigned conversation #${convIds[0]} (opened for the review) to Rita ${s.agent.lastName}`.trim());

      // Delivered again (an engine that died after its commit): nothing is opened or applied twice.
      const [event] = await getDb()
        .select()
        .from(schema.domainEvents)
        .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'review_received')))
        .orderBy(asc(schema.domainEvents.id))
        .limit(1);
      const { processEvent } = await import('../../engine/events');
      await processEvent(event.id);
      const again = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id));
      expect(again).toHaveLength(2);
    } finally {
      await google.close();
    }
  });

  it('a review that is gone is a skipped action with its reason in the run log, never a silent skip', async () => {
    const s = await setup();
    const rule = await workflow(s.account.id, 'review_received', [{ type: 'leave_note', note: 'Look at it' }]);
    const after = await lastEventId(s.account.id);
    const { emitReviewReceived } = await import('../../app/models/events/engagement.server');
    await getDb().transaction((tx) => emitReviewReceived(tx, { accountId: s.account.id, reviewId: 987654, source: 'google', rating: 1 }));
    await drainEvents(s.account.id, { after });
    const lines = await ruleRunLines(rule.id);
    expect(lines.map((l) => l.step)).toEqual(['matched', 'action_skipped']);
    expect(lines[1].detail).toEqual({ reason: 'the review no longer exists' });
  });
});

describe('workflows on anonymous survey answers', () => {
  it('assign + tag + note open a conversation that shows the answers; a case is skipped with its reason', async () => {
    const s = await setup();
    const { survey, version } = await publishedSurvey({ accountId: s.account.id, actorId: s.owner.id, name: 'Website NPS', subType: 'nps', types: ['text'] });
    const nps = questionOf(version!, 'nps');
    const text = questionOf(version!, 'text');
    const rule = await workflow(s.account.id, 'survey_received', [
      { type: 'assign_user', userId: s.agent.id },
      { type: 'assign_tag', tagIds: [s.tag.id] },
      { type: 'leave_note', note: 'Detractor: see what went wrong' },
      { type: 'convert_to_case', inboxId: s.internal.id, title: 'Detractor', description: 'Call back' },
    ]);
    const after = await lastEventId(s.account.id);
    const response = await recordAnswers({
      accountId: s.account.id,
      surveyId: survey.id,
      channel: 'web',
      responseKey: `anon${Date.now().toString(36)}key`,
      complete: true,
      respondent: { respondentKey: 'cookie-anon-1' },
      answers: { [nps.id]: 2, [text.id]: 'The checkout kept failing' },
    });
    await drainEvents(s.account.id, { after });

    const lines = await ruleRunLines(rule.id);
    expect(lines.map((l) => l.step)).toEqual(['matched', 'action_applied', 'action_applied', 'action_applied', 'action_skipped']);
    expect(lines[4].detail).toEqual({ reason: 'the survey answer is anonymous: a case needs a contact with an email address' });
    const convId = lines[1].conversationId!;
    expect(convId).toBeTypeOf('number');
    const t = await thread(convId);
    expect(t.conv).toMatchObject({ inboxId: s.internal.id, sourceType: 'internal_ticket', assigneeId: s.agent.id, subject: 'Survey answer: Website NPS' });
    expect(t.tagIds).toEqual([s.tag.id]);
    expect(t.messages[0]).toMatchObject({ kind: 'incoming', externalId: `survey-response:${response.response.id}` });
    expect(t.messages[0].text).toContain('Anonymous answer to “Website NPS” (web)');
    expect(t.messages[0].text).toContain(nps.question);
    expect(t.messages[0].text).toContain('→ 2');
    expect(t.messages[0].text).toContain('→ The checkout kept failing');
    expect(t.messages.filter((m) => m.kind === 'note').map((m) => m.text)).toEqual(['Detractor: see what went wrong']);
    expect(t.contact).toMatchObject({ firstName: 'Anonymous', lastName: 'respondent', email: null });
    // No case was opened: the only conversation is the answer's.
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, s.account.id))).toHaveLength(1);
  });
});
