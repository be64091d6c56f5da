import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { CodeForm, RecoveryCodes, TotpSecret } from '~/components/account-security/two-factor';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import {
  confirmEmailSetup,
  confirmTotpSetup,
  disableTwoFactor,
  getTotpSetup,
  getTwoFactorState,
  regenerateRecoveryCodes,
  sendEmailCode,
  totpIssuer,
} from '~/models/auth/two-factor.server';
import { requestEmailChange } from '~/models/users/email-change.server';
import { DisableTwoFactorSchema, EmailChangeSchema, TwoFactorCodeSchema } from '~/models/users/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { tooManyMessage } from '~/utils/rate-limit.server';
import { accountUrl } from '~/utils/tenant.server';
import { requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/security';

/** My Settings › Security (ADR 148): two-factor sign-in and the sign-in email address of the signed-in user. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id };
  const state = await getTwoFactorState(scope);
  const setup = new URL(request.url).searchParams.get('setup');
  // The secret is made only when the user asks to set the app up, and kept (sealed) until confirmed.
  const totp = !state.method && setup === 'app' ? await getTotpSetup({ ...scope, issuer: totpIssuer(ctx.account.domain) }) : null;
  return { state, totp, setup: state.method ? null : setup, required: Boolean(ctx.account.settings.requireTwoFactor) };
}

// Recovery codes are shown once: no cache keeps the page.
const NO_STORE = { headers: { 'Cache-Control': 'no-store' } };

type ActionData = { intent: string; result?: SubmissionResult<string[]>; codes?: string[]; sentTo?: string };

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id };
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  const failed = (message: string, status: number) => data<ActionData>({ intent, result: { status: 'error', error: { '': [message] } } }, { status });
  try {
    switch (intent) {
      case 'totp-confirm':
      case 'email-confirm': {
        const submission = parseWithZod(formData, { schema: TwoFactorCodeSchema });
        if (submission.status !== 'success') return data<ActionData>({ intent, result: submission.reply() }, { status: 400 });
        const outcome = intent === 'totp-confirm' ? await confirmTotpSetup({ ...scope, code: submission.value.code }) : await confirmEmailSetup({ ...scope, code: submission.value.code });
        if (!outcome.ok) return data<ActionData>({ intent, result: submission.reply({ fieldErrors: { code: [outcome.message] } }) }, { status: 400 });
        return data<ActionData>({ intent, codes: outcome.codes }, NO_STORE);
      }
      case 'email-send': {
        const { to } = await sendEmailCode({ ...scope, accountName: ctx.account.name });
        return data<ActionData>({ intent, sentTo: to });
      }
      case 'recovery-codes': {
        const state = await getTwoFactorState(scope);
        if (!state.method) return failed('Turn two-factor sign-in on first.', 400);
        return data<ActionData>({ intent, codes: await regenerateRecoveryCodes(scope) }, NO_STORE);
      }
      case 'disable': {
        const submission = parseWithZod(formData, { schema: DisableTwoFactorSchema });
        if (submission.status !== 'success') return data<ActionData>({ intent, result: submission.reply({ hideFields: ['password'] }) }, { status: 400 });
        const outcome = await disableTwoFactor({ ...scope, ...submission.value, required: Boolean(ctx.account.settings.requireTwoFactor) });
        if (!outcome.ok) return data<ActionData>({ intent, result: submission.reply({ formErrors: [outcome.message], hideFields: ['password'] }) }, { status: 400 });
        return redirectWithToast(PATH, 'Two-factor sign-in turned off');
      }
      case 'email-change': {
        const submission = parseWithZod(formData, { schema: EmailChangeSchema });
        if (submission.status !== 'success') return data<ActionData>({ intent, result: submission.reply({ hideFields: ['password'] }) }, { status: 400 });
        const outcome = await requestEmailChange({ ...scope, ...submission.value, baseUrl: accountUrl(request, ctx.account.domain, '').replace(/\/$/, '') });
        if (!outcome.ok) return data<ActionData>({ intent, result: submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] }, hideFields: ['password'] }) }, { status: 400 });
        return redirectWithToast(PATH, { type: 'info', text: `We sent a confirmation link to ${submission.value.newEmail}. Your email changes when you follow it.` });
      }
      default:
        throw new Response('Unknown intent', { status: 400 });
    }
  } catch (err) {
    return failed(await tooManyMessage(err), 429);
  }
}

export const handle = { breadcrumb: 'Security' };

export default function Security() {
  const { state, totp, setup, required } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  return (
    <div className="stack">
      <SettingsPage title="Two-factor sign-in" subHeader="After your password, a code from your phone or your email." learnMore="/help-center">
        {actionData?.codes ? (
          <div className="stack">
            <p role="status" data-testid="two-factor-on">
              Two-factor sign-in is on.
            </p>
            <RecoveryCodes codes={actionData.codes} />
            <Link to={PATH} className="btn">
              Done
            </Link>
          </div>
        ) : state.method ? (
          <EnabledTwoFactor method={state.method} left={state.recoveryCodesLeft} required={required} disableResult={resultFor('disable')} />
        ) : (
          <div className="stack">
            <p data-testid="two-factor-off">
              Two-factor sign-in is <strong>off</strong>.{required ? ' Your account requires it: you will be asked to set it up when you next sign in.' : ''}
            </p>
            {totp ? (
              <>
                <TotpSecret secret={totp.secret} uri={totp.uri} qrSvg={totp.qrSvg} />
                <CodeForm intent="totp-confirm" label="Code from the app" submitLabel="Turn on" lastResult={resultFor('totp-confirm')} />
              </>
            ) : setup === 'email' || actionData?.intent === 'email-send' || actionData?.intent === 'email-confirm' ? (
              <EmailSetup sentTo={actionData?.sentTo} sendResult={resultFor('email-send')} confirmResult={resultFor('email-confirm')} />
            ) : (
              <div className="row">
                <Link to={`${PATH}?setup=app`} className="btn btn-primary">
                  Use an authenticator app
                </Link>
                <Link to={`${PATH}?setup=email`} className="btn">
                  Use codes by email
                </Link>
              </div>
            )}
          </div>
        )}
      </SettingsPage>
      <EmailChange result={resultFor('email-change')} />
    </div>
  );
}

function EnabledTwoFactor({ method, left, required, disableResult }: { method: 'totp' | 'email'; left: number; required: boolean; disableResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm({ id: 'disable', lastResult: disableResult, shouldValidate: 'onSubmit' });
  return (
    <div className="stack">
      <p data-testid="two-factor-on">
        Two-factor sign-in is <strong>on</strong>, with {method === 'totp' ? 'an authenticator app' : 'codes by email'}. {`${left} of 10 recovery codes left.`}
      </p>
      <Form method="post">
        <button type="submit" className="btn" name="intent" value="recovery-codes">
          Make new recovery codes
        </button>
      </Form>
      {required ? (
        <p className="muted">Your account requires two-factor sign-in, so it cannot be turned off.</p>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <h2>Turn off</h2>
          <Field label="Current password" field={fields.password} type="password" autoComplete="current-password" />
          <p className="muted">or</p>
          <Field label="A code (or a recovery code)" field={fields.code} autoComplete="one-time-code" />
          <ErrorList id={form.errorId} errors={form.errors} />
          <button type="submit" className="btn btn-danger" name="intent" value="disable">
            Turn off two-factor sign-in
          </button>
        </Form>
      )}
    </div>
  );
}

function EmailSetup({ sentTo, sendResult, confirmResult }: { sentTo?: string; sendResult?: SubmissionResult<string[]>; confirmResult?: SubmissionResult<string[]> }) {
  return (
    <div className="stack">
      <Form method="post">
        <p className="muted">{sentTo ? `We sent a 6-digit code to ${sentTo}. It expires in 10 minutes.` : 'We send a code to your email now to check it arrives, then each time you sign in.'}</p>
        <ErrorList errors={sendResult?.error?.[''] ?? undefined} />
        <button type="submit" className="btn" name="intent" value="email-send">
          {sentTo || confirmResult ? 'Send a new code' : 'Send me a code'}
        </button>
      </Form>
      {sentTo || confirmResult ? <CodeForm intent="email-confirm" label="Code from the email" submitLabel="Turn on" lastResult={confirmResult} /> : null}
    </div>
  );
}

function EmailChange({ result }: { result?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm({ id: 'email-change', lastResult: result, shouldValidate: 'onSubmit' });
  return (
    <SettingsPage title="Email address" subHeader="We send a link to the new address; your email changes when you follow it, and the old address is told.">
      <Form method="post" {...getFormProps(form)}>
        <Field label="New email" field={fields.newEmail} type="email" autoComplete="email" />
        <Field label="Current password" field={fields.password} type="password" autoComplete="current-password" />
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={PATH} intent="email-change" submitLabel="Send confirmation link" />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Security', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
