import type { LoaderFunctionArgs } from '@remix-run/node';
import { stringify } from 'csv-stringify/sync';
import { requireReportPage } from '~/models/analytics/access.server';
import { DAILY_COLUMNS, PAGE_REPORTS, workflowsSql } from '~/models/analytics/page-reports.server';
import { dailySql } from '~/models/analytics/reports.server';
import { cutOf } from '~/models/analytics/rollup.server';
import { csvSource } from '~/models/analytics/csv-sources.server';
import { csvSafeCell, csvStream } from '~/utils/csv-stream.server';

/**
 * A report's CSV (ADR 091): the page's by-day table (the workflows page: its per-rule table) streamed from the same
 * query the page shows; the staffing prediction, 168 computed rows, written whole.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, page, range, search } = await requireReportPage(request, params.page);
  if (!page.built) throw new Response('This report is not built yet.', { status: 404 });
  const headers = {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${page.slug}-${range.current.fromDay}-${range.current.toDay}.csv"`,
  };
  const accountId = ctx.account.id;
  if (page.slug === 'workflows') {
    const body = csvStream<Record<string, unknown>>({
      query: workflowsSql({ accountId, range }),
      header: ['Workflow or rule', 'Kind', 'Runs', 'Matched', 'Actions applied', 'Actions failed', 'Actions skipped'],
      toRecord: (r) => [csvSafeCell(String(r.name)), r.kind, r.runs, r.matched, r.applied, r.failed, r.skipped],
    });
    return new Response(body, { headers });
  }
  const source = await csvSource({ accountId, slug: page.slug, range, search });
  if (source) return new Response(csvStream<Record<string, unknown>>(source), { headers });
  const cols = DAILY_COLUMNS[page.slug];
  if (!cols) {
    const report = await PAGE_REPORTS[page.slug]({ accountId, range, search });
    const table = report.charts[0]?.table ?? report.tables[0];
    const text = stringify([table.columns.map((c) => c.label), ...table.rows.map((r) => r.map((v) => (typeof v === 'string' ? csvSafeCell(v) : v)))]);
    return new Response(text, { headers });
  }
  const body = csvStream<Record<string, unknown>>({
    query: dailySql({ accountId, range, cols, cut: await cutOf(accountId, range) }),
    header: ['Day', ...cols.map((c) => c.label)],
    toRecord: (r) => [r.day, ...cols.map((_, i) => (r[`c${i}`] === null ? '' : Number(r[`c${i}`])))],
  });
  return new Response(body, { headers });
}
