import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and detail pages so the breadcrumb reads Settings / Contact Form / <header>. */
export const handle = { breadcrumb: 'Contact Form' };

export default function ContactFormSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
