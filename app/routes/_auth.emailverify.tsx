import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import type { z } from 'zod';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { EmailCodeSchema, ResendCodeSchema } from '~/models/accounts/schemas';
import { confirmEmailCode, findUserByEmail, sendSignupCode } from '~/models/auth/auth.server';
import { pageTitle } from '~/utils/format';
import { enforceRateLimit } from '~/utils/rate-limit.server';
import { startSession } from '~/utils/session.server';
import { requireAccount } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const email = new URL(request.url).searchParams.get('email') ?? '';
  const resent = new URL(request.url).searchParams.get('resent') === '1';
  return { email, resent, domain: account.domain };
}

const MESSAGES = {
  invalid: 'The code is not valid',
  expired: 'The code has expired. Send a new one.',
  too_many_attempts: 'Too many wrong codes. Send a new one.',
} as const;

/** The email code confirms the owner's address; then the owner is signed in and continues to extra details. */
export async function action({ request }: ActionFunctionArgs) {
  const account = await requireAccount(request);
  const formData = await request.formData();
  if (formData.get('intent') === 'resend') {
    const resend = parseWithZod(formData, { schema: ResendCodeSchema });
    if (resend.status !== 'success') return data(resend.reply(), { status: 400 });
    await enforceRateLimit(`otp-resend:${account.id}:${resend.value.email}`, { limit: 5, windowMs: 15 * 60_000 });
    const user = await findUserByEmail({ accountId: account.id, email: resend.value.email });
    // The same answer whether or not the address is pending, so the form reveals nothing.
    if (user && user.status === 'pending' && !user.invitedAt) {
      await sendSignupCode({ accountId: account.id, userId: user.id, email: user.email, domain: account.domain });
    }
    return redirect(`/emailverify?email=${encodeURIComponent(resend.value.email)}&resent=1`);
  }
  const submission = parseWithZod(formData, { schema: EmailCodeSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await enforceRateLimit(`otp:${account.id}:${submission.value.email}`, { limit: 10, windowMs: 15 * 60_000 });
  const result = await confirmEmailCode({ accountId: account.id, ...submission.value });
  if (result !== 'ok') return data(submission.reply({ fieldErrors: { code: [MESSAGES[result]] } }), { status: 400 });
  const user = await findUserByEmail({ accountId: account.id, email: submission.value.email });
  const cookie = await startSession(request, { accountId: account.id, userId: user!.id, remember: false });
  return redirect('/extra-details', { headers: { 'Set-Cookie': cookie } });
}

export default function EmailVerify() {
  const { email, resent } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<z.input<typeof EmailCodeSchema>>({
    lastResult,
    defaultValue: { email },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <>
      <h1>Confirm your email</h1>
      <p className="muted">We sent a 6-digit code to {email || 'your email'}. It expires in 15 minutes.</p>
      {resent ? (
        <p className="pill pill-ok" role="status">
          A new code is on its way.
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <Field label="Email" field={fields.email} type="email" autoComplete="email" />
        <Field label="Code" field={fields.code} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="row">
          <button type="submit" className="btn btn-primary" name="intent" value="verify">
            Verify
          </button>
          <button type="submit" className="btn" name="intent" value="resend" formNoValidate>
            Resend code
          </button>
        </div>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Confirm your email') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
