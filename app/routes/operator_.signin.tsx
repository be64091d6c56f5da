import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { OperatorSigninSchema } from '~/models/operations/schemas';
import { createOperatorSession, verifyOperatorCredentials } from '~/models/operations/operators.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { getOperator, operatorSessionCookie } from '~/utils/operator-session.server';
import { checkRateLimit, clientIp, hitRateLimit } from '~/utils/rate-limit.server';
import { requireBareHost } from '~/utils/tenant.server';


export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  if (await getOperator(request)) throw redirect('/operator');
  return { idle: new URL(request.url).searchParams.get('idle') === '1' };
}

export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  const submission = parseWithZod(await request.formData(), { schema: OperatorSigninSchema });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['password'] }), { status: 400 });
  const { email, password } = submission.value;
  // Failed attempts only are counted, as on an account's sign-in (ADR 023).
  const limits = [
    { key: `operator-signin-ip:${clientIp(request)}`, limit: 100, windowMs: 15 * 60_000 },
    { key: `operator-signin:${email}`, limit: 10, windowMs: 15 * 60_000 },
  ];
  for (const l of limits) await checkRateLimit(l.key, l);
  const operator = await verifyOperatorCredentials({ email, password });
  if (!operator) {
    for (const l of limits) await hitRateLimit(l.key, l);
    return data(submission.reply({ hideFields: ['password'], formErrors: ['Invalid email or password'] }), { status: 400 });
  }
  const id = await createOperatorSession({ operatorId: operator.id, userAgent: request.headers.get('user-agent'), ip: clientIp(request) });
  return redirect('/operator', { headers: { 'Set-Cookie': await operatorSessionCookie(request, id) } });
}

export default function OperatorSignin() {
  const { idle } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit' });
  return (
    <main id="main" className="auth">
      <div className="card">
        <span className="brand">Parley operator</span>
        {idle ? (
          <div className="form-error" role="alert">
            <strong>Signed out:</strong> you were signed out after 30 minutes without activity.
          </div>
        ) : null}
        <h1>Sign in to the console</h1>
        <p className="muted">For the operators of this installation, named with "npm run parley -- operator add".</p>
        <Form method="post" {...getFormProps(form)}>
          <Field label="Email" field={fields.email} type="email" autoComplete="username" />
          <Field label="Password" field={fields.password} type="password" autoComplete="current-password" />
          <ErrorList id={form.errorId} errors={form.errors} />
          <button type="submit" className="btn btn-primary">
            Sign in
          </button>
        </Form>
      </div>
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Operator sign-in') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
