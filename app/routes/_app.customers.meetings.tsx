import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Meetings' };

export default function Meetings() {
  return <ComingSoon area="Meetings" description="Booking pages for meetings with your customers, with a booking count per meeting." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Meetings', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
