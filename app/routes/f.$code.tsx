import { requirePlanFeature } from '~/models/plans/enforce.server';
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { PublicFormFields } from '~/components/forms/public-form-fields';
import { ErrorList } from '~/components/ui/forms';
import { BRAND_COLOURS, FILE_FIELD_NAME } from '~/models/forms/constants';
import { FormRateLimited, getPublishedFormOnHost, recordFormView, submitForm } from '~/models/forms/forms.server';
import { cachedSubmissionSchema } from '~/models/forms/schemas';
import { CAPTCHA_MESSAGES, createCaptcha, isHoneypotFilled, releaseCaptcha, verifyCaptcha, type CaptchaResult } from '~/models/productivity/captcha.server';
import { HONEYPOT_FIELD } from '~/models/productivity/constants';
import { readContactFormPost } from '~/models/productivity/uploads.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit, rateLimitedResponse } from '~/utils/rate-limit.server';
import { accountDomainOf, accountSuspended, requireAccount, rethrowUnavailable } from '~/utils/tenant.server';

/**
 * A public form on the account's own host (ADR 067): no sign-in, no script at all (the page is plain HTML, so it
 * stays small and works in any browser), embeddable in an <iframe> on the customer's website.
 */

const RATE_LIMIT = { limit: 20, windowMs: 10 * 60 * 1000 };
/** Captchas are bound to a form id; public forms use the negative ids so they never match a contact form's. */
const captchaId = (formId: number) => -formId;

/** The form and its account in one read (ADR 123); the bare host and other hosts get requireAccount's answer. */
async function requirePublishedForm(request: Request, code: string | undefined) {
  const domain = accountDomainOf(request);
  if (!domain) await requireAccount(request);
  const form = domain ? await getPublishedFormOnHost({ domain, code: code ?? '' }).catch(rethrowUnavailable) : undefined;
  // A draft is as absent as an unknown code (and an unknown account as a form it lacks): nobody's business.
  if (!form) throw new Response('Not Found', { status: 404 });
  if (form.accountSuspended) throw accountSuspended();
  // Forms belong to the CRM area of the plan, as their agent screens do (ADR 157).
  await requirePlanFeature({ accountId: form.accountId, key: 'customerManagement/enabled', page: true });
  return { accountId: form.accountId, form };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { form } = await requirePublishedForm(request, params.code);
  const sent = new URL(request.url).searchParams.get('sent') === '1';
  const captcha = form.captcha && !sent ? await createCaptcha({ formId: captchaId(form.id) }) : null;
  if (!sent) await recordFormView({ accountId: form.accountId, formId: form.id });
  return {
    form: {
      headerText: form.headerText,
      description: form.description,
      submitText: form.submitText,
      thankYouMessage: form.thankYouMessage,
      colour: BRAND_COLOURS[form.brandColour as keyof typeof BRAND_COLOURS] ?? BRAND_COLOURS.blue,
      fields: form.fields,
      hasFiles: form.fields.some((f) => f.type === 'file'),
    },
    sent,
    captcha: captcha ? { question: captcha.question, token: captcha.token } : null,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { accountId, form } = await requirePublishedForm(request, params.code);
  const limit = { key: `form:${accountId}:${clientIp(request)}`, ...RATE_LIMIT };
  // Every attempt counts. A body that may carry files is counted before it is read; a plain one is counted by the
  // statement that stores it (ADR 123), or on its own when it is refused.
  const multipart = (request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/');
  if (multipart) await enforceRateLimit(limit.key, limit);
  const { fields, files, fileErrors } = await readContactFormPost(request, { acceptFiles: form.fields.some((f) => f.type === 'file') });
  const submission = parseWithZod(fields, { schema: cachedSubmissionSchema(form) });
  const inputOk = submission.status === 'success' && fileErrors.length === 0;
  const text = (name: string) => {
    const v = fields.get(name);
    return typeof v === 'string' ? v : null;
  };
  let captcha: CaptchaResult | undefined;
  let captchaError: string | null = null;
  let formError: string | null = null;
  if (isHoneypotFilled(fields.get(HONEYPOT_FIELD))) formError = CAPTCHA_MESSAGES.honeypot;
  else if (form.captcha) {
    captcha = await verifyCaptcha({ formId: captchaId(form.id), answer: text('captchaAnswer'), token: text('captchaToken'), spend: inputOk });
    if (!captcha.ok) captchaError = captcha.message;
  }
  const question = text('captchaQuestion') ?? '';
  // The question stays the same after a refusal (its token is only spent by a submission that goes through).
  const reusable = /^What is \d+ \+ \d+\?$/.test(question) && text('captchaToken');
  const sameCaptcha = reusable && captchaError !== CAPTCHA_MESSAGES.expired && captchaError !== CAPTCHA_MESSAGES.invalid ? { question, token: text('captchaToken')! } : null;
  if (submission.status !== 'success' || !inputOk || captchaError || formError) {
    if (!multipart) await enforceRateLimit(limit.key, limit);
    const extra: Record<string, string[]> = {};
    if (captchaError) extra.captchaAnswer = [captchaError];
    if (fileErrors.length) extra[FILE_FIELD_NAME] = fileErrors;
    return data({ result: submission.reply({ formErrors: formError ? [formError] : undefined, fieldErrors: extra }), captchaError, captcha: sameCaptcha }, { status: 400 });
  }
  try {
    await submitForm({ accountId, form, answers: submission.value as Record<string, string | undefined>, files, rateLimit: multipart ? undefined : limit });
  } catch (err) {
    if (!(err instanceof FormRateLimited)) throw err;
    // Refused by the window, as a count before the captcha would have been: the visitor's question stays usable.
    if (captcha?.ok) releaseCaptcha(captcha);
    throw rateLimitedResponse(err.resetAt);
  }
  return redirect(form.redirectUrl ?? `/f/${form.code}?sent=1`);
}

/** Embeddable anywhere (the CSP directive overrides the app-wide X-Frame-Options), never cached. */
export const headers: HeadersFunction = () => ({
  'Content-Security-Policy': 'frame-ancestors *',
  'Cache-Control': 'no-store',
});

export const handle = { hydrate: false };

export default function PublicForm() {
  const { form, sent, captcha: fresh } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const captcha = actionData?.captcha ?? fresh;
  const reply = actionData?.result;
  const values = reply?.initialValue as Record<string, unknown> | undefined;
  const errors = reply?.error as Record<string, string[] | null> | undefined;
  return (
    <main id="main" className="auth contact-page public-form" style={{ ['--brand' as string]: form.colour }}>
      <div className="card stack" style={{ borderTop: `6px solid ${form.colour}` }}>
        <header>
          <h1>{form.headerText}</h1>
          {form.description ? <p className="muted">{form.description}</p> : null}
        </header>
        {sent ? (
          <p role="status" data-testid="thank-you">
            {form.thankYouMessage}
          </p>
        ) : (
          <form method="post" encType={form.hasFiles ? 'multipart/form-data' : undefined} className="stack" noValidate>
            {errors?.[''] ? <ErrorList errors={errors['']} /> : null}
            <PublicFormFields fields={form.fields} values={values} errors={errors} />
            <div aria-hidden="true" style={{ position: 'absolute', left: '-10000px', top: 'auto', width: 1, height: 1, overflow: 'hidden' }}>
              <label htmlFor="form-hp">Leave this field empty</label>
              <input id="form-hp" type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
            </div>
            {captcha ? (
              <div className="field" data-testid="captcha">
                <input type="hidden" name="captchaToken" value={captcha.token} />
                <input type="hidden" name="captchaQuestion" value={captcha.question} />
                <label htmlFor="form-captcha">{captcha.question}</label>
                <input id="form-captcha" name="captchaAnswer" inputMode="numeric" autoComplete="off" defaultValue="" aria-describedby="form-captcha-hint" />
                <small id="form-captcha-hint" className="muted">
                  Answer the question to show you are not a robot.
                </small>
                <ErrorList errors={actionData?.captchaError ? [actionData.captchaError] : undefined} />
              </div>
            ) : null}
            <button type="submit" className="btn btn-primary" style={{ background: form.colour, borderColor: form.colour }}>
              {form.submitText}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: d }) => [{ title: pageTitle(d?.form.headerText ?? 'Form') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
