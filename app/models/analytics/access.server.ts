import { data } from '@remix-run/node';
import { can, canUseFeature, deniedInPlace, requireFeature } from '../../utils/session.server';
import { findAnalyticsPage } from './pages';
import { parseRange } from './range.server';
import { safeZone } from './rollup.server';

/**
 * Guard of a report page and its CSV: the Analytics area in the plan, the page's reports permission (a 403 with the
 * locked state otherwise) and the page's own plan flag. Then the date range and filter of the query string.
 */
export async function requireReportPage(request: Request, slug: string | undefined) {
  const ctx = await requireFeature(request, 'analytics/enabled');
  const page = findAnalyticsPage(slug);
  if (!page) throw data({ message: 'There is no such report.' }, { status: 404 });
  // Refused in place, not by falling back: Analytics itself opens on its overview, so a fallback could come round here.
  if (!can(ctx, page.permission)) deniedInPlace('role');
  if (!canUseFeature(ctx, page.feature)) deniedInPlace('feature');
  const search = new URL(request.url).searchParams;
  const parsed = parseRange({ search, tz: accountZone(ctx), page });
  return { ctx, page, search, ...parsed };
}

/**
 * The zone an account's reports cut days, weeks and months in (ADR 090): the account's default time zone
 * (Settings → Account), UTC when it has none or the runtime does not know it. Analytics and the CSAT results use it.
 */
export function accountZone(ctx: { account: { settings?: { defaultTimezone?: string | null } | null } }) {
  return safeZone(ctx.account.settings?.defaultTimezone || 'UTC');
}
