import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { SettingsPage } from '~/components/ui/settings-page';
import { FEATURE_AREAS } from '~/models/plans/catalogue';
import { trialBanner } from '~/models/shell/trial';
import { getConfig } from '~/utils/env.server';
import { formatDate, pageTitle } from '~/utils/format';
import { publicUser, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return {
    user: publicUser(ctx),
    plan: ctx.plan,
    status: ctx.account.subscriptionStatus,
    trialEndsAt: getConfig().billing ? (ctx.account.trialEndsAt?.toISOString() ?? null) : null,
    trial: trialBanner(ctx.account, { billing: getConfig().billing }),
  };
}

export const handle = { breadcrumb: 'My Plan' };

/** The current plan and what it includes. Payment and plan changes arrive with billing. */
export default function MyPlan() {
  const { user, plan, status, trialEndsAt, trial } = useLoaderData<typeof loader>();
  return (
    <SettingsPage title="My Plan" subHeader="Your subscription and the features it includes.">
      <p>
        Plan: <strong data-testid="plan-name">{plan.name}</strong> · Status: <span className="pill">{status}</span>
        {trialEndsAt ? ` · Trial ends ${formatDate(trialEndsAt, user)}` : ''}
      </p>
      {trial ? <p>{trial.text}</p> : null}
      <p className="muted">Online payment is not available yet; an administrator of this installation changes plans with `npm run parley -- plan set`.</p>
      <table className="table">
        <thead>
          <tr>
            <th>Area</th>
            <th>Included</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(FEATURE_AREAS).map(([area, flags]) => (
            <tr key={area}>
              <td>{area}</td>
              <td>
                {flags
                  .filter((f) => plan.features[area]?.[f] === true)
                  .map((f) => (
                    <span key={f} className="pill pill-ok" style={{ marginRight: 4 }}>
                      {f}
                    </span>
                  ))}
                {typeof plan.features[area]?.advanceWorkflowsLimit === 'number' ? <span className="pill">workflows ≤ {String(plan.features[area].advanceWorkflowsLimit)}</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('My Plan', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
