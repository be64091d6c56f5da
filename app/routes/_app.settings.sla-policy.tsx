import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the editor so the breadcrumb reads Settings / SLA Policy / <name>. */
export const handle = { breadcrumb: 'SLA Policy' };

export default function SlaPolicySection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
