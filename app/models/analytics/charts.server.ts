import { scaleBand, scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';

/**
 * Charts drawn on the server (ADR 091): d3-scale and d3-shape compute the geometry, the page renders it as inline SVG;
 * no charting code reaches the browser. Each point and bar carries its value in a <title> (the hover text), and
 * every chart is followed by its table.
 */
export type ChartModel =
  | {
      kind: 'line';
      width: number;
      height: number;
      series: { label: string; d: string; points: { x: number; y: number; title: string }[] }[];
      xTicks: { x: number; label: string }[];
      yTicks: { y: number; label: string }[];
      plot: { left: number; top: number; right: number; bottom: number };
    }
  | {
      kind: 'bar';
      width: number;
      height: number;
      bars: { x: number; y: number; w: number; h: number; label: string; title: string; labelX: number }[];
      yTicks: { y: number; label: string }[];
      plot: { left: number; top: number; right: number; bottom: number };
    }
  | { kind: 'heatmap'; width: number; height: number; cells: { x: number; y: number; size: number; level: number; title: string }[]; rows: { y: number; label: string }[]; cols: { x: number; label: string }[] };

const W = 720;
const H = 240;
const M = { left: 48, top: 12, right: 12, bottom: 28 };

export function lineChart(opts: { xLabels: string[]; series: { label: string; values: (number | null)[] }[]; format: (v: number) => string }): ChartModel {
  const max = Math.max(1, ...opts.series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const x = scaleLinear()
    .domain([0, Math.max(1, opts.xLabels.length - 1)])
    .range([M.left, W - M.right]);
  const y = scaleLinear().domain([0, max]).nice().range([H - M.bottom, M.top]);
  const path = line<{ i: number; v: number | null }>()
    .defined((p) => p.v !== null)
    .x((p) => x(p.i))
    .y((p) => y(p.v ?? 0));
  const every = Math.max(1, Math.ceil(opts.xLabels.length / 8));
  return {
    kind: 'line',
    width: W,
    height: H,
    plot: { left: M.left, top: M.top, right: W - M.right, bottom: H - M.bottom },
    series: opts.series.map((s) => ({
      label: s.label,
      d: path(s.values.map((v, i) => ({ i, v }))) ?? '',
      points: s.values.flatMap((v, i) => (v === null ? [] : [{ x: round(x(i)), y: round(y(v)), title: `${opts.xLabels[i]}: ${s.label} ${opts.format(v)}` }])),
    })),
    xTicks: opts.xLabels.flatMap((label, i) => (i % every === 0 ? [{ x: round(x(i)), label }] : [])),
    yTicks: y.ticks(4).map((t) => ({ y: round(y(t)), label: opts.format(t) })),
  };
}

export function barChart(opts: { items: { label: string; value: number }[]; format: (v: number) => string }): ChartModel {
  const max = Math.max(1, ...opts.items.map((i) => i.value));
  const x = scaleBand()
    .domain(opts.items.map((_, i) => String(i)))
    .range([M.left, W - M.right])
    .padding(0.2);
  const y = scaleLinear().domain([0, max]).nice().range([H - M.bottom, M.top]);
  return {
    kind: 'bar',
    width: W,
    height: H,
    plot: { left: M.left, top: M.top, right: W - M.right, bottom: H - M.bottom },
    bars: opts.items.map((item, i) => ({
      x: round(x(String(i)) ?? 0),
      y: round(y(item.value)),
      w: round(x.bandwidth()),
      h: round(H - M.bottom - y(item.value)),
      label: item.label.length > 14 ? `${item.label.slice(0, 13)}…` : item.label,
      labelX: round((x(String(i)) ?? 0) + x.bandwidth() / 2),
      title: `${item.label}: ${opts.format(item.value)}`,
    })),
    yTicks: y.ticks(4).map((t) => ({ y: round(y(t)), label: opts.format(t) })),
  };
}

/** Week days (rows, Monday first) by hours (columns); level 0–4 by share of the busiest cell. */
export function heatmap(opts: { counts: number[][]; dayLabels: string[] }): ChartModel {
  const size = 26;
  const left = 44;
  const top = 18;
  const max = Math.max(1, ...opts.counts.flat());
  const cells = opts.counts.flatMap((row, d) =>
    row.map((n, h) => ({
      x: left + h * (size + 2),
      y: top + d * (size + 2),
      size,
      level: n === 0 ? 0 : Math.min(4, Math.ceil((n / max) * 4)),
      title: `${opts.dayLabels[d]} ${String(h).padStart(2, '0')}:00: ${n}`,
    })),
  );
  return {
    kind: 'heatmap',
    width: left + 24 * (size + 2),
    height: top + 7 * (size + 2),
    cells,
    rows: opts.dayLabels.map((label, d) => ({ y: top + d * (size + 2) + size / 2 + 4, label })),
    cols: Array.from({ length: 24 }, (_, h) => h)
      .filter((h) => h % 3 === 0)
      .map((h) => ({ x: left + h * (size + 2) + size / 2, label: String(h).padStart(2, '0') })),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
