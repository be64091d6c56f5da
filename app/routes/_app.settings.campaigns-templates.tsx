import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature, requireUser } from '~/utils/session.server';

/** Settings → Productivity → Campaign Templates: needs the plan's campaigns/emailCampaigns (suite.md section 2). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'campaigns/emailCampaigns', await requireUser(request));
  return null;
}

export const handle = { breadcrumb: 'Campaign Templates' };

export default function CampaignTemplatesSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
