import { and, eq } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import type { Cause } from '../events/events.server';
import { findOrOpenLinkedConversation, NoLinkedConversation } from '../inbox/linked-conversations.server';
import { answerText } from './answers';
import type { SurveyQuestion } from './types';

const r = schema.surveyResponses;

/**
 * The conversation of an anonymous survey answer (no contact, no conversation), opened on first need by a workflow's
 * action on survey_received (ADR 149): an internal ticket whose first message lists the answers, question by
 * question as the respondent saw them. The respondent is a contact known by their respondent key (contact identity
 * `survey`): the same browser answering again is the same anonymous respondent. NoLinkedConversation when the
 * response is gone or not complete.
 */
export async function findOrOpenResponseConversation(tx: Tx, opts: { accountId: number; responseId: number; inboxId?: number | null; cause?: Cause }) {
  const [row] = await tx
    .select({ response: r, surveyName: schema.surveys.name, questions: schema.surveyVersions.questions })
    .from(r)
    .innerJoin(schema.surveys, and(eq(schema.surveys.id, r.surveyId), eq(schema.surveys.accountId, opts.accountId)))
    .innerJoin(schema.surveyVersions, eq(schema.surveyVersions.id, r.surveyVersionId))
    .where(and(eq(r.accountId, opts.accountId), eq(r.id, opts.responseId)));
  if (!row || !row.response.complete) throw new NoLinkedConversation('the survey response no longer exists');
  const { response } = row;
  const questions = [...(row.questions as SurveyQuestion[])].sort((a, b) => a.order - b.order);
  const lines = questions
    .filter((q) => response.answers[q.id] !== undefined)
    .flatMap((q) => [`${q.question || q.heading || 'Question'}`, `→ ${answerText(q, response.answers[q.id]) || '(no answer)'}`, '']);
  const text = [
    `Anonymous answer to “${row.surveyName}” (${response.channel})${response.pageUrl ? ` on ${response.pageUrl}` : ''}`,
    '',
    ...(lines.length ? lines : ['(No answers.)', '']),
    `Results: /surveys/${response.surveyId}/results`,
  ].join('\n');
  return findOrOpenLinkedConversation(tx, {
    accountId: opts.accountId,
    key: `survey-response:${response.id}`,
    subject: `Survey answer: ${row.surveyName}`,
    text,
    contact: response.contactId
      ? { id: response.contactId }
      : { name: 'Anonymous respondent', identity: { channel: 'survey', externalId: response.respondentKey } },
    inboxId: opts.inboxId,
    cause: opts.cause,
  });
}
