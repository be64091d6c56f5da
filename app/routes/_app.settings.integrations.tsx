import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature, requirePermission } from '~/utils/session.server';

/** Settings → API and Integrations → Integrations: the plan's integrations area and manage_integrations (ADR 078). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_integrations');
  await requireFeature(request, 'integrations/enabled', ctx);
  return null;
}

export const handle = { breadcrumb: 'Integrations' };

export default function IntegrationsSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
