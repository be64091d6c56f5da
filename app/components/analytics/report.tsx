import type { Chart, Fmt, Headline, Table } from '~/models/analytics/reports.server';
import { formatDuration } from '~/utils/format';

/** A figure as the pages show it (durations by the specification's rules, section 9). */
export function formatFigure(value: number | string | null, format: Fmt) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string' || format === 'text') return String(value);
  if (format === 'duration') return formatDuration(value);
  if (format === 'percent') return `${Math.round(value * 10) / 10}%`;
  if (format === 'rating') return (Math.round(value * 100) / 100).toString();
  if (format === 'amount') return value.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return Math.round(value).toLocaleString('en');
}

function change(h: Headline) {
  if (h.value === null || h.previous === null || h.previous === undefined) return null;
  if (h.previous === 0) return h.value === 0 ? 'no change' : 'new';
  const pct = ((h.value - h.previous) / h.previous) * 100;
  if (Math.abs(pct) < 0.05) return 'no change';
  return `${pct > 0 ? '▲' : '▼'} ${Math.abs(Math.round(pct * 10) / 10)}%`;
}

export function Headlines({ items }: { items: Headline[] }) {
  return (
    <dl className="headlines" data-testid="headlines">
      {items.map((h) => (
        <div key={h.label} className="headline">
          <dt>{h.label}</dt>
          <dd>
            <span className="headline-value" data-testid={`headline-${h.label}`}>
              {formatFigure(h.value, h.format)}
            </span>
            {change(h) ? (
              <span className="headline-change">
                {change(h)} <span className="visually-hidden">against the previous period ({formatFigure(h.previous, h.format)})</span>
              </span>
            ) : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function ReportTable({ table }: { table: Table }) {
  return (
    <div className="table-scroll">
      <table className="list-table report-table">
        <caption>{table.caption}</caption>
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c.label} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.length === 0 ? (
            <tr>
              <td colSpan={table.columns.length}>Nothing in this period.</td>
            </tr>
          ) : (
            table.rows.map((r, i) => (
              <tr key={i}>
                {r.map((v, j) =>
                  j === 0 ? (
                    <th key={j} scope="row">
                      {formatFigure(v, table.columns[j].format)}
                    </th>
                  ) : (
                    <td key={j}>{formatFigure(v, table.columns[j].format)}</td>
                  ),
                )}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

function YAxis({ ticks, plot }: { ticks: { y: number; label: string }[]; plot: { left: number; right: number } }) {
  return ticks.map((t) => (
    <g key={t.y}>
      <line x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} className="grid" />
      <text x={plot.left - 6} y={t.y + 4} textAnchor="end">
        {t.label}
      </text>
    </g>
  ));
}

/** A chart drawn on the server, then its table (the accessible and the no-JavaScript view of the same figures). */
export function ChartFigure({ chart, id }: { chart: Chart; id: string }) {
  const m = chart.model;
  return (
    <figure className="report-chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{chart.title}</figcaption>
      <svg viewBox={`0 0 ${m.width} ${m.height}`} role="img" aria-label={`${chart.title}: the table below gives its figures`} className={`chart chart-${m.kind}`}>
        {m.kind === 'line' ? (
          <>
            <YAxis ticks={m.yTicks} plot={m.plot} />
            {m.xTicks.map((t) => (
              <text key={t.x} x={t.x} y={m.height - 8} textAnchor="middle">
                {t.label}
              </text>
            ))}
            {m.series.map((s, i) => (
              <g key={s.label} className={`series series-${i}`}>
                <path d={s.d} fill="none" />
                {s.points.map((p, j) => (
                  <circle key={j} cx={p.x} cy={p.y} r={3}>
                    <title>{p.title}</title>
                  </circle>
                ))}
              </g>
            ))}
          </>
        ) : m.kind === 'bar' ? (
          <>
            <YAxis ticks={m.yTicks} plot={m.plot} />
            {m.bars.map((b, i) => (
              <g key={i} className="bar">
                <rect x={b.x} y={b.y} width={b.w} height={Math.max(0, b.h)}>
                  <title>{b.title}</title>
                </rect>
                <text x={b.labelX} y={m.height - 8} textAnchor="middle">
                  {b.label}
                </text>
              </g>
            ))}
          </>
        ) : (
          <>
            {m.rows.map((r) => (
              <text key={r.label} x={4} y={r.y}>
                {r.label}
              </text>
            ))}
            {m.cols.map((c) => (
              <text key={c.label} x={c.x} y={12} textAnchor="middle">
                {c.label}
              </text>
            ))}
            {m.cells.map((c, i) => (
              <rect key={i} x={c.x} y={c.y} width={c.size} height={c.size} rx={3} className={`level-${c.level}`}>
                <title>{c.title}</title>
              </rect>
            ))}
          </>
        )}
      </svg>
      {m.kind === 'line' && m.series.length > 1 ? (
        <ul className="chart-legend">
          {m.series.map((s, i) => (
            <li key={s.label} className={`series-${i}`}>
              {s.label}
            </li>
          ))}
        </ul>
      ) : null}
      <ReportTable table={chart.table} />
    </figure>
  );
}
