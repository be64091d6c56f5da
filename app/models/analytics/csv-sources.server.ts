import type { SQL } from 'drizzle-orm';
import { CAMPAIGN_STEPS, campaignDailySql, type CampaignKind } from './campaign-reports.server';
import { GOALS_DAILY, mainCurrency, salesColumns } from './conversion-reports.server';
import type { Range } from './range.server';
import { dailySql } from './reports.server';
import { cutOf } from './rollup.server';

/** The campaign pages and their kind of campaign (push is written by the push campaigns on the same tables). */
export const CAMPAIGN_PAGE_KIND: Record<string, CampaignKind> = { chat: 'message', email: 'email', sms: 'sms', 'push-notification': 'push' };

/**
 * The streamed CSV of the campaign and Ecommerce pages (ADR 104): their by-day table, from the query the page's
 * table comes from. Null for the other pages.
 */
export async function csvSource(o: {
  accountId: number;
  slug: string;
  range: Range;
  search: URLSearchParams;
}): Promise<{ query: SQL; header: string[]; toRecord: (r: Record<string, unknown>) => unknown[] } | null> {
  const kind = CAMPAIGN_PAGE_KIND[o.slug];
  if (kind) {
    const steps = CAMPAIGN_STEPS[kind];
    return {
      query: campaignDailySql({ ...o, kind }),
      header: ['Day', ...steps.map((s) => s.label)],
      toRecord: (r) => [r.day, ...steps.map((s) => Number(r[s.key] ?? 0))],
    };
  }
  const cols = o.slug === 'goals' ? GOALS_DAILY : o.slug === 'sales-tracking' ? salesColumns(await mainCurrency(o)) : null;
  if (!cols) return null;
  return {
    query: dailySql({ ...o, cols, cut: await cutOf(o.accountId, o.range) }),
    header: ['Day', ...cols.map((c) => c.label)],
    toRecord: (r) => [r.day, ...cols.map((_, i) => (r[`c${i}`] === null ? '' : Number(r[`c${i}`])))],
  };
}
