import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { areaFeatureOf } from '~/models/plans/areas';
import { SETTINGS_MENU } from '~/models/shell/navigation';
import { getConfig } from '~/utils/env.server';
import { can, canUseFeature, requireUser } from '~/utils/session.server';
import { NavAnchor } from '~/components/ui/anchor-link';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  // Only what differs per request travels (it is serialized into the page twice, as HTML and as hydration data):
  // which items are denied, and whether the billing items show. The menu itself is the static SETTINGS_MENU.
  const denied: Record<string, 'feature' | 'role'> = {};
  for (const g of SETTINGS_MENU)
    for (const item of g.items) {
      // The item's own flag, or its plan area's (ADR 157: the guard refuses the whole area).
      const area = areaFeatureOf(`/settings/${item.slug}`);
      if ((item.feature && !canUseFeature(ctx, item.feature)) || (area && !canUseFeature(ctx, area))) denied[item.slug] = 'feature';
      else if ((item.permission && !can(ctx, item.permission)) || (item.orgAdmin && !ctx.isOrgAdmin) || (item.owner && ctx.role.kind !== 'owner')) denied[item.slug] = 'role';
    }
  return { denied, billing: getConfig().billing };
}

export const handle = { breadcrumb: 'Settings' };

/** Settings: collapsible side-menu groups (as `<details>`), each item marked when the role or plan denies it. */
export default function SettingsLayout() {
  const { denied, billing } = useLoaderData<typeof loader>();
  return (
    <div className="settings">
      {/* The side menu is long: keyboard users pass it with this link (the shell's skip link lands on it). */}
      <a className="skip-link" href="#area-content">
        Skip the settings menu
      </a>
      <nav className="side-menu" aria-label="Settings">
        {SETTINGS_MENU.map((g) => (
          <details key={g.group} open>
            <summary>{g.group}</summary>
            {g.items.filter((item) => !item.billing || billing).map((item) => (
              <NavAnchor key={item.slug} to={`/settings/${item.slug}`}>
                <span>{item.label}</span>
                {denied[item.slug] ? <DeniedBadge kind={denied[item.slug]} /> : null}
              </NavAnchor>
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
