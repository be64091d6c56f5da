import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { FEATURE_DENIED_MESSAGE } from '~/models/plans/catalogue';
import { planAllows } from '~/models/plans/enforce.server';
import { isHostAllowed, readMessengerSettings } from '~/models/channels/messenger-settings';
import { visitorFromToken } from '~/models/channels/widget.server';
import { visitorRespondent } from '~/models/surveys/in-app.server';
import { CLOSED_MESSAGES } from '~/models/surveys/response-types';
import { recordAnswers, RESPONSE_KEY_PATTERN, SurveyAnswerError, SurveyClosedError, SurveyResponseError } from '~/models/surveys/responses.server';
import { enforceRateLimit } from '~/utils/rate-limit.server';
import { MAX_ROW_ID } from '~/utils/route-id';

/**
 * The in-app survey module's API (ADR 061), beside the widget's: CORS for any origin, no cookies, the widget
 * visitor's token in the Authorization header. POST answer: answers as they are given, and the completion.
 */

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Max-Age': '600',
  'Cache-Control': 'no-store',
};
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { ...CORS, 'Content-Type': 'application/json; charset=utf-8' } });

const AnswerInput = z.object({
  surveyId: z.number().int().positive().max(MAX_ROW_ID),
  responseKey: z.string().regex(RESPONSE_KEY_PATTERN),
  answers: z.record(z.string().max(32), z.unknown()).refine((a) => Object.keys(a).length <= 60, 'Too many answers'),
  complete: z.boolean().optional().default(false),
  url: z.string().max(2000).nullish(),
});

export async function loader({ request }: LoaderFunctionArgs) {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
  return json({ error: 'Not Found' }, 404);
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
  if (request.method !== 'POST' || params.op !== 'answer') return json({ error: 'Not Found' }, 404);
  const token = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '') ?? null;
  const found = await visitorFromToken(token);
  if (!found) return json({ error: 'Your chat session has expired. Reload the page to start again' }, 401);
  if (!isHostAllowed(readMessengerSettings(found.inbox.settings).advanced, request.headers.get('origin')))
    return json({ error: 'This site may not use this chat' }, 403);
  // The messenger and the Surveys area (ADR 157): the session offers no survey without them; an answer queued before
  // the plan changed is refused.
  const accountId = found.inbox.accountId;
  if (!(await planAllows({ accountId, key: 'chatMessenger/enabled' })) || !(await planAllows({ accountId, key: 'customerSatisfactionSurveys/enabled' })))
    return json({ error: FEATURE_DENIED_MESSAGE }, 403);
  const { visitor } = found;
  try {
    await enforceRateLimit(`widget-survey:${visitor.id}`, { limit: 120, windowMs: 60_000 });
  } catch (err) {
    if (err instanceof Response) return json({ error: 'Too many answers: wait a minute' }, err.status);
    throw err;
  }
  const text = await request.text();
  if (text.length > 32 * 1024) return json({ error: 'Too large' }, 413);
  let body: unknown;
  try {
    body = JSON.parse(text || '{}');
  } catch {
    return json({ error: 'The request is not valid JSON' }, 400);
  }
  const input = AnswerInput.safeParse(body);
  if (!input.success) return json({ error: 'The request is not valid' }, 400);
  try {
    const result = await recordAnswers({
      accountId: visitor.accountId,
      surveyId: input.data.surveyId,
      channel: 'in-app',
      responseKey: input.data.responseKey,
      answers: input.data.answers,
      complete: input.data.complete,
      respondent: {
        respondentKey: visitorRespondent(visitor),
        contactId: visitor.contactId,
        widgetVisitorId: visitor.id,
        conversationId: visitor.conversationId,
        pageUrl: input.data.url ?? null,
      },
    });
    return json({ ok: true, complete: result.response.complete });
  } catch (err) {
    if (err instanceof SurveyAnswerError) return json({ error: err.message, questionId: err.questionId ?? null }, 400);
    if (err instanceof SurveyClosedError) return json({ error: CLOSED_MESSAGES[err.reason], closed: true }, 410);
    if (err instanceof SurveyResponseError) return json({ error: err.message }, err.status);
    throw err;
  }
}
