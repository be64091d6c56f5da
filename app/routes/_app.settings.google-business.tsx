import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the inbox pages so the breadcrumb reads Settings / Google Business / <inbox>. */
export const handle = { breadcrumb: 'Google Business' };

export default function GoogleBusinessSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
