import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the list and the editor so the breadcrumb reads Settings / Automation Rules / <name>. */
export const handle = { breadcrumb: 'Automation Rules' };

export default function AutomationRulesSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
