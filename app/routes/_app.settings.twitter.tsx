import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the inbox pages so the breadcrumb reads Settings / Twitter / <inbox>. */
export const handle = { breadcrumb: 'Twitter' };

export default function TwitterSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
