import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and detail pages so the breadcrumb reads Settings / Email Survey / … */
export const handle = { breadcrumb: 'Email Survey' };

export default function EmailSurveySection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
