import { sql } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { currencyExponent } from '../conversions/constants';
import type { Range, Span } from './range.server';
import { cutOf, spanRows } from './rollup.server';
import { breakdown, breakdownChart, dailyChart, dailyTable, dimensionNames, headlines, type Col, type Headline, type Report, type Table } from './reports.server';

/**
 * The Ecommerce pages (ADR 104), read from the projections of `goal_reached` and `sale_recorded` (ADR 090):
 * conversions per goal, and sales with revenue per currency (metric `revenue:<code>`), attributed to the
 * conversation the event names and so to its inbox, channel, team and agent.
 */
type Opts = { accountId: number; range: Range; search: URLSearchParams };

const G = {
  reached: { label: 'Conversions', format: 'count', metric: 'goal_reached', agg: 'n' },
  attributed: { label: 'After a conversation', format: 'count', metric: 'goal_attributed', agg: 'n' },
  share: { label: 'Share after a conversation', format: 'percent', metric: 'goal_attributed', agg: 'ratio', of: 'goal_reached' },
} satisfies Record<string, Col>;

export const GOALS_DAILY: Col[] = [G.reached, G.attributed];

async function goalNames(accountId: number) {
  const rows = await getDb().execute<{ key: string; name: string }>(sql`select id::text as key, name from conversion_goals where account_id = ${accountId}`);
  return new Map(rows.map((r) => [r.key, r.name]));
}

export async function goalsReport(o: Opts): Promise<Report> {
  const table = await dailyTable({ ...o, cols: GOALS_DAILY, caption: 'By day' });
  const [byGoal, byAgent] = await Promise.all([
    breakdown({ ...o, dim: 'goal', cols: [G.reached, G.attributed, G.share], names: await goalNames(o.accountId), caption: 'By goal', dimLabel: 'Goal' }),
    breakdown({
      ...o,
      dim: 'agent',
      cols: [G.attributed],
      names: await dimensionNames({ accountId: o.accountId, dim: 'agent' }),
      caption: 'Conversions after a conversation, by agent',
      dimLabel: 'Agent',
    }),
  ]);
  return {
    headlines: await headlines({ ...o, cols: [G.reached, G.attributed, G.share] }),
    charts: [
      dailyChart({ title: 'Conversions by day', table, columns: [1, 2], format: (v) => String(Math.round(v)) }),
      breakdownChart({ title: 'Conversions by goal', table: byGoal, column: 1, format: (v) => String(Math.round(v)) }),
    ],
    tables: [byAgent],
    notes: [
      'A conversion is a contact reaching a goal for the first time; it follows a conversation when an agent replied to that contact within the goal’s attribution window before it. The breakdowns by goal and agent cover every conversion of the range.',
    ],
  };
}

/** The currencies with sales in the range, the one with the most sales first: the page's main currency. */
async function currencies(o: Opts) {
  const rows = await getDb().execute<{ metric: string; n: number }>(sql`
    select metric, sum(n)::float8 as n
    from ${spanRows({ accountId: o.accountId, span: bothPeriods(o.range), tz: o.range.tz, cut: await cutOf(o.accountId, o.range), where: sql`dim = 'all' and key = '' and metric like 'revenue:%'` })} c
    group by metric order by 2 desc, 1`);
  return rows.map((r) => r.metric.slice('revenue:'.length));
}

export function salesColumns(currency: string): Col[] {
  const scale = 1 / 10 ** currencyExponent(currency);
  return [
    { label: 'Sales', format: 'count', metric: 'sales', agg: 'n' },
    { label: 'Attributed sales', format: 'count', metric: 'sales_attributed', agg: 'n' },
    { label: `Revenue (${currency})`, format: 'amount', metric: `revenue:${currency}`, agg: 'sum', scale },
    { label: `Attributed revenue (${currency})`, format: 'amount', metric: `revenue_attributed:${currency}`, agg: 'sum', scale },
  ];
}

export async function mainCurrency(o: Opts) {
  return (await currencies(o))[0] ?? 'USD';
}

export async function salesReport(o: Opts): Promise<Report> {
  const all = await currencies(o);
  const main = all[0] ?? 'USD';
  const cols = salesColumns(main);
  const table = await dailyTable({ ...o, cols, caption: `By day (revenue in ${main})` });
  const heads = await headlines({ ...o, cols });
  const average: Headline = { label: `Average sale (${main})`, format: 'amount', value: null, previous: null };
  // Average sale in the main currency: its revenue over its own number of sales.
  const cut = await cutOf(o.accountId, o.range);
  const [counts] = await getDb().execute<{ now: number; before: number }>(sql`
    select coalesce(sum(n) filter (where day >= ${o.range.current.fromDay}::date), 0)::float8 as now,
      coalesce(sum(n) filter (where day < ${o.range.current.fromDay}::date), 0)::float8 as before
    from ${spanRows({ accountId: o.accountId, span: bothPeriods(o.range), tz: o.range.tz, cut, where: sql`metric = ${`revenue:${main}`} and dim = ${o.range.filter?.dim ?? 'all'} and key = ${o.range.filter?.key ?? ''}` })} c`);
  const revenue = heads[2];
  average.value = Number(counts?.now) > 0 ? Number(revenue.value) / Number(counts.now) : null;
  average.previous = Number(counts?.before) > 0 ? Number(revenue.previous) / Number(counts.before) : null;
  const byCurrency: Table = {
    caption: 'By currency',
    columns: [
      { label: 'Currency', format: 'text' },
      { label: 'Sales', format: 'count' },
      { label: 'Revenue', format: 'amount' },
      { label: 'Attributed revenue', format: 'amount' },
    ],
    rows: [],
  };
  for (const cur of all) {
    const [r] = await getDb().execute<{ n: number; total: number; attributed: number }>(sql`
      select coalesce(sum(n) filter (where metric = ${`revenue:${cur}`}), 0)::float8 as n,
        coalesce(sum(total) filter (where metric = ${`revenue:${cur}`}), 0)::float8 as total,
        coalesce(sum(total) filter (where metric = ${`revenue_attributed:${cur}`}), 0)::float8 as attributed
      from ${spanRows({
        accountId: o.accountId,
        span: o.range.current,
        tz: o.range.tz,
        cut,
        where: sql`dim = ${o.range.filter?.dim ?? 'all'} and key = ${o.range.filter?.key ?? ''} and metric in (${`revenue:${cur}`}, ${`revenue_attributed:${cur}`})`,
      })} c`);
    const e = 10 ** currencyExponent(cur);
    if (Number(r?.n) > 0) byCurrency.rows.push([cur, Number(r.n), Number(r.total) / e, Number(r.attributed) / e]);
  }
  const byAgent = await breakdown({
    ...o,
    dim: 'agent',
    cols: [cols[1], cols[3]],
    names: await dimensionNames({ accountId: o.accountId, dim: 'agent' }),
    caption: `Attributed sales by agent (revenue in ${main})`,
    dimLabel: 'Agent',
  });
  return {
    headlines: [...heads, average],
    charts: [
      dailyChart({ title: `Revenue by day (${main})`, table, columns: [3, 4], format: (v) => v.toLocaleString('en', { maximumFractionDigits: 2 }) }),
      breakdownChart({
        title: `Attributed revenue by agent (${main})`,
        table: byAgent,
        column: 2,
        format: (v) => v.toLocaleString('en', { maximumFractionDigits: 2 }),
      }),
    ],
    tables: [byCurrency],
    notes: [
      `Revenue is shown in ${main}, the currency with the most sales; other currencies are listed by currency and never converted. A sale is attributed when an agent replied to its contact within the sales tracker’s attribution window before it (orders from shops are attributed the same way when they name a contact).`,
    ],
  };
}

/** The range and its previous period as one span (they are adjacent). */
function bothPeriods(range: Range): Span {
  return { fromDay: range.previous.fromDay, toDay: range.current.toDay, start: range.previous.start, end: range.current.end, days: [] };
}
