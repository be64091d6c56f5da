import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the inbox pages so the breadcrumb reads Settings / Facebook / <inbox>. */
export const handle = { breadcrumb: 'Facebook' };

export default function FacebookSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
