import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SettingsPage } from '~/components/ui/settings-page';
import { conversionCounts, listGoals } from '~/models/conversions/conversions.server';
import { URL_OP_LABELS } from '~/models/conversions/constants';
import { pageTitle } from '~/utils/format';
import { can, requireFeature, requireUser } from '~/utils/session.server';

/** Settings → Conversions → Goals (ADR 104): every agent sees them; manage_messenger_customization changes them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/conversionGoals', ctx);
  const [goals, counts] = await Promise.all([listGoals({ accountId: ctx.account.id }), conversionCounts({ accountId: ctx.account.id })]);
  return {
    goals: goals.map((g) => ({
      id: g.id,
      name: g.name,
      eventName: g.eventName,
      rule: g.kind === 'url' && g.urlOp ? `URL ${URL_OP_LABELS[g.urlOp]} ${g.urlValue ?? ''}` : null,
      active: g.active,
      attributionDays: g.attributionDays,
      conversions: counts.goals.get(g.id) ?? 0,
    })),
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export default function Goals() {
  const { goals, locked } = useLoaderData<typeof loader>();
  return (
    <SettingsPage
      title="Goals"
      subHeader="Count the visitors who reach a goal on your site after talking to your team."
      learnMore="/help-center/analytics#goals"
      locked={locked}
      actions={
        <Link to="/settings/goals/add" className="btn btn-primary">
          {locked ? <DeniedBadge kind="role" /> : null} Add Goal
        </Link>
      }
    >
      {goals.length === 0 ? (
        <p className="muted" data-testid="empty">
          No goals yet. A goal counts an event your site reports with <code>Parley.track('signup')</code>, or a visit to a page whose URL matches.
        </p>
      ) : (
        <table className="table" data-testid="goals">
          <thead>
            <tr>
              <th>Name</th>
              <th>Reached when</th>
              <th>Attribution window</th>
              <th>Conversions</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {goals.map((g) => (
              <tr key={g.id}>
                <td>
                  <Link to={`/settings/goals/${g.id}`}>{g.name}</Link>
                </td>
                <td>{g.rule ?? <code>{g.eventName}</code>}</td>
                <td>{g.attributionDays} days</td>
                <td>{g.conversions}</td>
                <td>{g.active ? 'Active' : 'Paused'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Goals', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
