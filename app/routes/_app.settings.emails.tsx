import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the inbox pages so the breadcrumb reads Settings / Emails / <inbox>. */
export const handle = { breadcrumb: 'Emails' };

export default function EmailsSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
