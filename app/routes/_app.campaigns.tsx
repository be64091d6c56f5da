import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';

/** The plan area campaigns gates the whole of Campaigns; each kind has its own feature (suite.md section 2). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'campaigns/enabled');
  return null;
}

export const handle = { breadcrumb: 'Campaigns' };

export default function CampaignsArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
