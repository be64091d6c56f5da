import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireFeature, requireUser } from '~/utils/session.server';

/** Settings → Messenger → Meetings, behind the integratedMeetings plan flag (each child guards itself too). */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/integratedMeetings', ctx);
  return null;
}

export const handle = { breadcrumb: 'Meetings' };

export default function MeetingsSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
