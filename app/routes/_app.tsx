import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData, useLocation, useNavigate, useRevalidator, type ShouldRevalidateFunction } from '@remix-run/react';
import { useCallback } from 'react';
import { FailingChannelsBanner } from '~/components/channel-health';
import { showTabNotification } from '~/components/notifications/tab-notifications';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { IdleSignOut } from '~/components/shell/idle-sign-out';
import { SearchBox } from '~/components/shell/search-box';
import { Breadcrumb, TopBar, TrialBanner } from '~/components/shell/shell';
import { useAnchorNavigation } from '~/components/ui/anchor-link';
import { isLiveRevalidation, useLiveConnection, useLiveEvent } from '~/components/shell/use-live';
import { listFailingChannels } from '~/models/channels/health.server';
import { trialBanner } from '~/models/shell/trial';
import { readNotificationPreferences } from '~/models/users/constants';
import { getConfig } from '~/utils/env.server';
import { publicUser, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return {
    user: publicUser(ctx),
    account: { name: ctx.account.name, domain: ctx.account.domain },
    trial: trialBanner(ctx.account, { billing: getConfig().billing }),
    // Both were read with the session, in the guard's one statement (ADR 110).
    unread: ctx.unread,
    failingChannels: await listFailingChannels({ accountId: ctx.account.id }),
    // The account's idle sign-out (ADR 148); 0 is never.
    idleMs: (ctx.account.settings.idleSignOutMinutes ?? 0) * 60_000,
    // An open tab shows notifications on the desktop only for agents who asked for them (ADR 155).
    desktopNotifications: readNotificationPreferences(ctx.user.notificationPreferences).browserPush,
  };
}

export const handle = { breadcrumb: () => null };

/** A live update reloads only the screen's loader, not the shell's (ADR 045). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ defaultShouldRevalidate }) => (isLiveRevalidation() ? false : defaultShouldRevalidate);

/** The shell: top navigation, breadcrumb, search, trial banner; the live socket while it is shown. */
export default function AppShell() {
  const { user, trial, unread, failingChannels, idleMs, desktopNotifications } = useLoaderData<typeof loader>();
  const live = useLiveConnection();
  // Every AnchorLink of the app's pages navigates client-side through this one listener (ADR 137).
  useAnchorNavigation();
  const revalidator = useRevalidator();
  const navigate = useNavigate();
  const onLive = useCallback(
    (m: { type: string; [k: string]: unknown }) => {
      if (m.type !== 'notification') return;
      revalidator.revalidate();
      if (desktopNotifications) void showTabNotification(m, navigate).catch((err) => console.warn('The desktop notification was not shown:', err));
    },
    [revalidator, navigate, desktopNotifications],
  );
  useLiveEvent(onLive);
  const location = useLocation();
  const q = location.pathname === '/search' ? (new URLSearchParams(location.search).get('q') ?? '') : '';
  return (
    <>
      <TrialBanner banner={trial} />
      <FailingChannelsBanner channels={failingChannels} />
      <TopBar user={user} unread={unread} live={live} />
      <div className="subbar">
        <Breadcrumb />
        <div className="spacer" />
        <SearchBox key={q} initial={q} />
      </div>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <IdleSignOut idleMs={idleMs} />
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
