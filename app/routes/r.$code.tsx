import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList } from '~/components/ui/forms';
import { CAPTCHA_MESSAGES, createCaptcha, isHoneypotFilled, verifyCaptcha } from '~/models/productivity/captcha.server';
import { HONEYPOT_FIELD } from '~/models/productivity/constants';
import { getSourceByCode, submitPublicReview } from '~/models/reviews/reviews.server';
import { PublicReviewSchema } from '~/models/reviews/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/**
 * The account's public review page (ADR 068): a rating and a few words, no sign-in, no script at all, the
 * contact form's captcha and honeypot against spam.
 */

const RATE_LIMIT = { limit: 10, windowMs: 10 * 60 * 1000 };
/** Captchas are bound to a form id: review pages use ids far below the public forms' negative ids. */
const captchaId = (sourceId: number) => -(2 ** 40) - sourceId;

async function requirePage(request: Request, code: string | undefined) {
  const account = await requireAccount(request);
  const source = await getSourceByCode({ accountId: account.id, code: code ?? '' });
  if (!source || source.kind !== 'parley' || !source.isActive) throw new Response('Not Found', { status: 404 });
  await requirePlanFeature({ accountId: account.id, key: 'customerSatisfactionSurveys/enabled', page: true });
  return { account, source };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { account, source } = await requirePage(request, params.code);
  const sent = new URL(request.url).searchParams.get('sent') === '1';
  const captcha = sent ? null : await createCaptcha({ formId: captchaId(source.id) });
  return { company: account.name, sent, captcha: captcha ? { question: captcha.question, token: captcha.token } : null };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, source } = await requirePage(request, params.code);
  await enforceRateLimit(`review:${account.id}:${clientIp(request)}`, RATE_LIMIT);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: PublicReviewSchema });
  const text = (name: string) => {
    const v = formData.get(name);
    return typeof v === 'string' ? v : null;
  };
  let captchaError: string | null = null;
  let formError: string | null = null;
  if (isHoneypotFilled(formData.get(HONEYPOT_FIELD))) formError = CAPTCHA_MESSAGES.honeypot;
  else {
    const result = await verifyCaptcha({ formId: captchaId(source.id), answer: text('captchaAnswer'), token: text('captchaToken'), spend: submission.status === 'success' });
    if (!result.ok) captchaError = result.message;
  }
  const question = text('captchaQuestion') ?? '';
  // The question stays the same after a refusal (its token is only spent by a submission that goes through).
  const reusable = /^What is \d+ \+ \d+\?$/.test(question) && text('captchaToken');
  const sameCaptcha = reusable && captchaError !== CAPTCHA_MESSAGES.expired && captchaError !== CAPTCHA_MESSAGES.invalid ? { question, token: text('captchaToken')! } : null;
  if (submission.status !== 'success' || captchaError || formError) {
    return data(
      { result: submission.reply({ formErrors: formError ? [formError] : undefined, fieldErrors: captchaError ? { captchaAnswer: [captchaError] } : {} }), captchaError, captcha: sameCaptcha },
      { status: 400 },
    );
  }
  await submitPublicReview({ accountId: account.id, source, ...submission.value });
  return redirect(`/r/${source.code}?sent=1`);
}

export const headers: HeadersFunction = () => ({ 'Content-Security-Policy': 'frame-ancestors *', 'Cache-Control': 'no-store' });

export const handle = { hydrate: false };

export default function PublicReviewPage() {
  const { company, sent, captcha: fresh } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const captcha = actionData?.captcha ?? fresh;
  const values = (actionData?.result.initialValue ?? {}) as Record<string, string | undefined>;
  const errors = (actionData?.result.error ?? {}) as Record<string, string[] | null | undefined>;
  return (
    <main id="main" className="auth contact-page review-page">
      <div className="card stack">
        <header>
          <h1>Review {company}</h1>
          <p className="muted">How was your experience? Your review helps us and other customers.</p>
        </header>
        {sent ? (
          <p role="status" data-testid="review-thanks">
            Thank you for your review!
          </p>
        ) : (
          <form method="post" className="stack" noValidate>
            <ErrorList errors={errors['']} />
            <fieldset className="field rating-picker" aria-describedby={errors.rating?.length ? 'rating-error' : undefined}>
              <legend>Your rating</legend>
              <div className="row wrap">
                {[5, 4, 3, 2, 1].map((n) => (
                  <label key={n} className="row">
                    <input type="radio" name="rating" value={n} defaultChecked={values.rating === String(n)} required /> {'★'.repeat(n)}
                    <span className="visually-hidden">
                      {n} star{n === 1 ? '' : 's'}
                    </span>
                  </label>
                ))}
              </div>
              <ErrorList id="rating-error" errors={errors.rating} />
            </fieldset>
            <div className="field">
              <label htmlFor="review-text">Your review (optional)</label>
              <textarea id="review-text" name="text" rows={5} maxLength={2000} defaultValue={values.text ?? ''} />
              <ErrorList errors={errors.text} />
            </div>
            <div className="field">
              <label htmlFor="review-name">Your name</label>
              <input id="review-name" name="name" autoComplete="name" maxLength={100} defaultValue={values.name ?? ''} aria-invalid={errors.name?.length ? true : undefined} />
              <ErrorList errors={errors.name} />
            </div>
            <div className="field">
              <label htmlFor="review-email">Email (optional, never shown)</label>
              <input id="review-email" name="email" type="email" autoComplete="email" maxLength={254} defaultValue={values.email ?? ''} />
              <ErrorList errors={errors.email} />
            </div>
            <div aria-hidden="true" style={{ position: 'absolute', left: '-10000px', top: 'auto', width: 1, height: 1, overflow: 'hidden' }}>
              <label htmlFor="review-hp">Leave this field empty</label>
              <input id="review-hp" type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
            </div>
            {captcha ? (
              <div className="field" data-testid="captcha">
                <input type="hidden" name="captchaToken" value={captcha.token} />
                <input type="hidden" name="captchaQuestion" value={captcha.question} />
                <label htmlFor="review-captcha">{captcha.question}</label>
                <input id="review-captcha" name="captchaAnswer" inputMode="numeric" autoComplete="off" defaultValue="" />
                <ErrorList errors={actionData?.captchaError ? [actionData.captchaError] : undefined} />
              </div>
            ) : null}
            <button type="submit" className="btn btn-primary">
              Send review
            </button>
          </form>
        )}
      </div>
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(`Review ${d?.company ?? ''}`) }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
