import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the editor so the breadcrumb reads Settings / Business Hours / <name>. */
export const handle = { breadcrumb: 'Business Hours' };

export default function BusinessHoursSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
