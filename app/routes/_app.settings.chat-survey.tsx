import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and detail pages so the breadcrumb reads Settings / Chat Survey / … */
export const handle = { breadcrumb: 'Chat Survey' };

export default function ChatSurveySection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
