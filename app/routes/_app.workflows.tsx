import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Workflows' };

export default function Page() {
  return <ComingSoon area="Workflows" description="Automation rules that react to events." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Workflows') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
