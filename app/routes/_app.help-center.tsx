import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Help Center' };

export default function Page() {
  return <ComingSoon area="Help Center" description="Parley's own documentation for agents and admins." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Help Center') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
