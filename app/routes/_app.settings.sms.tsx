import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the inbox pages so the breadcrumb reads Settings / SMS / <inbox>. */
export const handle = { breadcrumb: 'SMS' };

export default function SmsSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
