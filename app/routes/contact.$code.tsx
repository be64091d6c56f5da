import { requirePlanFeature } from '~/models/plans/enforce.server';
import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { CAPTCHA_MESSAGES, createCaptcha, isHoneypotFilled, verifyCaptcha } from '~/models/productivity/captcha.server';
import { getContactFormByCode, submitContactForm } from '~/models/productivity/contact-forms.server';
import { ATTACHMENT_ACCEPT, HONEYPOT_FIELD } from '~/models/productivity/constants';
import { contactSubmissionSchema } from '~/models/productivity/contact-submission';
import { readContactFormPost } from '~/models/productivity/uploads.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { requireAccount } from '~/utils/tenant.server';

/**
 * The public page of a contact form, on the account's own host: no sign-in, plain HTML that works without
 * JavaScript, and embeddable in an <iframe> on the customer's website (frame-ancestors below).
 */

const RATE_LIMIT = { limit: 10, windowMs: 10 * 60 * 1000 };

async function requireActiveForm(request: Request, code: string | undefined) {
  const account = await requireAccount(request);
  const form = await getContactFormByCode({ accountId: account.id, code: code ?? '' });
  // An inactive form is as absent as an unknown one: its existence is nobody's business.
  if (!form || !form.isActive) throw new Response('Not Found', { status: 404 });
  // The support form is the Support area's channel (ADR 157).
  await requirePlanFeature({ accountId: account.id, key: 'support/enabled', page: true });
  return { account, form };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { form } = await requireActiveForm(request, params.code);
  const sent = new URL(request.url).searchParams.get('sent') === '1';
  const captcha = form.allowFields.captcha && !sent ? await createCaptcha({ formId: form.id }) : null;
  return {
    form: {
      headerText: form.headerText,
      subHeaderText: form.subHeaderText,
      submitText: form.submitText,
      submitMsg: form.submitMsg,
      phone: form.allowFields.phone,
      attachments: form.allowFields.attachments,
    },
    sent,
    captcha,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { account, form } = await requireActiveForm(request, params.code);
  await enforceRateLimit(`contact-form:${account.id}:${clientIp(request)}`, RATE_LIMIT);
  const { fields, files, fileErrors } = await readContactFormPost(request, { acceptFiles: form.allowFields.attachments });
  const submission = parseWithZod(fields, { schema: contactSubmissionSchema({ phone: form.allowFields.phone }) });

  const text = (name: string) => {
    const v = fields.get(name);
    return typeof v === 'string' ? v : null;
  };
  const inputOk = submission.status === 'success' && fileErrors.length === 0;
  let captchaError: string | null = null;
  let formError: string | null = null;
  if (isHoneypotFilled(fields.get(HONEYPOT_FIELD))) {
    formError = CAPTCHA_MESSAGES.honeypot;
  } else if (form.allowFields.captcha) {
    // A solved captcha is spent only with a submission that goes through, so fixing a field does not need a new one.
    const result = await verifyCaptcha({
      formId: form.id,
      altcha: text('altcha'),
      answer: text('captchaAnswer'),
      token: text('captchaToken'),
      spend: inputOk,
    });
    if (!result.ok) captchaError = result.message;
  }

  if (submission.status !== 'success' || !inputOk || captchaError || formError) {
    // Errors outside the schema are added too, so that the reply is an error and keeps every typed value.
    const extra: Record<string, string[]> = {};
    if (captchaError) extra.captchaAnswer = [captchaError];
    if (fileErrors.length) extra.attachments = fileErrors;
    const result = submission.reply({ formErrors: formError ? [formError] : undefined, fieldErrors: extra });
    return data({ result, captchaError, fileErrors }, { status: 400 });
  }

  const value = submission.value;
  await submitContactForm({
    accountId: account.id,
    formId: form.id,
    name: value.name,
    email: value.email,
    phone: value.phone ?? null,
    subject: value.subject,
    message: value.message,
    files,
  });
  return redirect(`/contact/${form.code}?sent=1`);
}

/** Embeddable anywhere (the CSP directive overrides the app-wide X-Frame-Options), never cached. */
export const headers: HeadersFunction = () => ({
  'Content-Security-Policy': 'frame-ancestors *',
  'Cache-Control': 'no-store',
});

export default function PublicContactForm() {
  const { form, sent, captcha } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="auth contact-page">
      <div className="card stack">
        <header>
          <h1>{form.headerText}</h1>
          <p className="muted">{form.subHeaderText}</p>
        </header>
        {sent ? (
          <p role="status" data-testid="submit-message">
            {form.submitMsg}
          </p>
        ) : (
          <SubmissionForm key={captcha?.token ?? 'form'} form={form} captcha={captcha} />
        )}
      </div>
    </main>
  );
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

function SubmissionForm({ form, captcha }: { form: LoaderData['form']; captcha: LoaderData['captcha'] }) {
  const actionData = useActionData<typeof action>();
  const [conform, fields] = useForm({
    id: 'contact',
    lastResult: actionData?.result,
    // The server judges the form (ADR 027): a refused submission keeps every typed value and the solved captcha.
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const altcha = useAltchaSolution(captcha?.altcha ?? null);
  return (
    // A plain form: the post is a full page request with or without JavaScript, so the page behaves the same in both.
    <form method="post" encType={form.attachments ? 'multipart/form-data' : undefined} {...getFormProps(conform)} className="stack">
      <Field label="Name" field={fields.name} autoComplete="name" />
      <Field label="Email" field={fields.email} type="email" autoComplete="email" />
      {form.phone ? <Field label="Phone (optional)" field={fields.phone} type="tel" autoComplete="tel" inputMode="numeric" /> : null}
      <Field label="Subject" field={fields.subject} autoComplete="off" />
      <TextareaField label="Message" field={fields.message} rows={6} />
      {form.attachments ? (
        <div className="field">
          <label htmlFor="contact-attachments">Attachments (optional)</label>
          <input id="contact-attachments" type="file" name="attachments" multiple accept={ATTACHMENT_ACCEPT} aria-describedby="contact-attachments-hint" />
          <small id="contact-attachments-hint" className="muted">
            Up to 3 files of at most 10 MB each: images, PDF or text.
          </small>
          <ErrorList errors={actionData?.fileErrors} />
        </div>
      ) : null}
      {/* People never see this field; bots that fill in every input do. */}
      <div aria-hidden="true" style={{ position: 'absolute', left: '-10000px', top: 'auto', width: 1, height: 1, overflow: 'hidden' }}>
        <label htmlFor="contact-website">Leave this field empty</label>
        <input id="contact-website" type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
      </div>
      {captcha ? (
        <div className="field" data-testid="captcha">
          <input type="hidden" name="captchaToken" value={captcha.token} />
          <input type="hidden" name="altcha" value={altcha.payload} />
          {altcha.payload ? (
            <p className="muted" role="status" data-testid="captcha-verified">
              ✓ Verified: you are not a robot.
            </p>
          ) : (
            <>
              <label htmlFor="contact-captcha">{captcha.question}</label>
              <input id="contact-captcha" name="captchaAnswer" inputMode="numeric" autoComplete="off" defaultValue="" aria-describedby="contact-captcha-hint" />
              <small id="contact-captcha-hint" className="muted">
                {altcha.state === 'solving' ? 'Checking your browser… or answer the question.' : 'Answer the question to show you are not a robot.'}
              </small>
            </>
          )}
          <ErrorList errors={actionData?.captchaError ? [actionData.captchaError] : undefined} />
        </div>
      ) : null}
      <ErrorList id={conform.errorId} errors={conform.errors} />
      <button type="submit" className="btn btn-primary">
        {form.submitText}
      </button>
    </form>
  );
}

type AltchaChallenge = { algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string };

/**
 * With JavaScript, the proof of work is solved in the background (SHA-256 through Web Crypto, by altcha-lib's
 * own solver) and the question disappears. Without Web Crypto (a page served over plain HTTP) the question stays.
 */
function useAltchaSolution(challenge: AltchaChallenge | null) {
  const [state, setState] = useState<{ state: 'idle' | 'solving' | 'done' | 'failed'; payload: string }>({ state: 'idle', payload: '' });
  useEffect(() => {
    if (!challenge || !globalThis.crypto?.subtle) return;
    let controller: AbortController | null = null;
    let cancelled = false;
    setState({ state: 'solving', payload: '' });
    import('altcha-lib')
      .then(async ({ solveChallenge }) => {
        if (cancelled) return;
        const run = solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber);
        controller = run.controller;
        const solution = await run.promise;
        if (cancelled) return;
        if (!solution) return setState({ state: 'failed', payload: '' });
        const payload = btoa(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature }));
        setState({ state: 'done', payload });
      })
      .catch(() => !cancelled && setState({ state: 'failed', payload: '' }));
    return () => {
      cancelled = true;
      controller?.abort();
    };
  }, [challenge]);
  return state;
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.form.headerText ?? 'Contact us') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
