import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Surveys' };

export default function Page() {
  return <ComingSoon area="Surveys" description="NPS, CSAT and CES surveys over in-app, email and web." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Surveys') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
