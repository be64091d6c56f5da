import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { createAccountWithOwner, DomainTakenError, isDomainAvailable } from '~/models/accounts/accounts.server';
import { RESERVED_DOMAIN_MESSAGE } from '~/models/accounts/constants';
import { SignupSchema } from '~/models/accounts/schemas';
import { sendSignupCode } from '~/models/auth/auth.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { accountUrl, requireBareHost } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  await enforceRateLimit(`signup:${clientIp(request)}`, { limit: 30, windowMs: 60 * 60_000 });
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: SignupSchema });
  if (submission.status !== 'success') {
    return data(submission.reply({ hideFields: ['password'] }), { status: 400 });
  }
  const input = submission.value;
  if (!(await isDomainAvailable(input.domain))) {
    return data(submission.reply({ fieldErrors: { domain: [RESERVED_DOMAIN_MESSAGE] }, hideFields: ['password'] }), { status: 400 });
  }
  try {
    const { account, owner } = await createAccountWithOwner(input);
    await sendSignupCode({ accountId: account.id, userId: owner.id, email: owner.email, domain: account.domain });
    return redirect(accountUrl(request, account.domain, `/emailverify?email=${encodeURIComponent(owner.email)}`));
  } catch (err) {
    if (err instanceof DomainTakenError) {
      return data(submission.reply({ fieldErrors: { domain: [RESERVED_DOMAIN_MESSAGE] }, hideFields: ['password'] }), { status: 400 });
    }
    throw err;
  }
}

export default function Signup() {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <>
      <h1>Create your Parley account</h1>
      <Form method="post" {...getFormProps(form)}>
        <Field label="Account domain" field={fields.domain} hint="Letters, digits and -; 4 to 20 characters. Your team signs in at this subdomain." autoComplete="off" />
        <div className="row">
          <Field label="First name" field={fields.firstName} autoComplete="given-name" />
          <Field label="Last name" field={fields.lastName} autoComplete="family-name" />
        </div>
        <Field label="Work email" field={fields.email} type="email" autoComplete="email" />
        <Field label="Password" field={fields.password} type="password" autoComplete="new-password" />
        <ErrorList id={form.errorId} errors={form.errors} />
        <button type="submit" className="btn btn-primary">
          Sign up
        </button>
      </Form>
      <p className="muted">
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Sign up') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
