import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';

/** Reviews sit with customer satisfaction: the plan area customerSatisfactionSurveys gates them (ADR 068). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'customerSatisfactionSurveys/enabled');
  return null;
}

export const handle = { breadcrumb: 'Reviews' };

export default function ReviewsArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
