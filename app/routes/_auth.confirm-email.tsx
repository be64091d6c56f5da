import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { confirmEmailChange, describeEmailChange } from '~/models/users/email-change.server';
import { pageTitle } from '~/utils/format';
import { getAppContext } from '~/utils/session.server';
import { requireAccount } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

/**
 * The link mailed to a new address (ADR 148). Opening it changes nothing (mail scanners open links); the button
 * does. It works signed in or not: the link itself proves the mailbox, the password was checked when it was asked.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const account = await requireAccount(request);
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const change = token ? await describeEmailChange({ accountId: account.id, token }) : undefined;
  return { token, change: change ?? null };
}

export async function action({ request }: ActionFunctionArgs) {
  const account = await requireAccount(request);
  const token = String((await request.formData()).get('token') ?? '');
  const result = await confirmEmailChange({ accountId: account.id, token });
  if (!result.ok) return data({ message: result.message }, { status: 400 });
  const ctx = await getAppContext(request).catch(() => null);
  return redirectWithToast(ctx ? '/settings/security' : '/signin', 'Email Changed Successfully');
}

export default function ConfirmEmail() {
  const { token, change } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  if (!change || actionData?.message) {
    return (
      <>
        <h1>Change email address</h1>
        <p className="form-error" role="alert">
          {actionData?.message ?? 'This link has expired or was already used. Ask for the change again from your profile.'}
        </p>
        <Link to="/signin">Sign in</Link>
      </>
    );
  }
  return (
    <>
      <h1>Change email address</h1>
      <p>
        Sign in with <strong>{change.newEmail}</strong> instead of {change.oldEmail}?
      </p>
      <Form method="post">
        <input type="hidden" name="token" value={token} />
        <button type="submit" className="btn btn-primary">
          Confirm new email
        </button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Change email address') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
