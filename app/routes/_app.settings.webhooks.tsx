import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and endpoint pages so the breadcrumb reads Settings / Webhooks / <url>. */
export const handle = { breadcrumb: 'Webhooks' };

export default function WebhooksSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
