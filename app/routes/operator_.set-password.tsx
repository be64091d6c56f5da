import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { SetPasswordSchema } from '~/models/accounts/schemas';
import { findOperatorBySetupToken, setOperatorPassword } from '~/models/operations/operators.server';
import { parseWithZod } from '~/utils/conform.server';
import { pageTitle } from '~/utils/format';
import { clientIp, enforceRateLimit } from '~/utils/rate-limit.server';
import { redirectWithToast } from '~/utils/toast.server';
import { requireBareHost } from '~/utils/tenant.server';

const INVALID = 'This link is invalid or has expired. Print a new one with "npm run parley -- operator link <email>".';

/** The one-time link `operator add` / `operator link` printed (ADR 152). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const operator = await findOperatorBySetupToken(token);
  return { token, email: operator?.email ?? null };
}

export async function action({ request }: ActionFunctionArgs) {
  await requireBareHost(request);
  await enforceRateLimit(`operator-set-password:${clientIp(request)}`, { limit: 20, windowMs: 15 * 60_000 });
  const submission = parseWithZod(await request.formData(), { schema: SetPasswordSchema });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['password', 'confirmPassword'] }), { status: 400 });
  const operator = await setOperatorPassword({ token: submission.value.token, password: submission.value.password, ip: clientIp(request) });
  if (!operator) return data(submission.reply({ hideFields: ['password', 'confirmPassword'], formErrors: [INVALID] }), { status: 400 });
  return redirectWithToast('/operator/signin', 'Your password is set. Sign in.');
}

export default function OperatorSetPassword() {
  const { token, email } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({ lastResult, shouldValidate: 'onSubmit' });
  return (
    <main id="main" className="auth">
      <div className="card">
        <span className="brand">Parley operator</span>
        <h1>Set your password</h1>
        {email ? (
          <>
            <p className="muted">For the operator {email}.</p>
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
        ) : (
          <p className="form-error" role="alert" data-testid="link-invalid">
            {INVALID}
          </p>
        )}
        <p className="muted">
          <Link to="/operator/signin">Operator sign-in</Link>
        </p>
      </div>
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Operator password') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
