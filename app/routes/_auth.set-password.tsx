import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SetPasswordSchema } from '~/models/accounts/schemas';
import { describeLinkToken, setPasswordWithToken } from '~/models/auth/auth.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { redirectWithToast } from '~/utils/toast.server';
import { requireAccount } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const link = token ? await describeLinkToken({ accountId: account.id, token }) : undefined;
  return { token, link: link ?? null, accountName: account.name };
}

/** One page for both the invitation link and the password-reset link. */
export async function action({ request }: ActionFunctionArgs) {
  const account = await requireAccount(request);
  await enforceRateLimit(`set-password:${clientIp(request)}`, { limit: 30, windowMs: 15 * 60_000 });
  const submission = parseWithZod(await request.formData(), { schema: SetPasswordSchema });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['password', 'confirmPassword'] }), { status: 400 });
  const result = await setPasswordWithToken({ accountId: account.id, token: submission.value.token, password: submission.value.password });
  if (!result.ok) {
    return data(submission.reply({ formErrors: ['This link is invalid or has expired'], hideFields: ['password', 'confirmPassword'] }), { status: 400 });
  }
  return redirectWithToast('/signin', result.purpose === 'invitation' ? 'Password set. Sign in to continue.' : 'Password Changed');
}

export default function SetPassword() {
  const { token, link, accountName } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  if (!link) {
    return (
      <>
        <h1>This link is invalid or has expired</h1>
        <p>Ask your administrator for a new invitation, or request a new password reset.</p>
        <Link to="/forgot-password">Reset password</Link>
      </>
    );
  }
  return (
    <>
      <h1>{link.purpose === 'invitation' ? `Join ${accountName}` : 'Set a new password'}</h1>
      <p className="muted">{link.email}</p>
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="token" value={token} />
        <Field label="Password" field={fields.password} type="password" autoComplete="new-password" />
        <Field label="Confirm password" field={fields.confirmPassword} type="password" autoComplete="new-password" />
        <ErrorList id={form.errorId} errors={form.errors} />
        <button type="submit" className="btn btn-primary">
          Set password
        </button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Set password') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
