import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ConfirmationMismatchError, deleteAccount, getConsoleAccount } from '~/models/operations/accounts.server';
import { pageTitle } from '~/utils/format';
import { requireOperator } from '~/utils/operator-session.server';
import { clientIp } from '~/utils/rate-limit.server';
import { parseRowId } from '~/utils/route-id';
import { redirectWithToast } from '~/utils/toast.server';

/** Deleting an account: a page of its own where the operator types the domain (ADR 152). */
async function requireAccountId(id: string | undefined) {
  const accountId = parseRowId(id);
  const account = accountId ? await getConsoleAccount(accountId) : undefined;
  if (!account) throw new Response('Not Found', { status: 404 });
  return account;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request);
  const account = await requireAccountId(params.id);
  return { account: { id: account.id, domain: account.domain, name: account.name, users: account.users, conversations: account.conversations } };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { operator } = await requireOperator(request);
  const account = await requireAccountId(params.id);
  const form = await request.formData();
  const typed = String(form.get('confirmDomain') ?? '').slice(0, 100);
  try {
    const result = await deleteAccount({
      accountId: account.id,
      confirmDomain: typed,
      actor: { kind: 'operator', id: operator.id, email: operator.email },
      ip: clientIp(request),
    });
    if (!result) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/operator', `${account.domain} is deleted. Its export: ${result.archive.path}`);
  } catch (err) {
    if (err instanceof ConfirmationMismatchError) return data({ error: err.message, typed }, { status: 400 });
    throw err;
  }
}

export default function OperatorDeleteAccount() {
  const { account } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <section className="settings-page">
      <header>
        <div>
          <p>
            <Link to={`/operator/accounts/${account.id}`}>{account.domain}</Link>
          </p>
          <h1>Delete {account.name}</h1>
        </div>
      </header>
      <div className="card stack">
        <p>
          This exports the account's data to an archive on the server, then deletes the account <strong>{account.domain}</strong> with its{' '}
          {account.users} users, {account.conversations} conversations, everything else it holds and its stored files. It cannot be undone.
        </p>
        <Form method="post" className="stack">
          <div className="field">
            <label htmlFor="confirmDomain">Type the account's domain, {account.domain}, to confirm</label>
            <input
              id="confirmDomain"
              name="confirmDomain"
              autoComplete="off"
              defaultValue={actionData?.typed ?? ''}
              maxLength={100}
              aria-invalid={actionData?.error ? true : undefined}
              aria-describedby={actionData?.error ? 'confirmDomain-error' : undefined}
            />
            {actionData?.error ? (
              <p className="field-error" id="confirmDomain-error" role="alert">
                {actionData.error}
              </p>
            ) : null}
          </div>
          <div className="row">
            <Link to={`/operator/accounts/${account.id}`} className="btn">
              Cancel
            </Link>
            <button type="submit" className="btn btn-danger">
              Export and delete
            </button>
          </div>
        </Form>
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(`Delete ${data?.account.domain ?? ''}`, 'Operator') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
