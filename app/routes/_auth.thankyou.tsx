import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { requireBareHost } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireBareHost(request);
  return null;
}

export default function ThankYou() {
  return (
    <>
      <h1>Thank you</h1>
      <p>If that address belongs to any Parley account, an email with the account domains is on its way.</p>
      <Link className="btn" to="/signin">
        Back to sign in
      </Link>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Thank you') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
