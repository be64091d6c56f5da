import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { ComingSoon } from '~/components/coming-soon';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export const handle = { breadcrumb: 'Inbox' };

export default function Page() {
  return <ComingSoon area="Inbox" description="Conversations from email, chat, SMS and forms in one shared inbox." />;
}

export const meta: MetaFunction = () => [{ title: pageTitle('Inbox') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
