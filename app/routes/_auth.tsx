import { Link, Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Layout of the sign-up and sign-in pages: one centred card, no shell. */
export default function AuthLayout() {
  return (
    <main id="main" className="auth">
      <div className="card">
        <Link to="/" className="brand">
          Parley
        </Link>
        <Outlet />
      </div>
    </main>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
