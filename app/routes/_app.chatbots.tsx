import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature } from '~/utils/session.server';

/** Chatbots run in the messenger, so the plan area chatMessenger gates them (ADR 075). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireFeature(request, 'chatMessenger/enabled');
  return null;
}

export const handle = { breadcrumb: 'Chatbots' };

export default function ChatbotsArea() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
