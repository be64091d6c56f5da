import type { z } from 'zod';
import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { DomainLookupSchema, SigninSchema } from '~/models/accounts/schemas';
import { getAuthenticator } from '~/utils/auth.server';
import { pageTitle } from '~/utils/format';
import { signinStepFor } from '~/models/auth/two-factor.server';
import { getAppContext, PENDING_STEP_PATHS, startSession } from '~/utils/session.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { getTenant, requireAccount } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const tenant = await getTenant(request);
  const url = new URL(request.url);
  if (tenant.kind === 'bare') return { kind: 'bare' as const, expired: false, idle: false, redirectTo: null, accountName: null };
  const account = await requireAccount(request);
  if (await getAppContext(request)) throw redirect(safeRedirect(url.searchParams.get('redirectTo')));
  return {
    kind: 'account' as const,
    expired: url.searchParams.get('expired') === '1',
    idle: url.searchParams.get('idle') === '1',
    redirectTo: url.searchParams.get('redirectTo'),
    accountName: account.name,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const account = await requireAccount(request);
  const outcome = await getAuthenticator().authenticate('form', request);
  if (!outcome.ok) {
    return data(outcome.submission.reply({ hideFields: ['password'], formErrors: outcome.formError ? [outcome.formError] : undefined }), { status: 400 });
  }
  // Two-factor (ADR 148): the password alone gives a session that only reaches the second step (or its setup).
  const pendingStep = await signinStepFor({
    accountId: account.id,
    userId: outcome.userId,
    requireTwoFactor: Boolean(account.settings.requireTwoFactor),
    accountName: account.name,
  });
  const cookie = await startSession(request, { accountId: outcome.accountId, userId: outcome.userId, remember: outcome.remember, pendingStep });
  const to = safeRedirect(outcome.redirectTo);
  if (pendingStep) {
    return redirect(`${PENDING_STEP_PATHS[pendingStep]}${to !== '/home' ? `?redirectTo=${encodeURIComponent(to)}` : ''}`, { headers: { 'Set-Cookie': cookie } });
  }
  return redirect(to, { headers: { 'Set-Cookie': cookie } });
}

export default function Signin() {
  const loaderData = useLoaderData<typeof loader>();
  return loaderData.kind === 'bare' ? <DomainStep /> : <CredentialsStep {...loaderData} />;
}

/** On the bare host, sign-in first asks which account (subdomain) to continue on. */
function DomainStep() {
  const [form, fields] = useForm({
    shouldValidate: 'onSubmit',
  });
  return (
    <>
      <h1>Sign in</h1>
      <p className="muted">Enter your account domain to continue.</p>
      <Form method="post" action="/verify-domain" {...getFormProps(form)}>
        <Field label="Account domain" field={fields.domain} autoComplete="off" />
        <button type="submit" className="btn btn-primary">
          Continue
        </button>
      </Form>
      <p className="muted">
        <Link to="/forgot-domain">Forgot your domain?</Link> · <Link to="/signup">Create an account</Link>
      </p>
    </>
  );
}

function CredentialsStep({ expired, idle, redirectTo, accountName }: { expired: boolean; idle: boolean; redirectTo: string | null; accountName: string | null }) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm<z.input<typeof SigninSchema>>({
    lastResult,
    defaultValue: { redirectTo: redirectTo ?? '' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <>
      {expired ? (
        <div className="form-error" role="alert" data-testid="session-expired">
          <strong>Session Expired:</strong> Token is expired and you are logged out
        </div>
      ) : null}
      {idle ? (
        <div className="form-error" role="alert" data-testid="session-idle">
          <strong>Signed out:</strong> you were signed out after a time without activity. Sign in again to continue.
        </div>
      ) : null}
      <h1>Sign in to {accountName}</h1>
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="redirectTo" value={redirectTo ?? ''} />
        <Field label="Email" field={fields.email} type="email" autoComplete="email" />
        <Field label="Password" field={fields.password} type="password" autoComplete="current-password" />
        <CheckboxField label="Remember me" field={fields.remember} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <button type="submit" className="btn btn-primary">
          Sign in
        </button>
      </Form>
      <p className="muted">
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Sign in') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
