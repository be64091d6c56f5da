import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Field } from '~/components/ui/forms';
import { ForgotPasswordSchema } from '~/models/accounts/schemas';
import { sendPasswordReset } from '~/models/auth/auth.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { accountUrl, requireAccount } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAccount(request);
  return { sent: new URL(request.url).searchParams.get('sent') === '1' };
}

export async function action({ request }: ActionFunctionArgs) {
  const account = await requireAccount(request);
  const submission = parseWithZod(await request.formData(), { schema: ForgotPasswordSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await enforceRateLimit(`forgot-password:${clientIp(request)}`, { limit: 20, windowMs: 60 * 60_000 });
  await enforceRateLimit(`forgot-password:${account.id}:${submission.value.email}`, { limit: 5, windowMs: 60 * 60_000 });
  await sendPasswordReset({ accountId: account.id, email: submission.value.email, baseUrl: accountUrl(request, account.domain, '').replace(/\/$/, '') });
  return redirect('/forgot-password?sent=1');
}

export default function ForgotPassword() {
  const { sent } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  if (sent) {
    return (
      <>
        <h1>Check your email</h1>
        <p>If that address has an account here, a link to set a new password is on its way. It works for one hour.</p>
        <Link to="/signin">Back to sign in</Link>
      </>
    );
  }
  return (
    <>
      <h1>Forgot password</h1>
      <Form method="post" {...getFormProps(form)}>
        <Field label="Email" field={fields.email} type="email" autoComplete="email" />
        <button type="submit" className="btn btn-primary">
          Send reset link
        </button>
      </Form>
      <p className="muted">
        <Link to="/signin">Back to sign in</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Forgot password') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
