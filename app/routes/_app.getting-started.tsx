import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { getOnboardingSteps } from '~/models/onboarding/onboarding.server';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';
import { Circle, CircleCheck } from 'lucide-react';

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
      <ol className="card">
        {steps.map((s) => (
          <li key={s.key} data-done={s.done}>
            {s.done ? <CircleCheck aria-hidden="true" size={16} className="done" /> : <Circle aria-hidden="true" size={16} />} <Link to={s.to}>{s.label}</Link>
              <span className="visually-hidden">{s.done ? ' (done)' : ' (to do)'}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Getting Started') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
