import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Field } from '~/components/ui/forms';
import { findAccountByDomain } from '~/models/accounts/accounts.server';
import { DomainLookupSchema } from '~/models/accounts/schemas';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { accountUrl, requireBareHost } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  return null;
}

/** Checks the domain typed on the bare host's sign-in page and continues on that account's subdomain. */
export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  await enforceRateLimit(`verify-domain:${clientIp(request)}`, { limit: 60, windowMs: 15 * 60_000 });
  const submission = parseWithZod(await request.formData(), { schema: DomainLookupSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const account = await findAccountByDomain(submission.value.domain);
  if (!account) return data(submission.reply({ fieldErrors: { domain: ['Invalid Domain'] } }), { status: 400 });
  return redirect(accountUrl(request, account.domain, '/signin'));
}

export default function VerifyDomain() {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <>
      <h1>Sign in</h1>
      <p className="muted">Enter your account domain to continue.</p>
      <Form method="post" {...getFormProps(form)}>
        <Field label="Account domain" field={fields.domain} autoComplete="off" />
        <button type="submit" className="btn btn-primary">
          Continue
        </button>
      </Form>
      <p className="muted">
        <Link to="/forgot-domain">Forgot your domain?</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Sign in') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
