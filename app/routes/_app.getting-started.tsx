import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { OnboardingChecklist } from '~/components/onboarding-checklist';
import { getOnboardingSteps } from '~/models/onboarding/onboarding.server';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return { steps: await getOnboardingSteps({ accountId: ctx.account.id }) };
}

export const handle = { breadcrumb: 'Getting Started' };

export default function GettingStarted() {
  const { steps } = useLoaderData<typeof loader>();
  return (
    <div className="page stack">
      <h1>Getting Started</h1>
      <p className="muted">
        Four steps to a working help desk. Each is ticked off when your account has done it; the <Link to="/help-center/getting-started">guide</Link>{' '}
        explains them.
      </p>
      <section className="card">
        <OnboardingChecklist steps={steps} detailed />
      </section>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Getting Started') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
