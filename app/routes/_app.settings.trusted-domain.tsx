import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the editor so the breadcrumb reads Settings / Trusted Domain / <name>. */
export const handle = { breadcrumb: 'Trusted Domain' };

export default function TrustedDomainSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
