import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Campaigns' };

export default function Page() {
  return <ComingSoon area="Campaigns" description="Push, in-product message, SMS and email campaigns." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Campaigns') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
