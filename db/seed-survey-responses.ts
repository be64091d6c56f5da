import { and, asc, eq } from 'drizzle-orm';
import { getDb, schema } from './client';
import { recordAnswers } from '../app/models/surveys/responses.server';

/**
 * Responses for the demo's published surveys, written through `recordAnswers` like real respondents (ADR 060):
 * six weeks of the web Checkout NPS (mostly promoters, some comments, a few left half way) and of the in-app
 * onboarding CES (answered by known contacts). Deterministic: the same demo every time.
 */
export async function seedDemoSurveyResponses(opts: { accountId: number; now?: Date }) {
  const now = opts.now ?? new Date();
  const db = getDb();
  const surveys = await db
    .select({ survey: schema.surveys, version: schema.surveyVersions })
    .from(schema.surveys)
    .innerJoin(schema.surveyVersions, eq(schema.surveyVersions.id, schema.surveys.publishedVersionId))
    .where(and(eq(schema.surveys.accountId, opts.accountId), eq(schema.surveys.status, 'published')));
  const contacts = await db
    .select({ id: schema.contacts.id })
    .from(schema.contacts)
    .where(eq(schema.contacts.accountId, opts.accountId))
    .orderBy(asc(schema.contacts.id))
    .limit(40);
  let seed = 7;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const COMMENTS = [
    'Checkout was quick and painless.',
    'Delivery options were clear.',
    'I could not find the discount code field.',
    'Love the new payment page!',
    'Shipping costs came as a surprise at the end.',
    'Everything worked on my phone.',
    'Would be nice to save my address.',
    'Great prices, fast delivery.',
  ];
  for (const { survey, version } of surveys) {
    const questions = version.questions;
    const count = survey.channel === 'web' ? 160 : 90;
    for (let i = 0; i < count; i++) {
      const started = new Date(now.getTime() - Math.floor(rand() * 42 * 86_400_000));
      const answers: Record<string, unknown> = {};
      for (const q of questions) {
        if (q.type === 'nps') answers[q.id] = pick([10, 10, 9, 9, 9, 8, 8, 7, 6, 5, 3, 10, 9, 8]);
        if (q.type === 'ces') answers[q.id] = pick([7, 7, 6, 6, 6, 5, 5, 4, 3, 2, 1, 0]);
        if (q.type === 'csat') answers[q.id] = pick([5, 5, 4, 4, 4, 3, 2]);
        if (q.type === 'text' && rand() < 0.45) answers[q.id] = pick(COMMENTS);
        if ((q.type === 'radio' || q.type === 'dropdown') && q.settings.options?.length) answers[q.id] = { choice: pick(q.settings.options).choice };
      }
      const partial = rand() < 0.12;
      const scaleOnly = Object.fromEntries(Object.entries(answers).slice(0, 1));
      const contact = survey.channel === 'in-app' && contacts.length ? contacts[i % contacts.length].id : null;
      await recordAnswers({
        accountId: opts.accountId,
        surveyId: survey.id,
        channel: survey.channel,
        responseKey: `demo${survey.id}x${i}xxxxxx`,
        answers: partial ? scaleOnly : answers,
        complete: !partial,
        respondent: {
          respondentKey: contact ? `demo-contact-${contact}` : `demo-${i}`,
          contactId: contact,
          pageUrl: survey.channel === 'in-app' ? 'https://shop.example/dashboard' : null,
        },
        now: started,
      });
    }
  }
}
