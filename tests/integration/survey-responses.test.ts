import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { endSurvey } from '../../app/models/surveys/surveys.server';
import {
  foldResultDeltas,
  recordAnswers,
  SurveyAnswerError,
  SurveyClosedError,
  SurveyResponseError,
  type RecordAnswersInput,
} from '../../app/models/surveys/responses.server';
import { cesOf, csatOf, getSurveyResults, listTextAnswers, npsOf, exportResponsesCsv } from '../../app/models/surveys/results.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId, ruleRunLines } from '../helpers/engine';
import { ALL_TYPES, publishedSurvey, questionOf } from '../helpers/surveys';

async function setup() {
  const acc = await createTestAccount();
  return { ...acc, who: { accountId: acc.account.id, actorId: acc.owner.id } };
}

let keyN = 0;
const key = () => `resp${Date.now().toString(36)}${(keyN++).toString(36)}xx`;
const answer = (base: Pick<RecordAnswersInput, 'accountId' | 'surveyId'>, answers: Record<string, unknown>, more: Partial<RecordAnswersInput> = {}) =>
  recordAnswers({ channel: 'web', responseKey: key(), complete: true, respondent: { respondentKey: 'r1' }, answers, ...base, ...more });

async function rowsOf(surveyId: number) {
  return getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, surveyId));
}
async function deltasOf(surveyId: number) {
  return getDb().select().from(schema.surveyResultDeltas).where(eq(schema.surveyResultDeltas.surveyId, surveyId));
}

describe('answers', () => {
  it('every question type is answerable; the stored shapes are the documented ones', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({
      ...a.who,
      subType: 'custom',
      types: ALL_TYPES,
      edit: (l) =>
        l.map((q) =>
          q.type === 'radio' ? { ...q, settings: { ...q.settings, options: q.settings.options!.map((o, i) => ({ ...o, enableComment: i === 0 })) } } : q,
        ),
    });
    const q = (t: Parameters<typeof questionOf>[1]) => questionOf(version!, t).id;
    const res = await answer(
      { accountId: a.account.id, surveyId: survey.id },
      {
        [q('text')]: '  Great support  ',
        [q('nps')]: 10,
        [q('radio')]: { choice: 'Option 1', comment: 'because' },
        [q('checkbox')]: { choices: ['Option 3', 'Option 1'] },
        [q('rating')]: '4',
        [q('smiley')]: 5,
        [q('dropdown')]: 'Option 2',
        [q('form')]: { 'full name': 'Ada Lovelace', email: 'ada@example.com' },
        [q('date')]: '2026-11-02',
        [q('csat')]: 4,
        [q('ces')]: 6,
      },
    );
    expect(res.completed).toBe(true);
    expect(res.response.answers).toEqual({
      [q('text')]: 'Great support',
      [q('nps')]: 10,
      [q('radio')]: { choice: 'Option 1', comment: 'because' },
      [q('checkbox')]: { choices: ['Option 1', 'Option 3'] },
      [q('rating')]: 4,
      [q('smiley')]: 5,
      [q('dropdown')]: { choice: 'Option 2' },
      [q('form')]: { 'full name': 'Ada Lovelace', email: 'ada@example.com' },
      [q('date')]: '2026-11-02',
      [q('csat')]: 4,
      [q('ces')]: 6,
    });
    expect(res.response.surveyVersionId).toBe(version!.id);
  });

  it('an answer outside its scale, of the wrong type or not an option is refused with a clear message; nothing is written', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, types: ['radio', 'checkbox', 'date', 'form', 'text', 'ces', 'smiley'] });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const nps = questionOf(version!, 'nps').id;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ [nps]: 11 }, /must be a whole number from 0 to 10/],
      [{ [nps]: 4.5 }, /must be a whole number from 0 to 10/],
      [{ [nps]: 'ten' }, /must be a whole number from 0 to 10/],
      [{ [questionOf(version!, 'ces').id]: 8 }, /from 0 to 7/],
      [{ [questionOf(version!, 'ces').id]: -1 }, /from 0 to 7/],
      [{ [questionOf(version!, 'smiley').id]: 0 }, /from 1 to 5/],
      [{ [questionOf(version!, 'radio').id]: 'Option 9' }, /“Option 9” is not one of the options/],
      [{ [questionOf(version!, 'checkbox').id]: { choices: ['Option 1', 'Nope'] } }, /is not one of the options/],
      [{ [questionOf(version!, 'date').id]: '2026-02-30' }, /must be a real date/],
      [{ [questionOf(version!, 'form').id]: { 'full name': 'A', email: 'not-an-email' } }, /enter a valid email address/],
      [{ [questionOf(version!, 'form').id]: { 'full name': 'A', email: 'a@b.co', shoe: 'x' } }, /has no field “shoe”/],
      [{ [questionOf(version!, 'text').id]: 42 }, /must be text/],
      [{ [questionOf(version!, 'text').id]: 'x'.repeat(2001) }, /at most 2000 characters/],
      [{ [questionOf(version!, 'welcome').id]: 'yes' }, /takes no answer/],
      [{ nosuchquestion: 1 }, /not in this survey/],
    ];
    for (const [answers, message] of cases) {
      const err = await answer(base, answers, { complete: false }).catch((e) => e);
      expect(err, JSON.stringify(answers)).toBeInstanceOf(SurveyAnswerError);
      expect(err.message).toMatch(message);
    }
    // Completing without a required answer: the survey's own mandatory message.
    const missing = await answer(base, { [nps]: 9 }).catch((e) => e);
    expect(missing).toBeInstanceOf(SurveyAnswerError);
    expect(missing.message).toBe('This is a required question.');
    expect(await rowsOf(survey.id)).toEqual([]);
    expect(await deltasOf(survey.id)).toEqual([]);
  });
});

describe('partial submission, limits and closed surveys', () => {
  it('with partial submission on, each answer counts as given and a changed answer moves its count', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, types: ['text'] });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const nps = questionOf(version!, 'nps').id;
    const responseKey = key();
    await answer(base, { [nps]: 3 }, { responseKey, complete: false });
    let results = await getSurveyResults({ ...base, filters: {} });
    expect(results.totals).toMatchObject({ responses: 1, completed: 0 });
    expect(results.headline.nps).toMatchObject({ score: -100, answered: 1 });
    await answer(base, { [nps]: 10 }, { responseKey, complete: false });
    await answer(base, {}, { responseKey, complete: true });
    // A retried completion changes nothing.
    expect((await answer(base, { [nps]: 0 }, { responseKey, complete: true })).alreadyComplete).toBe(true);
    results = await getSurveyResults({ ...base, filters: {} });
    expect(results.totals).toMatchObject({ responses: 1, completed: 1, completionRate: 100 });
    expect(results.headline.nps).toMatchObject({ score: 100, promoters: 1, detractors: 0, answered: 1 });
    // Another respondent cannot write into the response by its key.
    await expect(answer(base, { [nps]: 1 }, { responseKey, respondent: { respondentKey: 'someone-else' } })).rejects.toBeInstanceOf(SurveyResponseError);
  });

  it('with partial submission off, answers are a draft (not counted) until the response completes', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, settings: { allowPartialSubmission: false } });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const nps = questionOf(version!, 'nps').id;
    const responseKey = key();
    await answer(base, { [nps]: 8 }, { responseKey, complete: false });
    expect((await rowsOf(survey.id))[0]).toMatchObject({ draft: true, complete: false });
    expect(await deltasOf(survey.id)).toEqual([]);
    expect((await getSurveyResults({ ...base, filters: {} })).totals.responses).toBe(0);
    await answer(base, {}, { responseKey, complete: true });
    expect((await rowsOf(survey.id))[0]).toMatchObject({ draft: false, complete: true });
    const results = await getSurveyResults({ ...base, filters: {} });
    expect(results.totals).toMatchObject({ responses: 1, completed: 1 });
    expect(results.headline.nps).toMatchObject({ answered: 1, score: 0 });
  });

  it('the response limit completes the survey with the response that reaches it; then nothing is accepted', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, settings: { responseLimit: 2 } });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const nps = questionOf(version!, 'nps').id;
    const partialKey = key();
    await answer(base, { [nps]: 5 }, { responseKey: partialKey, complete: false, respondent: { respondentKey: 'late' } });
    await answer(base, { [nps]: 9 });
    await answer(base, { [nps]: 9 });
    const [row] = await getDb().select().from(schema.surveys).where(eq(schema.surveys.id, survey.id));
    expect(row.status).toBe('completed');
    const changes = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'survey_status_changed'))).orderBy(schema.domainEvents.id);
    expect(changes.map((e) => e.payload)).toEqual([expect.objectContaining({ status: 'completed', reason: 'response_limit' })]);
    const before = (await rowsOf(survey.id)).length;
    const late = await answer(base, { [nps]: 9 }, { responseKey: partialKey, respondent: { respondentKey: 'late' } }).catch((e) => e);
    expect(late).toBeInstanceOf(SurveyClosedError);
    expect(late.reason).toBe('completed');
    await expect(answer(base, { [nps]: 9 })).rejects.toBeInstanceOf(SurveyClosedError);
    expect((await rowsOf(survey.id)).length).toBe(before);
  });

  it('closed, unpublished and past cut-off surveys accept no response', async () => {
    const a = await setup();
    const draft = await publishedSurvey({ ...a.who, publish: false });
    const closed = await publishedSurvey({ ...a.who });
    await endSurvey({ ...a.who, id: closed.survey.id, status: 'closed', reason: 'manual' });
    // A cut-off date after today (publishing refuses a past one), answered as if two days after it.
    const cutOff = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10);
    const expired = await publishedSurvey({ ...a.who, settings: { cutOffDate: cutOff } });
    for (const [s, reason, now] of [
      [draft.survey, 'unpublished', undefined],
      [closed.survey, 'closed', undefined],
      [expired.survey, 'closed', new Date(Date.parse(`${cutOff}T10:00:00Z`) + 2 * 24 * 3600_000)],
    ] as const) {
      const nps = s.questions.find((q) => q.type === 'nps')!.id;
      const err = await answer({ accountId: a.account.id, surveyId: s.id }, { [nps]: 9 }, { now }).catch((e) => e);
      expect(err).toBeInstanceOf(SurveyClosedError);
      expect(err.reason).toBe(reason);
      expect(await rowsOf(s.id)).toEqual([]);
    }
    const [row] = await getDb().select().from(schema.surveys).where(eq(schema.surveys.id, expired.survey.id));
    expect(row.status).toBe('closed');
  });

  it("account B can neither answer into account A's survey nor read its results", async () => {
    const a = await setup();
    const b = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who });
    const nps = questionOf(version!, 'nps').id;
    await answer({ accountId: a.account.id, surveyId: survey.id }, { [nps]: 9 });
    const err = await answer({ accountId: b.account.id, surveyId: survey.id }, { [nps]: 9 }).catch((e) => e);
    expect(err).toBeInstanceOf(SurveyResponseError);
    expect(err.status).toBe(404);
    const results = await getSurveyResults({ accountId: b.account.id, surveyId: survey.id, filters: {} });
    expect(results.totals.responses).toBe(0);
    expect(results.questions).toEqual([]);
    const text = await listTextAnswers({ accountId: b.account.id, surveyId: survey.id, question: questionOf(version!, 'nps'), filters: {} });
    expect(text.rows).toEqual([]);
    expect(await new Response(await exportResponsesCsv({ accountId: b.account.id, surveyId: survey.id, filters: {} })).text()).toBe(
      'Response ID,Started,Completed,Status,Channel,Contact email,Page URL,Version\n',
    );
  });
});

describe('results', () => {
  it('NPS, CSAT and CES over answered responses; filters by date and channel; folds keep the sums', async () => {
    expect(
      npsOf(
        new Map([
          [10, 5],
          [8, 3],
          [6, 2],
        ]),
      ),
    ).toMatchObject({ score: 30, promoters: 5, passives: 3, detractors: 2 });
    expect(
      csatOf(
        new Map([
          [5, 2],
          [4, 1],
          [2, 1],
        ]),
        5,
      ),
    ).toMatchObject({ satisfiedPct: 75, average: 4 });
    expect(
      csatOf(
        new Map([
          [3, 1],
          [2, 1],
        ]),
        3,
      ),
    ).toMatchObject({ satisfiedPct: 50 });
    expect(
      cesOf(
        new Map([
          [7, 1],
          [5, 1],
          [4, 1],
          [1, 1],
        ]),
        7,
      ),
    ).toMatchObject({ agreePct: 75, average: 4.3 });

    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, types: ['csat', 'ces', 'text', 'radio'] });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const id = (t: Parameters<typeof questionOf>[1]) => questionOf(version!, t).id;
    const full = (nps: number, csat: number, ces: number, text: string) => ({
      [id('nps')]: nps,
      [id('csat')]: csat,
      [id('ces')]: ces,
      [id('text')]: text,
      [id('radio')]: 'Option 2',
    });
    await answer(base, full(10, 5, 7, 'Loved it'), { now: new Date('2026-11-01T10:00:00Z') });
    await answer(base, full(9, 4, 6, 'Good'), { now: new Date('2026-11-02T10:00:00Z') });
    await answer(base, full(3, 1, 2, 'Slow'), { now: new Date('2026-11-03T10:00:00Z'), channel: 'web' });
    // A partial response with no NPS answer does not count in NPS (answered responses only).
    await answer(base, { [id('csat')]: 5 }, { complete: false, now: new Date('2026-11-03T11:00:00Z') });

    const all = await getSurveyResults({ ...base, filters: {} });
    expect(all.totals).toEqual({ responses: 4, completed: 3, partial: 1, completionRate: 75 });
    expect(all.headline.nps).toMatchObject({ score: 33, answered: 3 });
    expect(all.headline.csat).toMatchObject({ satisfiedPct: 75, average: 3.8, answered: 4 });
    expect(all.headline.ces).toMatchObject({ average: 5, agreePct: 66.7 });
    expect(all.questions.find((q) => q.type === 'radio')!.bars.map((b) => [b.label, b.count])).toEqual([
      ['Option 1', 0],
      ['Option 2', 3],
      ['Option 3', 0],
    ]);
    expect(all.overTime.buckets.map((b) => [b.day, b.responses, b.completed])).toEqual([
      ['2026-11-01', 1, 1],
      ['2026-11-02', 1, 1],
      ['2026-11-03', 2, 1],
    ]);
    const firstTwoDays = await getSurveyResults({ ...base, filters: { from: '2026-11-01', to: '2026-11-02' } });
    expect(firstTwoDays.headline.nps).toMatchObject({ score: 100, answered: 2 });
    expect((await getSurveyResults({ ...base, filters: { channel: 'in-app' } })).totals.responses).toBe(0);
    const texts = await listTextAnswers({ ...base, question: questionOf(version!, 'text'), filters: {} });
    expect(texts.rows.map((t) => t.text)).toEqual(['Slow', 'Good', 'Loved it']);

    await foldResultDeltas(base);
    const folded = await getSurveyResults({ ...base, filters: {} });
    expect(folded.totals).toEqual(all.totals);
    expect(folded.questions).toEqual(all.questions);

    const csv = await new Response(await exportResponsesCsv({ ...base, filters: {} })).text();
    const lines = csv.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain('How likely are you to recommend us to a friend or colleague?');
    expect(lines[1]).toContain('Loved it');
    expect(lines[4]).toContain('Partial');
  });
});

describe('CES runs 0 to 7 (section 9)', () => {
  it('0 is an answer: stored, counted in its own bar and in the average; the bars run 0 to 7', async () => {
    const a = await setup();
    const { survey, version } = await publishedSurvey({ ...a.who, types: ['ces'] });
    const base = { accountId: a.account.id, surveyId: survey.id };
    const ces = questionOf(version!, 'ces').id;
    const nps = questionOf(version!, 'nps').id;
    await answer(base, { [nps]: 8, [ces]: 0 });
    await answer(base, { [nps]: 8, [ces]: '0' });
    await answer(base, { [nps]: 8, [ces]: 6 });
    const rows = await rowsOf(survey.id);
    expect(rows.map((r) => (r.answers as Record<string, unknown>)[ces]).sort()).toEqual([0, 0, 6]);
    const results = await getSurveyResults({ ...base, filters: {} });
    const q = results.questions.find((x) => x.type === 'ces')!;
    expect(q.bars.map((b) => b.key)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(q.bars[0]).toMatchObject({ count: 2, pct: 66.7 });
    expect(q.answered).toBe(3);
    expect(results.headline.ces).toMatchObject({ average: 2, agreePct: 33.3, points: 7, answered: 3 });
  });
});

describe('survey_received', () => {
  it('completion writes the event in the same transaction; a workflow on it tags the respondent’s conversation', async () => {
    const a = await setup();
    const inbox = await createInbox({ ...a.who, name: 'Chat', channelType: 'email', email: `chat-${a.account.id}@example.test` });
    const tag = await createTag({ ...a.who, name: 'survey-detractor', color: 'red' });
    const opened = await openConversation({
      accountId: a.account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Help',
      contact: { email: 'resp@example.com', name: 'Res Pondent' },
      message: { kind: 'incoming', text: 'Hi' },
    });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: a.account.id,
        kind: 'workflow',
        name: 'Tag detractors',
        event: 'survey_received',
        conditions: [{ field: 'rating', op: 'below', value: '7' }],
        conditionOperator: 'and',
        filters: [],
        actions: [{ type: 'assign_tag', tagIds: [tag.id] }],
        sources: [],
        isActive: true,
      })
      .returning();
    const { survey, version } = await publishedSurvey({ ...a.who, channel: 'in-app' });
    const after = await lastEventId(a.account.id);
    const res = await recordAnswers({
      accountId: a.account.id,
      surveyId: survey.id,
      channel: 'in-app',
      responseKey: key(),
      complete: true,
      answers: { [questionOf(version!, 'nps').id]: 4 },
      respondent: { respondentKey: 'v:test', contactId: opened.contact.id, conversationId: opened.conversation.id },
    });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'survey_received'))).orderBy(schema.domainEvents.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ subjectType: 'survey_response', subjectId: String(res.response.id) });
    expect(events[0].payload).toMatchObject({
      surveyId: survey.id,
      kind: 'nps',
      channel: 'in_app',
      rating: 4,
      contactId: opened.contact.id,
      conversationId: opened.conversation.id,
    });
    await drainEvents(a.account.id, { after });
    const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, opened.conversation.id));
    expect(tags.map((t) => t.tagId)).toEqual([tag.id]);
    const runs = await ruleRunLines(rule.id);
    expect(runs.map((r) => r.step)).toContain('action_applied');
  });
});
