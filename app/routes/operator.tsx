import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ConsoleFrame } from '~/components/operator/console';
import { requireOperator } from '~/utils/operator-session.server';

/** The operator's console on the bare APP_HOST (ADR 152): signed-in operators only. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { operator } = await requireOperator(request);
  return { email: operator.email };
}

export default function OperatorLayout() {
  const { email } = useLoaderData<typeof loader>();
  return (
    <ConsoleFrame email={email}>
      <Outlet />
    </ConsoleFrame>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
