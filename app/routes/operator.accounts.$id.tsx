import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { formatBytes, utc } from '~/components/operator/console';
import { TableHead } from '~/components/ui/list-table';
import { listOperatorAudit } from '~/models/operations/audit.server';
import { ACTION_LABELS, type OperatorAction } from '~/models/operations/audit-labels';
import { changeAccountPlan, consolePlans, ConsoleInputError, getConsoleAccount, resumeAccount, suspendAccount } from '~/models/operations/accounts.server';
import { pageTitle } from '~/utils/format';
import { requireOperator } from '~/utils/operator-session.server';
import { clientIp } from '~/utils/rate-limit.server';
import { parseRowId } from '~/utils/route-id';
import { redirectWithToast } from '~/utils/toast.server';

async function requireAccountId(id: string | undefined) {
  const accountId = parseRowId(id);
  const account = accountId ? await getConsoleAccount(accountId) : undefined;
  if (!account) throw new Response('Not Found', { status: 404 });
  return account;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request);
  const account = await requireAccountId(params.id);
  const [plans, audit] = await Promise.all([consolePlans(), listOperatorAudit({ page: 1, accountId: account.id, pageSize: 20 })]);
  return { account, plans, audit: audit.rows };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { operator } = await requireOperator(request);
  const account = await requireAccountId(params.id);
  const form = await request.formData();
  const actor = { kind: 'operator' as const, id: operator.id, email: operator.email };
  const common = { accountId: account.id, actor, ip: clientIp(request) };
  const here = `/operator/accounts/${account.id}`;
  switch (form.get('intent')) {
    case 'suspend': {
      const changed = await suspendAccount(common);
      return redirectWithToast(here, changed ? `${account.domain} is suspended.` : { type: 'info', text: `${account.domain} was already suspended.` });
    }
    case 'resume': {
      const changed = await resumeAccount(common);
      return redirectWithToast(here, changed ? `${account.domain} is resumed.` : { type: 'info', text: `${account.domain} was not suspended.` });
    }
    case 'plan': {
      const planKey = String(form.get('plan') ?? '');
      try {
        const result = await changeAccountPlan({ ...common, planKey });
        if (!result) throw new Response('Not Found', { status: 404 });
        return redirectWithToast(
          here,
          result.changed && 'plan' in result ? `${account.domain} is now on the ${result.plan?.name} plan.` : { type: 'info', text: `${account.domain} was already on that plan.` },
        );
      } catch (err) {
        if (err instanceof ConsoleInputError) return data({ planError: err.message }, { status: 400 });
        throw err;
      }
    }
    default:
      return data({ planError: null, error: 'Unknown action' }, { status: 400 });
  }
}

export default function OperatorAccount() {
  const { account, plans, audit } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const planError = actionData && 'planError' in actionData ? actionData.planError : null;
  return (
    <section className="settings-page">
      <header>
        <div>
          <p>
            <Link to="/operator">Accounts</Link>
          </p>
          <h1>
            {account.name} <span className="muted">({account.domain})</span>
          </h1>
          <p data-testid="account-status">
            {account.suspendedAt ? <strong className="badge badge-danger">Suspended since {utc(account.suspendedAt)}</strong> : 'Active'}
          </p>
        </div>
      </header>
      <div className="card stack">
        <dl className="facts">
          <dt>Plan</dt>
          <dd data-testid="account-plan">
            {account.planName} ({account.subscriptionStatus})
          </dd>
          <dt>Users</dt>
          <dd>{account.users}</dd>
          <dt>Conversations</dt>
          <dd>{account.conversations}</dd>
          <dt>Storage</dt>
          <dd>{formatBytes(account.storageBytes)}</dd>
          <dt>Last activity</dt>
          <dd>{utc(account.lastActivityAt)}</dd>
          <dt>Created</dt>
          <dd>{utc(account.createdAt)}</dd>
        </dl>
      </div>
      <div className="card stack">
        <h2>Suspension</h2>
        <p className="muted">
          A suspended account's users see a page saying so; its channels refuse new work with a temporary error (mail servers and webhooks
          retry), nothing is deleted. Resuming restores everything.
        </p>
        <Form method="post">
          {account.suspendedAt ? (
            <button type="submit" name="intent" value="resume" className="btn btn-primary">
              Resume account
            </button>
          ) : (
            <button type="submit" name="intent" value="suspend" className="btn btn-danger">
              Suspend account
            </button>
          )}
        </Form>
      </div>
      <div className="card stack">
        <h2>Plan</h2>
        <Form method="post" className="row wrap">
          <label htmlFor="plan">Plan</label>
          <select id="plan" name="plan" defaultValue={account.planKey} aria-invalid={planError ? true : undefined} aria-describedby={planError ? 'plan-error' : undefined}>
              {plans.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.name}
                </option>
              ))}
          </select>
          <button type="submit" name="intent" value="plan" className="btn">
            Change plan
          </button>
        </Form>
        {planError ? (
          <p className="field-error" id="plan-error" role="alert">
            {planError}
          </p>
        ) : null}
      </div>
      <div className="card stack">
        <h2>Delete</h2>
        <p className="muted">Exports the account's data, then deletes the account, its users, conversations and stored files. It cannot be undone.</p>
        <p>
          <Link to={`/operator/accounts/${account.id}/delete`} className="btn btn-danger">
            Delete account…
          </Link>
        </p>
      </div>
      <div className="card stack">
        <h2>Operator actions on this account</h2>
        {audit.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <TableHead headers={['When', 'Who', 'What']} />
              <tbody>
                {audit.map((e) => (
                  <tr key={e.id}>
                    <td>{utc(e.createdAt)}</td>
                    <td>{e.actor}</td>
                    <td>{ACTION_LABELS[e.action as OperatorAction] ?? e.action}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data?.account.domain, 'Operator') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
