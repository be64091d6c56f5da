import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { CodeForm } from '~/components/account-security/two-factor';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { completeSessionStep } from '~/models/auth/sessions.server';
import { getTwoFactorState, sendEmailCode, verifySecondFactor } from '~/models/auth/two-factor.server';
import { TwoFactorCodeSchema } from '~/models/users/schemas';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { tooManyMessage } from '~/utils/rate-limit.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { requirePendingSession } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** The second step of sign-in (ADR 148): the password was right; a code from the app or the mail finishes it. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { account, session } = await requirePendingSession(request, 'two_factor');
  const state = await getTwoFactorState({ accountId: account.id, userId: session.userId });
  return { method: state.method, email: maskEmail(state.email), redirectTo: new URL(request.url).searchParams.get('redirectTo') ?? '' };
}

export async function action({ request }: ActionFunctionArgs) {
  const { account, session } = await requirePendingSession(request, 'two_factor');
  const scope = { accountId: account.id, userId: session.userId };
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'resend') {
    try {
      const { to } = await sendEmailCode({ ...scope, accountName: account.name });
      return redirectWithToast(`/two-factor${new URL(request.url).search}`, `A new code was sent to ${maskEmail(to)}`);
    } catch (err) {
      return data({ status: 'error' as const, error: { '': [await tooManyMessage(err)] } }, { status: 429 });
    }
  }
  if (intent !== 'verify') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: TwoFactorCodeSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  let result;
  try {
    result = await verifySecondFactor({ ...scope, code: submission.value.code });
  } catch (err) {
    return data(submission.reply({ formErrors: [await tooManyMessage(err)] }), { status: 429 });
  }
  if (!result.ok) return data(submission.reply({ fieldErrors: { code: [result.message] } }), { status: 400 });
  if (!(await completeSessionStep({ id: session.id, accountId: account.id, from: 'two_factor' }))) throw redirect('/signin');
  const to = safeRedirect(submission.value.redirectTo);
  if (result.via === 'recovery') return redirectWithToast(to, { type: 'info', text: 'You signed in with a recovery code; it cannot be used again.' });
  return redirect(to);
}

/** a•••@example.com: enough to know which mailbox to look in. */
function maskEmail(email: string) {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 1)}•••@${domain}`;
}

export default function TwoFactorStep() {
  const { method, email, redirectTo } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  return (
    <>
      <h1>Two-factor sign-in</h1>
      <p className="muted">
        {method === 'email' ? `We sent a 6-digit code to ${email}. It expires in 10 minutes.` : 'Enter the 6-digit code your authenticator app shows.'}
      </p>
      <CodeForm
        intent="verify"
        label="Code"
        submitLabel="Verify"
        lastResult={lastResult}
        hint="Lost your phone or mailbox? Enter one of your recovery codes instead."
        hidden={{ redirectTo }}
      />
      {method === 'email' ? (
        <Form method="post">
          <button type="submit" className="btn" name="intent" value="resend">
            Send a new code
          </button>
        </Form>
      ) : null}
      <p className="muted">
        <Link to="/signin">Sign in as someone else</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Two-factor sign-in') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
