import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';

/** Forms feed the CRM: the plan area customerManagement gates them (ADR 067). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'customerManagement/enabled');
  return null;
}

export const handle = { breadcrumb: 'Forms' };

export default function FormsArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
