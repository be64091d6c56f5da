import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and detail pages so the breadcrumb reads Settings / Sales Tracker / <name>. */
export const handle = { breadcrumb: 'Sales Tracker' };

export default function Section() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
