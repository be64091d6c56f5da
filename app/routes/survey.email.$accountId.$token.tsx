import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { AllQuestionsForm } from '~/components/surveys/all-questions-form';
import { checkAnswers, isAnswerable, readAnswersFromForm } from '~/models/surveys/answers';
import { readableBrand } from '~/models/surveys/colour';
import { findRecipient, markRecipientOpened, markRecipientResponded } from '~/models/surveys/email-surveys.server';
import { CLOSED_DETAIL, CLOSED_MESSAGES, type ClosedReason } from '~/models/surveys/response-types';
import {
  findSurveyForRespondent,
  getResponse,
  getVersion,
  questionsOf,
  recordAnswers,
  SurveyAnswerError,
  SurveyClosedError,
  SurveyResponseError,
} from '~/models/surveys/responses.server';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';
import surveyStyles from '../styles/survey.css?url';

/**
 * An email survey's personal link, /survey/email/{accountId}/{token} (ADR 062): the score clicked in the email arrives
 * as `?a=N`, is recorded as the first question's answer and the page redirects to itself without it; the page shows
 * every question (the first already answered) in one form, without script. The recipient row says opened, then responded.
 */

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: surveyStyles }];
export const handle = { hydrate: false };

async function load(request: Request, params: LoaderFunctionArgs['params']) {
  const account = await requireAccount(request);
  if (params.accountId !== String(account.id)) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'customerSatisfactionSurveys/enabled', page: true });
  const recipient = await findRecipient({ accountId: account.id, token: params.token ?? '' });
  if (!recipient) throw new Response('This survey link is not valid.', { status: 404 });
  const found = await findSurveyForRespondent({ accountId: account.id, surveyId: recipient.surveyId });
  if (!found || found.survey.channel !== 'email') throw new Response('Not Found', { status: 404 });
  const existing = await getResponse({ accountId: account.id, surveyId: recipient.surveyId, responseKey: recipient.token });
  const version = existing ? await getVersion({ accountId: account.id, id: existing.surveyVersionId }) : found.version;
  return { account, recipient, found, existing, version };
}

type View = { kind: 'closed'; reason: ClosedReason } | { kind: 'done' } | { kind: 'form'; values: Record<string, unknown>; errors: Record<string, string> };

function pageOf(l: Awaited<ReturnType<typeof load>>, view: View) {
  const v = l.version;
  return {
    path: `/survey/email/${l.account.id}/${l.recipient.token}`,
    logo: l.found.survey.logoAttachmentId ? `/survey/logo/${l.account.id}/${l.found.survey.uniqueId}` : null,
    name: v?.name ?? 'Survey',
    design: v ? { header: v.design.header, subHeader: v.design.subHeader, footer: v.design.footer, brandColor: v.design.brandColor, showBranding: v.design.showBranding, showQuestionNumber: v.design.showQuestionNumber, indicateMandatory: v.design.indicateMandatory } : null,
    messages: v?.messages ?? null,
    questions: v ? questionsOf(v) : [],
    view,
  };
}

const who = (l: Awaited<ReturnType<typeof load>>) => ({
  accountId: l.account.id,
  surveyId: l.recipient.surveyId,
  channel: 'email' as const,
  responseKey: l.recipient.token,
  respondent: { respondentKey: `e:${l.recipient.id}`, contactId: l.recipient.contactId },
});

export async function loader({ request, params }: LoaderFunctionArgs) {
  const l = await load(request, params);
  const url = new URL(request.url);
  if (url.searchParams.get('done') === '1' || l.existing?.complete) return data(pageOf(l, { kind: 'done' }));
  if (l.found.closed) return data(pageOf(l, { kind: 'closed', reason: l.found.closed }), { status: 410 });
  await markRecipientOpened({ accountId: l.account.id, id: l.recipient.id });
  const clicked = url.searchParams.get('a');
  const questions = l.version ? questionsOf(l.version) : [];
  const answerable = questions.filter((q) => isAnswerable(q.type));
  if (clicked !== null && answerable[0]) {
    await enforceRateLimit(`survey-email:${clientIp(request)}`, { limit: 120, windowMs: 60_000 });
    const first = answerable[0];
    const checked = checkAnswers([first], { [first.id]: clicked }, { required: true, mandatory: l.version!.messages.mandatory });
    if (!checked.errors[first.id]) {
      // The only question: the click is the whole response.
      const complete = answerable.length === 1;
      try {
        await recordAnswers({ ...who(l), answers: checked.answers, complete });
      } catch (err) {
        if (err instanceof SurveyClosedError) return data(pageOf(l, { kind: 'closed', reason: err.reason }), { status: 410 });
        throw err;
      }
      if (complete) {
        await markRecipientResponded({ accountId: l.account.id, id: l.recipient.id });
        throw redirect(`${pageOf(l, { kind: 'done' }).path}?done=1`);
      }
    }
    throw redirect(pageOf(l, { kind: 'done' }).path);
  }
  return data(pageOf(l, { kind: 'form', values: (l.existing?.answers ?? {}) as Record<string, unknown>, errors: {} }));
}

export async function action({ request, params }: ActionFunctionArgs) {
  const l = await load(request, params);
  await enforceRateLimit(`survey-email:${clientIp(request)}`, { limit: 120, windowMs: 60_000 });
  if (l.found.closed) return data(pageOf(l, { kind: 'closed', reason: l.found.closed }), { status: 410 });
  const form = await request.formData();
  if (form.get('intent') !== 'submit') throw new Response('Unknown action', { status: 400 });
  const page = pageOf(l, { kind: 'done' });
  const raw = readAnswersFromForm(form, page.questions);
  const checked = checkAnswers(page.questions, raw, { required: true, mandatory: l.version!.messages.mandatory });
  if (Object.keys(checked.errors).length) return data(pageOf(l, { kind: 'form', values: raw, errors: checked.errors }), { status: 400 });
  try {
    await recordAnswers({ ...who(l), answers: checked.answers, complete: true });
  } catch (err) {
    if (err instanceof SurveyAnswerError) return data(pageOf(l, { kind: 'form', values: raw, errors: { [err.questionId ?? '']: err.message } }), { status: 400 });
    if (err instanceof SurveyClosedError) return data(pageOf(l, { kind: 'closed', reason: err.reason }), { status: 410 });
    if (err instanceof SurveyResponseError) throw new Response(err.message, { status: err.status });
    throw err;
  }
  await markRecipientResponded({ accountId: l.account.id, id: l.recipient.id });
  return redirect(`${page.path}?done=1`);
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: d?.name ?? 'Survey' }, { name: 'robots', content: 'noindex' }];

type PageData = ReturnType<typeof pageOf>;

export default function EmailSurvey() {
  const loaded = useLoaderData<typeof loader>() as unknown as PageData;
  const acted = useActionData<typeof action>() as unknown as PageData | undefined;
  const p = acted ?? loaded;
  const v = p.view;
  return (
    <div className="sv" style={{ ['--sv-brand' as string]: readableBrand(p.design?.brandColor ?? '#2287FB') }}>
      <header className="sv-header">
        {p.logo ? <img className="sv-logo" src={p.logo} alt="" height={32} /> : null}
        <h1>{p.design?.header || p.name}</h1>
        {p.design?.subHeader && v.kind === 'form' ? <p className="sv-sub">{p.design.subHeader}</p> : null}
      </header>
      <main id="main" className="sv-main">
        {v.kind === 'closed' ? (
          <div className="sv-card sv-end" data-testid="survey-closed">
            <h2>{CLOSED_MESSAGES[v.reason]}</h2>
            <p>{CLOSED_DETAIL}</p>
          </div>
        ) : v.kind === 'done' ? (
          <div className="sv-card sv-end" role="status" data-testid="survey-done">
            <h2>{p.messages?.completion ?? 'Thank you'}</h2>
          </div>
        ) : (
          <AllQuestionsForm
            questions={p.questions}
            messages={p.messages!}
            values={v.values}
            errors={v.errors}
            showQuestionNumber={!!p.design?.showQuestionNumber}
            indicateMandatory={!!p.design?.indicateMandatory}
          />
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
