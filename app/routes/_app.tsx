import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData, useLocation, useRevalidator } from '@remix-run/react';
import { useCallback } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { SearchBox } from '~/components/shell/search-box';
import { Breadcrumb, TopBar, TrialBanner } from '~/components/shell/shell';
import { useLiveConnection, useLiveEvent } from '~/components/shell/use-live';
import { countUnreadNotifications } from '~/models/notifications/notifications.server';
import { trialBanner } from '~/models/shell/trial';
import { publicUser, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return {
    user: publicUser(ctx),
    account: { name: ctx.account.name, domain: ctx.account.domain },
    trial: trialBanner(ctx.account),
    unread: await countUnreadNotifications({ accountId: ctx.account.id, userId: ctx.user.id }),
  };
}

export const handle = { breadcrumb: () => null };

/** The shell: top navigation, breadcrumb, search, trial banner; the live socket while it is shown. */
export default function AppShell() {
  const { user, trial, unread } = useLoaderData<typeof loader>();
  const live = useLiveConnection();
  const revalidator = useRevalidator();
  const onLive = useCallback(
    (m: { type: string }) => {
      if (m.type === 'notification') revalidator.revalidate();
    },
    [revalidator],
  );
  useLiveEvent(onLive);
  const location = useLocation();
  const q = location.pathname === '/search' ? (new URLSearchParams(location.search).get('q') ?? '') : '';
  return (
    <>
      <TrialBanner banner={trial} />
      <TopBar user={user} unread={unread} live={live} />
      <div className="subbar">
        <Breadcrumb />
        <div className="spacer" />
        <SearchBox key={q} initial={q} />
      </div>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
