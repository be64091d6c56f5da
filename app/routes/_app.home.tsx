import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { OnboardingChecklist } from '~/components/onboarding-checklist';
import { listNotifications } from '~/models/notifications/notifications.server';
import { getAccountSummary, getOnboardingSteps } from '~/models/onboarding/onboarding.server';
import { countLabel, formatDateTime, pageTitle } from '~/utils/format';
import { publicUser, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const [summary, steps, notifications] = await Promise.all([
    getAccountSummary({ accountId: ctx.account.id }),
    getOnboardingSteps({ accountId: ctx.account.id }),
    listNotifications({ accountId: ctx.account.id, userId: ctx.user.id, limit: 5 }),
  ]);
  return { user: publicUser(ctx), accountName: ctx.account.name, summary, steps, notifications };
}

export const handle = { breadcrumb: 'Home' };

export default function Home() {
  const { user, accountName, summary, steps, notifications } = useLoaderData<typeof loader>();
  return (
    <div className="page stack">
      <h1>Welcome, {user.firstName}</h1>
      <p className="muted">
        {accountName} · {countLabel(summary.users, 'user')} · {countLabel(summary.teams, 'team')} · {countLabel(summary.roles, 'role')}
      </p>
      <section className="card">
        <h2>Getting started</h2>
        <OnboardingChecklist steps={steps} />
      </section>
      <section className="card">
        <h2>Latest notifications</h2>
        {notifications.length === 0 ? <p className="muted">Nothing yet.</p> : null}
        <ul>
          {notifications.map((n) => (
            <li key={n.id}>
              <strong>{n.title}</strong> <span className="muted">{formatDateTime(n.createdAt, user)}</span>
            </li>
          ))}
        </ul>
        <Link to="/notifications">All notifications</Link>
      </section>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Home') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
