import type { ShouldRevalidateFunction } from '@remix-run/react';
import { isLiveRevalidation } from '~/components/shell/use-live';
import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { Outlet } from '@remix-run/react';
import inboxStyles from '../components/inbox/inbox.css?url';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

/** The inbox area: the list, a conversation and a new ticket, all reading as Inbox / ... in the breadcrumb. */
export const handle = { breadcrumb: 'Inbox' };

/** Its loader is only a guard, which the screen's own loader repeats: a live update does not run it (ADR 045). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ defaultShouldRevalidate }) => (isLiveRevalidation() ? false : defaultShouldRevalidate);

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: inboxStyles }];

export default function InboxSection() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
