import { Outlet } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';

/** Groups the users list and a user's page, so that the breadcrumb reads Settings / Users / {name}. Guards live in the children. */
export const handle = { breadcrumb: 'Users' };

export default function UsersLayout() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
