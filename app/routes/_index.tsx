import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Link } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { pageTitle } from '~/utils/format';
import { getAppContext } from '~/utils/session.server';
import { getTenant, requireBareHost } from '~/utils/tenant.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const tenant = await getTenant(request);
  if (tenant.kind === 'account') {
    const ctx = await getAppContext(request);
    throw redirect(ctx ? '/home' : '/signin');
  }
  if (tenant.kind === 'foreign') await requireBareHost(request);
  if (tenant.kind !== 'bare') throw new Response('Not Found', { status: 404 });
  return null;
}

export default function Landing() {
  return (
    <main id="main" className="auth">
      <div className="card stack">
        <span className="brand">Parley</span>
        <h1>Customer support that keeps up</h1>
        <p className="muted">A shared inbox, help centre, surveys, campaigns and automation, on your own server.</p>
        <div className="row">
          <Link className="btn btn-primary" to="/signup">
            Sign up
          </Link>
          <Link className="btn" to="/signin">
            Sign in
          </Link>
        </div>
      </div>
    </main>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Welcome') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
