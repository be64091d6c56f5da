import { FEATURE_DENIED_MESSAGE } from '~/models/shell/denied-messages';
import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, isRouteErrorResponse, useActionData, useLoaderData, useRouteError } from '@remix-run/react';
import { AllQuestionsForm } from '~/components/surveys/all-questions-form';
import { AnswerArea } from '~/components/surveys/question-input';
import { readableBrand } from '~/models/surveys/colour';
import { answerText, checkAnswers, isAnswerable, readAnswersFromForm } from '~/models/surveys/answers';
import { ALREADY_ANSWERED, CLOSED_DETAIL, CLOSED_MESSAGES, type ClosedReason } from '~/models/surveys/response-types';
import {
  findOpenResponse,
  findPublicSurvey,
  getVersion,
  hasCompleted,
  questionsOf,
  randomKey,
  recordAnswers,
  SurveyAnswerError,
  SurveyClosedError,
  SurveyResponseError,
  type SurveyVersion,
} from '~/models/surveys/responses.server';
import type { SurveyQuestion } from '~/models/surveys/types';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { protocolOf, requireAccount } from '~/utils/tenant.server';
import surveyStyles from '../styles/survey.css?url';

/**
 * A web survey's public page, /survey/web/{accountId}/{uniqueId} on the account host (ADR 061): no sign-in, no
 * script. Traditional: every question on one page, one submission. Conversational: one question per page load as
 * chat bubbles, the answers so far kept on the server under a respondent cookie.
 */

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: surveyStyles }];
export const handle = { hydrate: false };

const COOKIE = 'parley_sr';
const COOKIE_PATTERN = /(?:^|;\s*)parley_sr=([A-Za-z0-9_-]{16,64})/;

function respondentOf(request: Request) {
  const found = COOKIE_PATTERN.exec(request.headers.get('cookie') ?? '')?.[1];
  if (found) return { key: found, setCookie: null as string | null };
  const key = randomKey();
  const secure = protocolOf(request) === 'https:' ? '; Secure' : '';
  return { key, setCookie: `${COOKIE}=${key}; Path=/survey/; Max-Age=31536000; HttpOnly; SameSite=Lax${secure}` };
}

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'customerSatisfactionSurveys/enabled', page: true });
  const found = await findPublicSurvey({ accountId: account.id, uniqueId: params.uniqueId ?? '' });
  if (!found || found.survey.channel !== 'web') throw new Response('Not Found', { status: 404 });
  return { account, ...found };
}

type View =
  | { kind: 'closed'; reason: ClosedReason }
  | { kind: 'done' }
  | { kind: 'answered' }
  | { kind: 'traditional'; values: Record<string, unknown>; errors: Record<string, string> }
  | {
      kind: 'conversational';
      step: number;
      values: Record<string, unknown>;
      errors: Record<string, string>;
      /** The questions before this one with the answers given, as chat bubbles. */
      history: { id: string; question: string; answer: string }[];
    };

function shell(found: Awaited<ReturnType<typeof load>>, version: SurveyVersion | undefined) {
  const v = version;
  return {
    path: `/survey/web/${found.survey.accountId}/${found.survey.uniqueId}`,
    name: v?.name ?? 'Survey',
    logo: !!found.survey.logoAttachmentId,
    design: v
      ? {
          header: v.design.header,
          subHeader: v.design.subHeader,
          footer: v.design.footer,
          brandColor: v.design.brandColor,
          showBranding: v.design.showBranding,
          showProgressBar: v.design.showProgressBar,
          showQuestionNumber: v.design.showQuestionNumber,
          indicateMandatory: v.design.indicateMandatory,
        }
      : null,
    messages: v?.messages ?? null,
    questions: v ? questionsOf(v) : [],
    format: v?.design.themeType === 'conversational' ? ('conversational' as const) : ('traditional' as const),
    refresh: !!v?.target.refreshOnCompletion,
  };
}

/** The page of the version an open response answers, when it is not the survey's current one. */
async function pageFor(found: Awaited<ReturnType<typeof load>>, page: ReturnType<typeof shell>, open: { surveyVersionId: number } | undefined) {
  if (!open || open.surveyVersionId === found.version?.id) return page;
  const version = await getVersion({ accountId: found.survey.accountId, id: open.surveyVersionId });
  return version ? shell(found, version) : page;
}

function historyOf(questions: SurveyQuestion[], step: number, answers: Record<string, unknown>) {
  return questions
    .slice(0, step)
    .filter((q) => isAnswerable(q.type) && answers[q.id] !== undefined)
    .map((q) => ({ id: q.id, question: q.question, answer: answerText(q, answers[q.id] as never) }));
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const found = await load(request, params);
  const page = shell(found, found.version);
  const respondent = respondentOf(request);
  const headers: HeadersInit = respondent.setCookie ? { 'Set-Cookie': respondent.setCookie } : {};
  const url = new URL(request.url);
  const base = { ...page };
  if (url.searchParams.get('done') === '1') return data({ ...base, view: { kind: 'done' } as View }, { headers });
  if (found.closed) return data({ ...base, view: { kind: 'closed', reason: found.closed } as View }, { status: 410, headers });
  const who = { accountId: found.survey.accountId, surveyId: found.survey.id, respondentKey: respondent.key };
  if (!found.version!.target.allowRetaking && !respondent.setCookie && (await hasCompleted(who)))
    return data({ ...base, view: { kind: 'answered' } as View }, { headers });
  if (page.format === 'traditional') return data({ ...base, view: { kind: 'traditional', values: {}, errors: {} } as View }, { headers });
  const open = respondent.setCookie ? undefined : await findOpenResponse(who);
  // A respondent half way through goes on with the version they started, even if the survey was published again since.
  const mine = await pageFor(found, page, open);
  const step = Math.min(Math.max(0, Number.parseInt(url.searchParams.get('step') ?? '0', 10) || 0), mine.questions.length - 1);
  const answers = (open?.answers ?? {}) as Record<string, unknown>;
  return data(
    { ...mine, view: { kind: 'conversational', step, values: answers, errors: {}, history: historyOf(mine.questions, step, answers) } as View },
    { headers },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  const found = await load(request, params);
  await enforceRateLimit(`survey-web:${clientIp(request)}`, { limit: 120, windowMs: 60_000 });
  let page = shell(found, found.version);
  if (found.closed) return data({ ...page, view: { kind: 'closed', reason: found.closed } as View }, { status: 410 });
  const form = await request.formData();
  const intent = form.get('intent');
  const respondent = respondentOf(request);
  const version = found.version!;
  const who = { accountId: found.survey.accountId, surveyId: found.survey.id, respondentKey: respondent.key };
  const context = { respondentKey: respondent.key, pageUrl: request.headers.get('referer') };
  const done = () => redirect(`${page.path}?done=1`, respondent.setCookie ? { headers: { 'Set-Cookie': respondent.setCookie } } : undefined);
  const refuse = (err: unknown) => {
    if (err instanceof SurveyClosedError) return data({ ...page, view: { kind: 'closed', reason: err.reason } as View }, { status: 410 });
    if (err instanceof SurveyResponseError) throw new Response(err.message, { status: err.status });
    throw err;
  };
  if (!version.target.allowRetaking && !respondent.setCookie && (await hasCompleted(who))) return data({ ...page, view: { kind: 'answered' } as View });

  if (page.format === 'traditional') {
    if (intent !== 'submit') throw new Response('Unknown action', { status: 400 });
    const raw = readAnswersFromForm(form, page.questions);
    const checked = checkAnswers(page.questions, raw, { required: true, mandatory: version.messages.mandatory });
    if (Object.keys(checked.errors).length)
      return data({ ...page, view: { kind: 'traditional', values: raw, errors: checked.errors } as View }, { status: 400 });
    try {
      await recordAnswers({ ...who, channel: 'web', responseKey: randomKey(), answers: checked.answers, complete: true, respondent: context });
    } catch (err) {
      if (err instanceof SurveyAnswerError)
        return data({ ...page, view: { kind: 'traditional', values: raw, errors: { [err.questionId ?? '']: err.message } } as View }, { status: 400 });
      return refuse(err);
    }
    return done();
  }

  // Conversational: one question per request; without the respondent cookie the answers so far cannot be kept.
  if (respondent.setCookie) throw new Response('Your browser must accept cookies to answer this survey one question at a time.', { status: 400 });
  const open = await findOpenResponse(who);
  page = await pageFor(found, page, open);
  const step = Number.parseInt(String(form.get('step') ?? ''), 10);
  const q = page.questions[step];
  if (!q) throw new Response('Unknown question', { status: 400 });
  const go = (to: number) => redirect(to > 0 ? `${page.path}?step=${to}` : page.path);
  if (intent === 'start') return go(step + 1);
  if (intent !== 'next' && intent !== 'previous') throw new Response('Unknown action', { status: 400 });
  const responseKey = open?.responseKey ?? randomKey();
  const raw = readAnswersFromForm(form, [q]);
  const answers = (open?.answers ?? {}) as Record<string, unknown>;
  const render = (at: number, errors: Record<string, string>, values: Record<string, unknown>) =>
    data({ ...page, view: { kind: 'conversational', step: at, values, errors, history: historyOf(page.questions, at, answers) } as View }, { status: 400 });

  if (intent === 'previous') {
    // Going back keeps what was typed when it is a valid answer; it never blocks on a required question.
    const checked = checkAnswers([q], raw, { required: false, mandatory: '' });
    if (isAnswerable(q.type) && !checked.errors[q.id] && checked.answers[q.id] !== null) {
      await recordAnswers({ ...who, channel: 'web', responseKey, answers: checked.answers, complete: false, respondent: context }).catch(refuse);
    }
    return go(Math.max(0, step - 1));
  }
  const checked = checkAnswers([q], raw, { required: true, mandatory: version.messages.mandatory });
  if (checked.errors[q.id]) return render(step, checked.errors, { ...answers, ...raw });
  const last = step >= page.questions.length - 1;
  if (!isAnswerable(q.type) && !last) return go(step + 1);
  try {
    await recordAnswers({ ...who, channel: 'web', responseKey, answers: isAnswerable(q.type) ? checked.answers : {}, complete: last, respondent: context });
  } catch (err) {
    if (err instanceof SurveyAnswerError) {
      // A required question left behind (a step skipped by its address): show that question with the message.
      const at = Math.max(
        0,
        page.questions.findIndex((x) => x.id === err.questionId),
      );
      return render(at, { [err.questionId ?? '']: err.message }, answers);
    }
    return refuse(err);
  }
  return last ? done() : go(step + 1);
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => {
  const tags: ReturnType<MetaFunction> = [{ title: d?.name ?? 'Survey' }, { name: 'robots', content: 'noindex' }];
  if (d?.view.kind === 'done' && d.refresh) tags.push({ httpEquiv: 'refresh', content: `5;url=${d.path}` });
  return tags;
};

type PageData = ReturnType<typeof shell> & { view: View };

export default function WebSurvey() {
  const loaded = useLoaderData<typeof loader>() as unknown as PageData;
  const acted = useActionData<typeof action>() as unknown as PageData | undefined;
  const p = acted ?? loaded;
  const v = p.view;
  return (
    <div className="sv" style={{ ['--sv-brand' as string]: readableBrand(p.design?.brandColor ?? '#2287FB') }}>
      <header className="sv-header">
        {p.logo ? <img className="sv-logo" src={p.path.replace('/survey/web/', '/survey/logo/')} alt="" height={32} /> : null}
        {p.design?.header ? <h1>{p.design.header}</h1> : <h1>{p.name}</h1>}
        {p.design?.subHeader && (v.kind === 'traditional' || v.kind === 'conversational') ? <p className="sv-sub">{p.design.subHeader}</p> : null}
      </header>
      <main id="main" className="sv-main">
        {v.kind === 'closed' ? (
          <div className="sv-card sv-end" data-testid="survey-closed">
            <h2>{CLOSED_MESSAGES[v.reason]}</h2>
            <p>{CLOSED_DETAIL}</p>
          </div>
        ) : v.kind === 'done' || v.kind === 'answered' ? (
          <div className="sv-card sv-end" role="status" data-testid="survey-done">
            <h2>{v.kind === 'done' ? p.messages?.completion ?? 'Thank you' : ALREADY_ANSWERED}</h2>
            {v.kind === 'done' && p.refresh ? (
              <p>
                <a href={p.path}>Start again</a>
              </p>
            ) : null}
          </div>
        ) : v.kind === 'traditional' ? (
          <Traditional p={p} v={v} />
        ) : (
          <Conversational p={p} v={v} />
        )}
      </main>
      {p.design?.footer ? <footer className="sv-footer">{p.design.footer}</footer> : null}
      {p.design?.showBranding ? (
        <p className="sv-branding">
          Powered by <strong>Parley</strong>
        </p>
      ) : null}
    </div>
  );
}

function Traditional({ p, v }: { p: PageData; v: Extract<View, { kind: 'traditional' }> }) {
  return (
    <AllQuestionsForm
      questions={p.questions}
      messages={p.messages!}
      values={v.values}
      errors={v.errors}
      showQuestionNumber={!!p.design?.showQuestionNumber}
      indicateMandatory={!!p.design?.indicateMandatory}
    />
  );
}

function Conversational({ p, v }: { p: PageData; v: Extract<View, { kind: 'conversational' }> }) {
  const q = p.questions[v.step];
  const counted = p.questions.filter((x) => x.type !== 'welcome');
  const current = counted.findIndex((x) => x.id === q.id) + 1;
  const last = v.step >= p.questions.length - 1;
  const error = v.errors[q.id];
  return (
    <div className="sv-chat">
      {p.design?.showProgressBar && current > 0 ? (
        <p className="sv-progress" data-testid="survey-progress">
          <progress value={current} max={counted.length} aria-hidden="true" />
          <span>{`${current}/${counted.length}`}</span>
        </p>
      ) : null}
      <ol className="sv-history" aria-label="Your answers so far">
        {v.history.map((h) => (
          <li key={h.id}>
            <p className="sv-bubble sv-q">{h.question}</p>
            <p className="sv-bubble sv-a">{h.answer}</p>
          </li>
        ))}
      </ol>
      <Form method="post" className="sv-turn" noValidate reloadDocument>
        <input type="hidden" name="step" value={v.step} />
        <div className="sv-bubble sv-q sv-now" id={`q-${q.id}`}>
          {q.heading ? <span className="sv-heading">{q.heading}</span> : null}
          {p.design?.showQuestionNumber && current > 0 && isAnswerable(q.type) ? `${current}. ` : ''}
          {q.question}
          {p.design?.indicateMandatory && q.isRequired && isAnswerable(q.type) ? <span className="sv-required"> *</span> : null}
        </div>
        <div className={`sv-reply${error ? ' sv-invalid' : ''}`} role="group" aria-labelledby={`q-${q.id}`}>
          <AnswerArea q={q} value={v.values[q.id]} messages={p.messages!} errorId={error ? `e-${q.id}` : undefined} />
          {error ? (
            <p className="field-error" id={`e-${q.id}`} role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div className="sv-nav">
          {q.type === 'welcome' ? (
            <button type="submit" name="intent" value="start" className="sv-btn">
              {q.settings.buttonLabel || 'Start'}
            </button>
          ) : (
            <>
              {/* Next comes first in the source: Enter in a field submits the first button (shown right of Previous by CSS). */}
              <button type="submit" name="intent" value="next" className="sv-btn">
                {last ? 'Submit' : p.messages?.proceedToNext || 'Next'}
              </button>
              {v.step > 0 ? (
                <button type="submit" name="intent" value="previous" className="sv-btn sv-secondary" formNoValidate>
                  Previous
                </button>
              ) : null}
            </>
          )}
        </div>
      </Form>
    </div>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const known = isRouteErrorResponse(error) && error.status !== 404 && error.status < 500 && typeof error.data === 'string';
  // The account's plan lacks surveys (ADR 157): the specification's message rather than "not found".
  if (isRouteErrorResponse(error) && error.status === 403 && (error.data as { denied?: string } | null)?.denied === 'feature')
    return (
      <main id="main" className="sv-main">
        <div className="sv-card sv-end">
          <h1>This survey is not available</h1>
          <p data-testid="feature-denied">{FEATURE_DENIED_MESSAGE}</p>
        </div>
      </main>
    );
  return (
    <main id="main" className="sv-main">
      <div className="sv-card sv-end">
        <h1>{known ? error.data : 'This survey could not be found.'}</h1>
        <p>{known ? 'Go back and try again.' : 'Check the link you were given.'}</p>
      </div>
    </main>
  );
}
