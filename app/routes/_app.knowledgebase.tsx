import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Knowledge Base' };

export default function Page() {
  return <ComingSoon area="Knowledge Base" description="Help centres with categories, articles and versions." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Knowledge Base') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
