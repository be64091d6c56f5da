import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the editor so the breadcrumb reads Settings / Routing / <name>. */
export const handle = { breadcrumb: 'Routing' };

export default function RoutingSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
