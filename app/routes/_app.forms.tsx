import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Forms' };

export default function Page() {
  return <ComingSoon area="Forms" description="Public forms and their responses." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Forms') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
