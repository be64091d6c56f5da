import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list, the create dialog and the builder so the breadcrumb reads Workflows / <name>. */
export const handle = { breadcrumb: 'Workflows' };

export default function WorkflowsSection() {
  // The same page margins as the other areas (.page).
  return (
    <div className="page">
      <Outlet />
    </div>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
