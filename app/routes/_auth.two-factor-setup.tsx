import type { SubmissionResult } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { CodeForm, RecoveryCodes, TotpSecret } from '~/components/account-security/two-factor';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { completeSessionStep } from '~/models/auth/sessions.server';
import { confirmEmailSetup, confirmTotpSetup, getTotpSetup, getTwoFactorState, sendEmailCode, totpIssuer } from '~/models/auth/two-factor.server';
import { TwoFactorCodeSchema } from '~/models/users/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { tooManyMessage } from '~/utils/rate-limit.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { requirePendingSession } from '~/utils/session.server';

/**
 * The account requires two-factor sign-in and this user has none (ADR 148): after the password they set it up
 * here, and only then is the session full.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const { account, session } = await requirePendingSession(request, 'two_factor_setup');
  const scope = { accountId: account.id, userId: session.userId };
  // Once on (the recovery codes were just shown), the page only offers to continue.
  const { method } = await getTwoFactorState(scope);
  const totp = method ? null : await getTotpSetup({ ...scope, issuer: totpIssuer(account.domain) });
  return { totp, accountName: account.name, redirectTo: new URL(request.url).searchParams.get('redirectTo') ?? '' };
}

// Recovery codes are shown once: no cache keeps the page.
const NO_STORE = { headers: { 'Cache-Control': 'no-store' } };

type ActionData = { intent: string; result?: SubmissionResult<string[]>; codes?: string[]; sentTo?: string; redirectTo?: string };

export async function action({ request }: ActionFunctionArgs) {
  const { account, session } = await requirePendingSession(request, 'two_factor_setup');
  const scope = { accountId: account.id, userId: session.userId };
  const formData = await request.formData();
  const intent = String(formData.get('intent') ?? '');
  if (intent === 'continue') {
    // The session becomes full only once two-factor is really on (the codes were shown in between).
    const state = await getTwoFactorState(scope);
    if (!state.method) throw redirect('/two-factor-setup');
    if (!(await completeSessionStep({ id: session.id, accountId: account.id, from: 'two_factor_setup' }))) throw redirect('/signin');
    return redirect(safeRedirect(formData.get('redirectTo')));
  }
  if (!['totp-confirm', 'email-send', 'email-confirm'].includes(intent)) throw new Response('Unknown intent', { status: 400 });
  const failed = (message: string, status: number) => data<ActionData>({ intent, result: { status: 'error', error: { '': [message] } } }, { status });
  if (intent === 'email-send') {
    try {
      const { to } = await sendEmailCode({ ...scope, accountName: account.name });
      return data<ActionData>({ intent, sentTo: to });
    } catch (err) {
      return failed(await tooManyMessage(err), 429);
    }
  }
  const submission = parseWithZod(formData, { schema: TwoFactorCodeSchema });
  if (submission.status !== 'success') return data<ActionData>({ intent, result: submission.reply() }, { status: 400 });
  let outcome;
  try {
    outcome = intent === 'totp-confirm' ? await confirmTotpSetup({ ...scope, code: submission.value.code }) : await confirmEmailSetup({ ...scope, code: submission.value.code });
  } catch (err) {
    return failed(await tooManyMessage(err), 429);
  }
  if (!outcome.ok) {
    return data<ActionData>({ intent, sentTo: intent === 'email-confirm' ? 'you' : undefined, result: submission.reply({ fieldErrors: { code: [outcome.message] } }) }, { status: 400 });
  }
  return data<ActionData>({ intent, codes: outcome.codes, redirectTo: safeRedirect(submission.value.redirectTo) }, NO_STORE);
}

export default function TwoFactorSetup() {
  const { totp, accountName, redirectTo } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  if (actionData?.codes || !totp) {
    return (
      <>
        <h1>Two-factor sign-in is on</h1>
        {actionData?.codes ? <RecoveryCodes codes={actionData.codes} /> : null}
        <Form method="post">
          <input type="hidden" name="redirectTo" value={actionData?.redirectTo ?? redirectTo} />
          <button type="submit" className="btn btn-primary" name="intent" value="continue">
            Continue to Parley
          </button>
        </Form>
      </>
    );
  }
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  const emailSent = actionData?.intent === 'email-confirm' || (actionData?.intent === 'email-send' && actionData.sentTo);
  return (
    <>
      <h1>Set up two-factor sign-in</h1>
      <p className="muted">{accountName} requires a second step when you sign in. Set it up to continue.</p>
      <h2>With an authenticator app</h2>
      <TotpSecret secret={totp.secret} uri={totp.uri} qrSvg={totp.qrSvg} />
      <CodeForm intent="totp-confirm" label="Code from the app" submitLabel="Turn on" lastResult={resultFor('totp-confirm')} hidden={{ redirectTo }} />
      <h2>Or with a code by email</h2>
      {emailSent ? (
        <CodeForm intent="email-confirm" label="Code from the email" submitLabel="Turn on" lastResult={resultFor('email-confirm')} hidden={{ redirectTo }} hint="We sent a 6-digit code; it expires in 10 minutes." />
      ) : (
        <Form method="post">
          <p className="muted">We will send a code to your email now, and each time you sign in.</p>
          {resultFor('email-send')?.error?.['']?.map((e) => (
            <p key={e} className="field-error" role="alert">
              {e}
            </p>
          ))}
          <button type="submit" className="btn" name="intent" value="email-send">
            Send me a code
          </button>
        </Form>
      )}
      <p className="muted">
        <Link to="/signin">Sign in as someone else</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Set up two-factor sign-in') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
