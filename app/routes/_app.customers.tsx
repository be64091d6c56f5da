import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'CRM' };

export default function Page() {
  return <ComingSoon area="CRM" description="Contacts, companies, segments, meetings and live view." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
