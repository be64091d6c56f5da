import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and detail pages so the breadcrumb reads Settings / Goals / <name>. */
export const handle = { breadcrumb: 'Goals' };

export default function Section() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
