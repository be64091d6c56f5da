import type { LoaderFunctionArgs } from '@remix-run/node';
import { NavLink, Outlet, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { SETTINGS_MENU } from '~/models/shell/navigation';
import { getConfig } from '~/utils/env.server';
import { can, canUseFeature, requireUser } from '~/utils/session.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const menu = SETTINGS_MENU.map((g) => ({
    group: g.group,
    items: g.items.filter((item) => !item.billing || getConfig().billing).map((item) => ({
      slug: item.slug,
      label: item.label,
      denied:
        item.feature && !canUseFeature(ctx, item.feature)
          ? ('feature' as const)
          : (item.permission && !can(ctx, item.permission)) || (item.orgAdmin && !ctx.isOrgAdmin)
            ? ('role' as const)
            : null,
    })),
  }));
  return { menu };
}

export const handle = { breadcrumb: 'Settings' };

/** Settings: collapsible side-menu groups (as `<details>`), each item marked when the role or plan denies it. */
export default function SettingsLayout() {
  const { menu } = useLoaderData<typeof loader>();
  return (
    <div className="settings">
      {/* The side menu is long: keyboard users pass it with this link (the shell's skip link lands on it). */}
      <a className="skip-link" href="#area-content">
        Skip the settings menu
      </a>
      <nav className="side-menu" aria-label="Settings">
        {menu.map((g) => (
          <details key={g.group} open>
            <summary>{g.group}</summary>
            {g.items.map((item) => (
              <NavLink key={item.slug} to={`/settings/${item.slug}`} className={({ isActive }) => (isActive ? 'active' : undefined)}>
                <span>{item.label}</span>
                {item.denied ? <DeniedBadge kind={item.denied} /> : null}
              </NavLink>
            ))}
          </details>
        ))}
      </nav>
      <div className="page" id="area-content" tabIndex={-1}>
        <Outlet />
      </div>
    </div>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
