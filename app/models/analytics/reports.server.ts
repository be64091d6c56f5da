import { sql, type SQL } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { barChart, heatmap, lineChart, type ChartModel } from './charts.server';
import type { Range, Span } from './range.server';
import { cutOf, spanRows } from './rollup.server';

/**
 * The report pages' figures (ADR 091, definitions in docs/analytics.md), read from the projections of ADR 090: every
 * query is account-scoped in its WHERE and reads hour buckets, cut into the account's local days here.
 */
export type Fmt = 'count' | 'duration' | 'percent' | 'rating' | 'text' | 'amount';
export type Headline = { label: string; value: number | null; previous: number | null; format: Fmt };
export type Table = { caption: string; columns: { label: string; format: Fmt }[]; rows: (string | number | null)[][] };
export type Chart = { title: string; model: ChartModel; table: Table };
export type Report = { headlines: Headline[]; charts: Chart[]; tables: Table[]; notes: string[] };

/** A column of figures from the counters: a count, an average of the totals, or a share of another metric's count. */
export type Col = { label: string; format: Fmt; metric: string; agg: 'n' | 'avg' | 'ratio' | 'per' | 'net' | 'sum'; of?: string; minus?: string; scale?: number };

const M = {
  conversations: { label: 'Conversations', format: 'count', metric: 'conversations', agg: 'n' },
  resolved: { label: 'Resolved', format: 'count', metric: 'resolved', agg: 'n' },
  replies: { label: 'Replies', format: 'count', metric: 'replies', agg: 'n' },
  incoming: { label: 'Customer messages', format: 'count', metric: 'incoming_messages', agg: 'n' },
  firstResponse: { label: 'Average first response time', format: 'duration', metric: 'first_response', agg: 'avg' },
  resolution: { label: 'Average resolution time', format: 'duration', metric: 'resolved', agg: 'avg' },
  // The same durations counted in business hours (ADR 120): the inbox's business hours, as the SLA counts them.
  firstResponseBh: { label: 'Average first response time (business hours)', format: 'duration', metric: 'first_response_bh', agg: 'avg' },
  resolutionBh: { label: 'Average resolution time (business hours)', format: 'duration', metric: 'resolved_bh', agg: 'avg' },
  csat: { label: 'CSAT', format: 'percent', metric: 'csat_satisfied', agg: 'ratio', of: 'csat' },
  ratings: { label: 'Ratings', format: 'count', metric: 'csat', agg: 'n' },
  avgRating: { label: 'Average rating', format: 'rating', metric: 'csat', agg: 'avg' },
  breaches: { label: 'SLA breaches', format: 'count', metric: 'sla_breached', agg: 'n' },
} satisfies Record<string, Col>;
export const METRIC_COLUMNS = M;

function colExpr(col: Col): SQL {
  const n = (metric: string) => sql`sum(c.n) filter (where c.metric = ${metric})`;
  if (col.agg === 'n') return sql`coalesce(${n(col.metric)}, 0)::float8`;
  if (col.agg === 'sum') return sql`(coalesce(sum(c.total) filter (where c.metric = ${col.metric}), 0) * ${col.scale ?? 1})::float8`;
  if (col.agg === 'avg') return sql`(sum(c.total) filter (where c.metric = ${col.metric}) / nullif(${n(col.metric)}, 0))::float8`;
  // per: a count per another count (pages per visit); net: (metric − minus) per 100 of `of` (NPS, ADR 102).
  if (col.agg === 'per') return sql`(1.0 * ${n(col.metric)} / nullif(${n(col.of!)}, 0))::float8`;
  if (col.agg === 'net') return sql`(100.0 * (coalesce(${n(col.metric)}, 0) - coalesce(${n(col.minus!)}, 0)) / nullif(${n(col.of!)}, 0))::float8`;
  // A share is 0 (not empty) when its denominator counted something and its numerator nothing.
  return sql`(100.0 * coalesce(${n(col.metric)}, 0) / nullif(${n(col.of!)}, 0))::float8`;
}

const metricsOf = (cols: Col[]) => [...new Set(cols.flatMap((c) => [c.metric, ...(c.of ? [c.of] : []), ...(c.minus ? [c.minus] : [])]))];

/**
 * Under a tag filter (ADR 102) a new conversation counts when it is tagged: it has no tags when it is created, so
 * "Conversations" reads the `tagged` counter; every other figure counts the events of conversations that had the tag.
 */
export function forSlice(cols: Col[], dim: string): Col[] {
  if (dim !== 'tag') return cols;
  const swap = (m: string | undefined) => (m === 'conversations' ? 'tagged' : m);
  return cols.map((c) => ({ ...c, metric: swap(c.metric)!, of: swap(c.of) }));
}

function slice(range: Range) {
  return range.filter ?? { dim: 'all', key: '' };
}

const metricIn = (cols: Col[]) =>
  sql`metric in (${sql.join(
    metricsOf(cols).map((m) => sql`${m}`),
    sql`, `,
  )})`;

/**
 * The counters a column list needs, one row per local day (every day of the span, empty days as zero): day rows up to
 * the roll-up's cut (ADR 125), hour rows after it. `cut` from `cutOf` (undefined: hour rows only, the same figures).
 */
export function dailySql(opts: { accountId: number; range: Range; span?: Span; cols: Col[]; dim?: { dim: string; key: string }; cut?: string | null }): SQL {
  const s = opts.span ?? opts.range.current;
  const { dim, key } = opts.dim ?? slice(opts.range);
  opts = { ...opts, cols: forSlice(opts.cols, dim) };
  const rows = spanRows({ accountId: opts.accountId, span: s, tz: opts.range.tz, cut: opts.cut ?? null, where: sql`dim = ${dim} and key = ${key} and ${metricIn(opts.cols)}` });
  return sql`
    select to_char(d.day, 'YYYY-MM-DD') as day, ${sql.join(
      opts.cols.map((c, i) => sql`${colExpr(c)} as ${sql.raw(`c${i}`)}`),
      sql`, `,
    )}
    from generate_series(${s.fromDay}::date, ${s.toDay}::date, interval '1 day') d(day)
    left join ${rows} c on c.day = d.day
    group by d.day order by d.day`;
}

export async function totals(opts: { accountId: number; span: Span; tz: string; cut: string | null; cols: Col[]; dim: { dim: string; key: string } }) {
  opts = { ...opts, cols: forSlice(opts.cols, opts.dim.dim) };
  const rows = await getDb().execute<Record<string, number | null>>(sql`
    select ${sql.join(
      opts.cols.map((c, i) => sql`${colExpr(c)} as ${sql.raw(`c${i}`)}`),
      sql`, `,
    )}
    from ${spanRows({ accountId: opts.accountId, span: opts.span, tz: opts.tz, cut: opts.cut, where: sql`dim = ${opts.dim.dim} and key = ${opts.dim.key} and ${metricIn(opts.cols)}` })} c`);
  return opts.cols.map((_, i) => num(rows[0]?.[`c${i}`]));
}

/** Headline figures of the range and of the previous period of the same length. */
export async function headlines(opts: { accountId: number; range: Range; cols: Col[] }): Promise<Headline[]> {
  const dim = slice(opts.range);
  const cut = await cutOf(opts.accountId, opts.range);
  const [now, before] = await Promise.all([
    totals({ accountId: opts.accountId, span: opts.range.current, tz: opts.range.tz, cut, cols: opts.cols, dim }),
    totals({ accountId: opts.accountId, span: opts.range.previous, tz: opts.range.tz, cut, cols: opts.cols, dim }),
  ]);
  return opts.cols.map((c, i) => ({ label: c.label, format: c.format, value: zeroIsNull(c, now[i]), previous: zeroIsNull(c, before[i]) }));
}

const zeroIsNull = (c: Col, v: number | null) => (c.agg === 'n' || c.agg === 'sum' ? (v ?? 0) : v);
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function dailyTable(opts: { accountId: number; range: Range; cols: Col[]; caption: string }): Promise<Table> {
  const rows = await getDb().execute<Record<string, unknown>>(dailySql({ ...opts, cut: await cutOf(opts.accountId, opts.range) }));
  return {
    caption: opts.caption,
    columns: [{ label: 'Day', format: 'text' }, ...opts.cols.map((c) => ({ label: c.label, format: c.format }))],
    rows: rows.map((r) => [String(r.day), ...opts.cols.map((_, i) => num(r[`c${i}`]))]),
  };
}

/** A line chart of some columns of a daily table, and the table itself. */
export function dailyChart(opts: { title: string; table: Table; columns: number[]; format: (v: number) => string }): Chart {
  return {
    title: opts.title,
    table: opts.table,
    model: lineChart({
      xLabels: opts.table.rows.map((r) => String(r[0]).slice(5)),
      series: opts.columns.map((i) => ({ label: opts.table.columns[i].label, values: opts.table.rows.map((r) => (r[i] === null ? null : Number(r[i]))) })),
      format: opts.format,
    }),
  };
}

/** The columns per value of one dimension (inbox, channel, team, agent, policy, priority, target) over the range. */
export async function breakdown(opts: { accountId: number; range: Range; dim: string; cols: Col[]; caption: string; names: Map<string, string>; dimLabel: string; orderBy?: number; underTag?: boolean }): Promise<Table> {
  const s = opts.range.current;
  // Under a tag filter (ADR 120), the inbox, channel and agent breakdowns read their '<dim>_tag' rows, keyed
  // '<tag>:<value>': a key range on the primary key.
  const tag = opts.underTag && opts.range.filter?.dim === 'tag' && ['inbox', 'channel', 'agent'].includes(opts.dim) ? opts.range.filter.key : null;
  const cols = tag ? forSlice(opts.cols, 'tag') : opts.cols;
  const where = sql`dim = ${tag ? `${opts.dim}_tag` : opts.dim} ${tag ? sql`and key >= ${`${tag}:`} and key < ${`${tag};`}` : sql``} and ${metricIn(cols)}`;
  const rows = await getDb().execute<Record<string, unknown>>(sql`
    select ${tag ? sql`substr(c.key, ${tag.length + 2})` : sql`c.key`} as key, ${sql.join(
      cols.map((col, i) => sql`${colExpr(col)} as ${sql.raw(`c${i}`)}`),
      sql`, `,
    )}
    from ${spanRows({ accountId: opts.accountId, span: s, tz: opts.range.tz, cut: await cutOf(opts.accountId, opts.range), where })} c
    group by 1 order by ${sql.raw(String(2 + (opts.orderBy ?? 0)))} desc nulls last, 1 limit 200`);
  return {
    caption: opts.caption,
    columns: [{ label: opts.dimLabel, format: 'text' }, ...opts.cols.map((c) => ({ label: c.label, format: c.format }))],
    rows: rows.map((r) => [opts.names.get(String(r.key)) ?? labelOfKey(opts.dim, String(r.key)), ...opts.cols.map((_, i) => num(r[`c${i}`]))]),
  };
}

export function breakdownChart(opts: { title: string; table: Table; column: number; format: (v: number) => string }): Chart {
  return {
    title: opts.title,
    table: opts.table,
    model: barChart({ items: opts.table.rows.slice(0, 12).map((r) => ({ label: String(r[0]), value: Number(r[opts.column] ?? 0) })), format: opts.format }),
  };
}

const CHANNEL_LABELS: Record<string, string> = {
  email: 'Email',
  web: 'Chat',
  web_widget: 'Chat',
  sms: 'SMS',
  contact_form: 'Contact form',
  internal: 'Internal',
  facebook: 'Facebook',
  twitter: 'Twitter',
  google_business: 'Google Business',
  api: 'API',
};

/** Dimensions whose keys are shown as they are (ADR 102): a country, a page path, a referrer's host, a search. */
const RAW_KEY_DIMS = new Set(['country', 'page', 'referrer', 'query']);
/** Contact sources, review sources and survey kinds as the pages name them. */
const SOURCE_LABELS: Record<string, string> = {
  unknown: 'Unknown',
  crm: 'Added in the CRM',
  import: 'Import',
  form: 'Form',
  parley: 'Parley review page',
  google: 'Google',
  trustpilot: 'Trustpilot',
  nps: 'NPS',
  csat: 'CSAT',
  ces: 'CES',
};

function labelOfKey(dim: string, key: string) {
  if (dim === 'channel') return CHANNEL_LABELS[key] ?? key;
  if (dim === 'target') return key === 'response' ? 'First response' : key === 'resolve' ? 'Resolution' : key;
  if (dim === 'priority') return key.charAt(0).toUpperCase() + key.slice(1);
  if (RAW_KEY_DIMS.has(dim)) return key === 'unknown' ? 'Unknown' : key;
  if (dim === 'source' || dim === 'kind') return SOURCE_LABELS[key] ?? CHANNEL_LABELS[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');
  return `#${key} (deleted)`;
}

/** Names of a dimension's keys: inboxes, teams, agents, tags and SLA policies of the account. */
export async function dimensionNames(opts: { accountId: number; dim: string }): Promise<Map<string, string>> {
  const q: Record<string, SQL> = {
    inbox: sql`select id::text as key, name from inboxes where account_id = ${opts.accountId}`,
    team: sql`select id::text as key, name from teams where account_id = ${opts.accountId}`,
    agent: sql`select id::text as key, trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) as name from users where account_id = ${opts.accountId}`,
    tag: sql`select id::text as key, name from tags where account_id = ${opts.accountId}`,
    policy: sql`select id::text as key, name from sla_policies where account_id = ${opts.accountId}`,
    // The customers, surveys, forms and help-centre pages (ADR 102).
    host: sql`select id::text as key, trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) as name from users where account_id = ${opts.accountId}`,
    meeting: sql`select id::text as key, name from meeting_types where account_id = ${opts.accountId}`,
    survey: sql`select id::text as key, name from surveys where account_id = ${opts.accountId}`,
    form: sql`select id::text as key, name from forms where account_id = ${opts.accountId}`,
    article: sql`select id::text as key, coalesce(published_title, title) as name from kb_articles where account_id = ${opts.accountId}`,
  };
  if (opts.dim === 'channel') return new Map(Object.entries(CHANNEL_LABELS));
  if (!q[opts.dim]) return new Map();
  const rows = await getDb().execute<{ key: string; name: string }>(q[opts.dim]);
  return new Map(rows.map((r) => [r.key, r.name || `#${r.key}`]));
}

/** The choices of the filter menu: every inbox, channel in use, team and agent of the account. */
export async function filterChoices(opts: { accountId: number; dims: readonly string[] }) {
  const groups: { dim: string; label: string; options: { value: string; label: string }[] }[] = [];
  const labels: Record<string, string> = { inbox: 'Inbox', channel: 'Channel', team: 'Team', agent: 'Agent', tag: 'Tag' };
  for (const dim of opts.dims) {
    let names = await dimensionNames({ accountId: opts.accountId, dim });
    if (dim === 'channel') {
      const used = await getDb().execute<{ t: string }>(sql`select distinct channel_type as t from inboxes where account_id = ${opts.accountId}`);
      names = new Map(used.map((u) => [u.t, CHANNEL_LABELS[u.t] ?? u.t]));
    }
    groups.push({ dim, label: labels[dim], options: [...names].map(([key, name]) => ({ value: `${dim}:${key}`, label: name })).sort((a, b) => a.label.localeCompare(b.label)) });
  }
  return groups;
}

/** Conversations by local week day (Monday first) and hour: the busiest hours. */
export async function busiestHours(opts: { accountId: number; range: Range }): Promise<Chart> {
  const s = opts.range.current;
  const { dim, key } = slice(opts.range);
  const rows = await getDb().execute<{ d: number; h: number; n: number }>(sql`
    select extract(isodow from (c.hour at time zone ${opts.range.tz}))::int - 1 as d, extract(hour from (c.hour at time zone ${opts.range.tz}))::int as h, sum(c.n)::int as n
    from analytics_counters c
    where c.account_id = ${opts.accountId} and c.metric = ${dim === 'tag' ? 'tagged' : 'conversations'} and c.dim = ${dim} and c.key = ${key}
      and c.hour >= ${s.start.toISOString()}::timestamptz and c.hour < ${s.end.toISOString()}::timestamptz
    group by 1, 2`);
  const counts = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
  for (const r of rows) counts[r.d][r.h] += Number(r.n);
  const dayLabels = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  return {
    title: 'Busiest hours (new conversations)',
    model: heatmap({ counts, dayLabels }),
    table: {
      caption: 'New conversations by week day and hour',
      columns: [{ label: 'Day', format: 'text' }, ...Array.from({ length: 24 }, (_, h) => ({ label: String(h).padStart(2, '0'), format: 'count' as const }))],
      rows: counts.map((row, d) => [dayLabels[d], ...row]),
    },
  };
}

/** Bin b of the histograms holds durations s with floor(4·log2(1+s)) = b; its estimate is the bin's midpoint. */
export function binBounds(bin: number) {
  return { low: 2 ** (bin / 4) - 1, high: 2 ** ((bin + 1) / 4) - 1 };
}
export function binEstimate(bin: number) {
  const { low, high } = binBounds(bin);
  return Math.max(0, (low + high) / 2);
}

/** Percentiles (0–1) of a duration metric from its histogram: the nearest-rank rule applied to the bins. */
export async function percentiles(opts: { accountId: number; range: Range; span?: Span; metric: string; ps: number[] }) {
  const s = opts.span ?? opts.range.current;
  const { dim, key } = slice(opts.range);
  const where = sql`metric = ${opts.metric} and dim = ${dim} and key = ${key}`;
  const rows = await getDb().execute<{ bin: number; n: number }>(sql`
    select bin, sum(n)::float8 as n
    from ${spanRows({ accountId: opts.accountId, span: s, tz: opts.range.tz, cut: await cutOf(opts.accountId, opts.range), where, histogram: true })} c
    group by bin order by bin`);
  const total = rows.reduce((a, r) => a + Number(r.n), 0);
  const histogram = rows.map((r) => ({ bin: Number(r.bin), n: Number(r.n) }));
  const values = opts.ps.map((p) => {
    if (total === 0) return null;
    const rank = Math.max(1, Math.ceil(p * total));
    let seen = 0;
    for (const r of histogram) {
      seen += r.n;
      if (seen >= rank) return binEstimate(r.bin);
    }
    return null;
  });
  return { values, total, histogram };
}
