import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { ChartFigure, Headlines, ReportTable } from '~/components/analytics/report';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { requireReportPage } from '~/models/analytics/access.server';
import { PAGE_REPORTS, staffingParams } from '~/models/analytics/page-reports.server';
import { RANGE_PRESETS } from '~/models/analytics/pages';
import { filterChoices } from '~/models/analytics/reports.server';
import { pageTitle } from '~/utils/format';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { ctx, page, search, range, errors, values } = await requireReportPage(request, params.page);
  const build = page.built ? PAGE_REPORTS[page.slug] : undefined;
  const [report, filters] = await Promise.all([
    build ? build({ accountId: ctx.account.id, range, search }) : null,
    page.filters.length ? filterChoices({ accountId: ctx.account.id, dims: page.filters }) : [],
  ]);
  const payload = {
    page: { slug: page.slug, title: page.title, group: page.group, about: page.about, built: page.built },
    range: { preset: range.preset, from: range.current.fromDay, to: range.current.toDay, prevFrom: range.previous.fromDay, prevTo: range.previous.toDay, tz: range.tz },
    values,
    errors,
    filters,
    staffing: page.slug === 'staffing-prediction' ? staffingParams(search) : null,
    report,
    query: search.toString(),
  };
  return data(payload, { status: errors.length ? 400 : 200 });
}

export default function ReportPage() {
  const { page, range, values, errors, filters, staffing, report, query } = useLoaderData<typeof loader>();
  const err = (field: string) => errors.find((e) => e.field === field)?.message;
  return (
    <section aria-labelledby="report-title">
      <header className="page-header">
        <h1 id="report-title">{page.title}</h1>
        <p className="muted">{page.about}</p>
      </header>
      {!page.built ? (
        <div className="empty-state" data-testid="not-built">
          <h2>Not built yet</h2>
          <p>This report is not built yet. The other reports in the menu are ready.</p>
        </div>
      ) : (
        <>
          <Form method="get" className="report-filters" aria-label="Date range and filter">
            <div className="field">
              <label htmlFor="report-range">Date range</label>
              <select id="report-range" name="range" defaultValue={range.preset}>
                {RANGE_PRESETS.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="report-from">From</label>
              <input type="date" id="report-from" name="from" defaultValue={values.from || range.from} aria-invalid={err('from') ? true : undefined} aria-describedby={err('from') ? 'from-error' : undefined} />
            </div>
            <div className="field">
              <label htmlFor="report-to">To</label>
              <input type="date" id="report-to" name="to" defaultValue={values.to || range.to} aria-invalid={err('to') ? true : undefined} aria-describedby={err('to') ? 'to-error' : undefined} />
            </div>
            {filters.length ? (
              <div className="field">
                <label htmlFor="report-filter">Filter</label>
                <select id="report-filter" name="filter" defaultValue={values.filter} aria-invalid={err('filter') ? true : undefined}>
                  <option value="">Everything</option>
                  {filters.map((g) => (
                    <optgroup key={g.dim} label={g.label}>
                      {g.options.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.label}
                        </option>
                      ))}
                    </optgroup>
                  ))}
                </select>
              </div>
            ) : null}
            {staffing ? (
              <>
                <div className="field">
                  <label htmlFor="report-share">Answered share (%)</label>
                  <input type="number" id="report-share" name="share" min={50} max={99} defaultValue={staffing.share} />
                </div>
                <div className="field">
                  <label htmlFor="report-target">Within (seconds)</label>
                  <input type="number" id="report-target" name="target" min={5} max={86400} defaultValue={staffing.target} />
                </div>
                <div className="field">
                  <label htmlFor="report-weeks">Past weeks</label>
                  <input type="number" id="report-weeks" name="weeks" min={1} max={12} defaultValue={staffing.weeks} />
                </div>
                <div className="field">
                  <label htmlFor="report-handling">Handling time without tracked time (minutes)</label>
                  <input type="number" id="report-handling" name="handling" min={1} max={240} defaultValue={staffing.handlingMinutes} />
                </div>
              </>
            ) : null}
            <button type="submit" className="btn btn-primary">
              Apply
            </button>
            <a className="btn" href={`/analytics/${page.slug}/csv${query ? `?${query}` : ''}`} download>
              Export CSV
            </a>
          </Form>
          {errors.length ? (
            <div className="form-errors" role="alert">
              {errors.map((e) => (
                <p key={e.field} id={`${e.field}-error`} className="field-error">
                  {e.message}
                </p>
              ))}
            </div>
          ) : null}
          <p className="muted" data-testid="range-summary">
            {range.from} to {range.to} ({range.tz}), compared with {range.prevFrom} to {range.prevTo}.
          </p>
          {report ? (
            <>
              <Headlines items={report.headlines} />
              {report.charts.map((c, i) => (
                <ChartFigure key={i} chart={c} id={`chart-${i}`} />
              ))}
              {report.tables.map((t, i) => (
                <ReportTable key={i} table={t} />
              ))}
              {report.notes.map((n, i) => (
                <p key={i} className="muted">
                  {n}
                </p>
              ))}
            </>
          ) : null}
        </>
      )}
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data && 'page' in data ? data.page.title : undefined, 'Analytics') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
