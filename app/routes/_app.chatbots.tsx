import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Chatbots' };

export default function Page() {
  return <ComingSoon area="Chatbots" description="Automated conversation flows for the messenger." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Chatbots') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
