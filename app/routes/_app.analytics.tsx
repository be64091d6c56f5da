import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ANALYTICS_GROUPS, ANALYTICS_PAGES } from '~/models/analytics/pages';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, requireFeature } from '~/utils/session.server';
import analyticsStyles from '../styles/analytics.css?url';
import { NavAnchor } from '~/components/ui/anchor-link';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: analyticsStyles }];

/** The Analytics area (issue 21): the side menu of the specification's groups, each page with its locked state. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'analytics/enabled');
  return {
    groups: ANALYTICS_GROUPS.map((group) => ({
      group,
      pages: ANALYTICS_PAGES.filter((p) => p.group === group).map((p) => ({
        slug: p.slug,
        title: p.title,
        built: p.built,
        denied: !can(ctx, p.permission) ? ('role' as const) : !canUseFeature(ctx, p.feature) ? ('feature' as const) : null,
      })),
    })),
  };
}

export const handle = { breadcrumb: 'Analytics' };


export default function AnalyticsLayout() {
  const { groups } = useLoaderData<typeof loader>();
  return (
    <div className="settings">
      <a className="skip-link" href="#area-content">
        Skip the Analytics menu
      </a>
      <nav className="side-menu" aria-label="Analytics">
        {groups.map((g) => (
          <details open key={g.group}>
            <summary>{g.group}</summary>
            {g.pages.map((p) => (
              <NavAnchor key={p.slug} to={`/analytics/${p.slug}`} data-testid={`menu-${p.slug}`}>
                <span>
                  {p.title}
                  {p.built ? null : <span className="visually-hidden"> (not built yet)</span>}
                </span>
                {p.denied ? <DeniedBadge kind={p.denied} /> : null}
              </NavAnchor>
            ))}
          </details>
        ))}
      </nav>
      <div className="page analytics" id="area-content" tabIndex={-1}>
        <Outlet />
      </div>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Analytics') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
