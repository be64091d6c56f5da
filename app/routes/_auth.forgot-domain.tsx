import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Field } from '~/components/ui/forms';
import { ForgotDomainSchema } from '~/models/accounts/schemas';
import { sendDomainReminder } from '~/models/auth/auth.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { accountUrl, requireBareHost } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  const submission = parseWithZod(await request.formData(), { schema: ForgotDomainSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await enforceRateLimit(`forgot-domain:${clientIp(request)}`, { limit: 20, windowMs: 60 * 60_000 });
  await sendDomainReminder({ email: submission.value.email, accountUrl: (d) => accountUrl(request, d, '/signin') });
  return redirect('/thankyou?for=domain');
}

export default function ForgotDomain() {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit', shouldRevalidate: 'onSubmit' });
  return (
    <>
      <h1>Forgot your domain?</h1>
      <p className="muted">We will email you the domains of the accounts you belong to.</p>
      <Form method="post" {...getFormProps(form)}>
        <Field label="Email" field={fields.email} type="email" autoComplete="email" />
        <button type="submit" className="btn btn-primary">
          Email my domains
        </button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Forgot domain') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
