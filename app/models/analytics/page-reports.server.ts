import { sql } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { formatDuration } from '../../utils/format';
import { isOpenAt, type BusinessHoursRules } from '../automation/business-time';
import { AREA_DAILY_COLUMNS, AREA_REPORTS } from './area-reports.server';
import { barChart } from './charts.server';
import { agentsNeeded, serviceLevel } from './erlang';
import { campaignReport } from './campaign-reports.server';
import { goalsReport, salesReport } from './conversion-reports.server';
import type { Range } from './range.server';
import { dayStart } from './range.server';
import {
  binBounds,
  breakdown,
  breakdownChart,
  busiestHours,
  dailyChart,
  dailyTable,
  dimensionNames,
  headlines,
  METRIC_COLUMNS as M,
  percentiles,
  type Col,
  type Report,
  type Table,
} from './reports.server';

const count = (v: number) => String(Math.round(v));
const pct = (v: number) => `${Math.round(v)}%`;
const dur = (v: number) => formatDuration(v);

type Opts = { accountId: number; range: Range; search: URLSearchParams };

/** The columns of a page's daily table: the same query feeds the table, its chart and the CSV export. */
export const DAILY_COLUMNS: Record<string, Col[]> = {
  overview: [M.conversations, M.resolved, M.replies, M.firstResponse, M.resolution, M.csat],
  inbox: [M.conversations, M.resolved, M.firstResponse, M.resolution],
  channels: [M.conversations, M.resolved, M.firstResponse, M.resolution],
  metrics: [M.firstResponse, M.resolution],
  sla: [M.breaches, M.conversations, { label: 'SLA targets met', format: 'count', metric: 'sla_met', agg: 'n' }],
  'customer-satisfaction': [M.ratings, M.avgRating, M.csat],
  users: [M.replies, M.resolved],
  ...AREA_DAILY_COLUMNS,
};

async function overview(o: Opts): Promise<Report> {
  const cols = DAILY_COLUMNS.overview;
  // Three independent reads at once (ADR 107): the page waits for the slowest, not for their sum.
  const [table, heads, hours] = await Promise.all([
    dailyTable({ ...o, cols, caption: 'By day' }),
    headlines({ ...o, cols: [...cols, M.firstResponseBh, M.resolutionBh] }),
    busiestHours(o),
  ]);
  return {
    headlines: heads,
    charts: [dailyChart({ title: 'Conversations and resolutions', table, columns: [1, 2], format: count }), hours],
    tables: [],
    notes: [],
  };
}

function perDimension(dim: 'inbox' | 'channel', label: string) {
  return async (o: Opts): Promise<Report> => {
    const cols = [M.conversations, M.resolved, M.replies, M.firstResponse, M.resolution, M.csat];
    // Independent reads at once (as the overview, ADR 107): the page waits for the slowest.
    const names = await dimensionNames({ accountId: o.accountId, dim });
    const [table, heads, daily] = await Promise.all([
      breakdown({ ...o, dim, cols, names, caption: `By ${label.toLowerCase()}`, dimLabel: label, underTag: true }),
      headlines({ ...o, cols: [M.conversations, M.resolved, M.firstResponse, M.resolution] }),
      dailyTable({ ...o, cols: DAILY_COLUMNS[dim === 'inbox' ? 'inbox' : 'channels'], caption: 'By day' }),
    ]);
    return {
      headlines: heads,
      charts: [breakdownChart({ title: `Conversations by ${label.toLowerCase()}`, table, column: 1, format: count })],
      tables: [daily],
      notes: [],
    };
  };
}

async function metrics(o: Opts): Promise<Report> {
  const ps = [0.5, 0.75, 0.9, 0.95, 0.99];
  const [fr, res, frBefore, resBefore, frBh, resBh, frBhBefore] = await Promise.all([
    percentiles({ ...o, metric: 'first_response', ps }),
    percentiles({ ...o, metric: 'resolved', ps }),
    percentiles({ ...o, span: o.range.previous, metric: 'first_response', ps: [0.5, 0.9] }),
    percentiles({ ...o, span: o.range.previous, metric: 'resolved', ps: [0.5, 0.9] }),
    percentiles({ ...o, metric: 'first_response_bh', ps }),
    percentiles({ ...o, metric: 'resolved_bh', ps }),
    percentiles({ ...o, span: o.range.previous, metric: 'first_response_bh', ps: [0.5] }),
  ]);
  const pTable: Table = {
    caption: 'Percentiles',
    columns: [
      { label: 'Measure', format: 'text' },
      { label: 'Conversations', format: 'count' },
      ...ps.map((p) => ({ label: p === 0.5 ? 'Median' : `${Math.round(p * 100)}th percentile`, format: 'duration' as const })),
    ],
    rows: [
      ['First response time', fr.total, ...fr.values],
      ['Resolution time', res.total, ...res.values],
      ['First response time (business hours)', frBh.total, ...frBh.values],
      ['Resolution time (business hours)', resBh.total, ...resBh.values],
    ],
  };
  const hist: Table = {
    caption: 'First response times',
    columns: [
      { label: 'First response within', format: 'text' },
      { label: 'Conversations', format: 'count' },
    ],
    rows: fr.histogram.map((h) => [`${dur(binBounds(h.bin).low)} – ${dur(binBounds(h.bin).high)}`, h.n]),
  };
  return {
    headlines: [
      { label: 'Median first response time', format: 'duration', value: fr.values[0], previous: frBefore.values[0] },
      { label: '90th percentile first response time', format: 'duration', value: fr.values[2], previous: frBefore.values[1] },
      { label: 'Median resolution time', format: 'duration', value: res.values[0], previous: resBefore.values[0] },
      { label: '90th percentile resolution time', format: 'duration', value: res.values[2], previous: resBefore.values[1] },
      { label: 'Median first response time (business hours)', format: 'duration', value: frBh.values[0], previous: frBhBefore.values[0] },
    ],
    charts: [
      {
        title: 'How long customers waited for a first response',
        table: hist,
        model: barChart({ items: hist.rows.map((r) => ({ label: String(r[0]), value: Number(r[1]) })), format: count }),
      },
    ],
    tables: [pTable, await dailyTable({ ...o, cols: DAILY_COLUMNS.metrics, caption: 'Averages by day' })],
    notes: [
      'Percentiles are read from histograms whose bins span 19 % of their value; a figure is its bin’s midpoint (within ±9 %).',
      'Business hours: only the time the conversation’s inbox was open counts (its business hours, as the SLA counts them; around the clock without).',
    ],
  };
}

/** SLA targets met and their share of the targets that fell due (ADR 103). */
const SLA_MET: Col = { label: 'SLA targets met', format: 'count', metric: 'sla_met', agg: 'n' };
const SLA_MET_SHARE: Col = { label: 'Met share', format: 'percent', metric: 'sla_met', agg: 'ratio', of: 'sla_due' };

async function slaPage(o: Opts): Promise<Report> {
  const b = [M.breaches, SLA_MET, SLA_MET_SHARE];
  const [byTarget, byPolicy, byPriority] = await Promise.all([
    breakdown({ ...o, dim: 'target', cols: b, names: new Map(), caption: 'Breaches by target', dimLabel: 'Target' }),
    breakdown({
      ...o,
      dim: 'policy',
      cols: b,
      names: await dimensionNames({ accountId: o.accountId, dim: 'policy' }),
      caption: 'Breaches by policy',
      dimLabel: 'Policy',
    }),
    breakdown({ ...o, dim: 'priority', cols: b, names: new Map(), caption: 'Breaches by priority', dimLabel: 'Priority' }),
  ]);
  const table = await dailyTable({ ...o, cols: DAILY_COLUMNS.sla, caption: 'By day' });
  return {
    headlines: await headlines({
      ...o,
      cols: [
        M.breaches,
        { label: 'Breaches per 100 conversations', format: 'percent', metric: 'sla_breached', agg: 'ratio', of: 'conversations' },
        M.resolved,
        SLA_MET,
        SLA_MET_SHARE,
      ],
    }),
    charts: [
      dailyChart({ title: 'Breaches over time', table, columns: [1], format: count }),
      breakdownChart({ title: 'Breaches by policy', table: byPolicy, column: 1, format: count }),
    ],
    tables: [byTarget, byPriority],
    notes: [
      'The filter narrows the headline figures and the breaches over time; the breakdowns cover every conversation.',
      'A target is met or breached at its due time: met share = targets met per 100 targets that fell due in the range.',
    ],
  };
}

async function csatPage(o: Opts): Promise<Report> {
  const cols = [M.ratings, M.avgRating, M.csat];
  const [table, tables, heads] = await Promise.all([
    dailyTable({ ...o, cols, caption: 'By day' }),
    Promise.all(
      (['agent', 'team', 'inbox'] as const).map(async (dim) =>
        breakdown({
          ...o,
          dim,
          cols,
          names: await dimensionNames({ accountId: o.accountId, dim }),
          caption: `By ${dim}`,
          dimLabel: dim.charAt(0).toUpperCase() + dim.slice(1),
        }),
      ),
    ),
    headlines({ ...o, cols }),
  ]);
  return {
    headlines: heads,
    charts: [dailyChart({ title: 'CSAT over time', table, columns: [3], format: pct })],
    tables,
    notes: ['CSAT is the share of ratings of 4 or 5 out of 5.'],
  };
}

async function users(o: Opts): Promise<Report> {
  const cols = [M.replies, M.resolved, M.firstResponse, M.resolution, M.ratings, M.csat, M.firstResponseBh];
  const names = await dimensionNames({ accountId: o.accountId, dim: 'agent' });
  const [table, tracked, heads, daily] = await Promise.all([
    breakdown({ ...o, dim: 'agent', cols, names, caption: 'By agent', dimLabel: 'Agent', underTag: true }),
    getDb().execute<{ user_id: number; seconds: number }>(sql`
    select user_id, sum(duration_seconds)::float8 as seconds from time_entries
    where account_id = ${
      o.accountId
    } and started_at >= ${o.range.current.start.toISOString()}::timestamptz and started_at < ${o.range.current.end.toISOString()}::timestamptz
    group by user_id`),
    headlines({ ...o, cols: [M.replies, M.resolved, M.firstResponse, M.csat] }),
    dailyTable({ ...o, cols: DAILY_COLUMNS.users, caption: 'By day' }),
  ]);
  const byName = new Map(tracked.map((t) => [names.get(String(t.user_id)), Number(t.seconds)]));
  table.columns.push({ label: 'Time tracked', format: 'duration' });
  for (const row of table.rows) row.push(byName.get(String(row[0])) ?? 0);
  return {
    headlines: heads,
    charts: [breakdownChart({ title: 'Replies by agent', table, column: 1, format: count })],
    tables: [daily],
    notes: [
      'Resolutions count for the agent the conversation was assigned to when it was resolved; replies and first responses for the agent who wrote them.',
      ...(o.range.filter?.dim === 'tag' ? ['Under a tag filter, time tracked is every time entry of the agent (time entries carry no tag).'] : []),
    ],
  };
}

/** The workflows page reads the run log (ADR 037), not a projection: one row per rule and step. */
export function workflowsSql(o: { accountId: number; range: Range }) {
  return sql`
    select coalesce(r.name, '#' || l.rule_id::text) as name, coalesce(r.kind, '') as kind,
      count(*) filter (where l.step in ('matched', 'not_matched'))::int as runs,
      count(*) filter (where l.step = 'matched')::int as matched,
      count(*) filter (where l.step = 'action_applied')::int as applied,
      count(*) filter (where l.step = 'action_failed')::int as failed,
      count(*) filter (where l.step = 'action_skipped')::int as skipped
    from (${runLines(o.accountId, o.range.current)}) l
    left join automation_rules r on r.id = l.rule_id and r.account_id = ${o.accountId}
    group by 1, 2 order by 4 desc, 1`;
}

/** The run log's lines in a range, with each rule's verdict from the events' verdicts rows (ADR 106) as one line. */
function runLines(accountId: number, range: { start: Date; end: Date }) {
  const from = range.start.toISOString();
  const to = range.end.toISOString();
  return sql`
    select rule_id, step from automation_run_log
     where account_id = ${accountId} and created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz
    union all
    select k.key::int, k.value->>'step' from automation_event_verdicts v cross join lateral jsonb_each(v.verdicts) k
     where v.account_id = ${accountId} and v.created_at >= ${from}::timestamptz and v.created_at < ${to}::timestamptz`;
}

async function workflows(o: Opts): Promise<Report> {
  const rows = await getDb().execute<{ name: string; kind: string; runs: number; matched: number; applied: number; failed: number; skipped: number }>(
    workflowsSql(o),
  );
  const table: Table = {
    caption: 'By workflow or rule',
    columns: [
      { label: 'Workflow or rule', format: 'text' },
      { label: 'Runs', format: 'count' },
      { label: 'Matched', format: 'count' },
      { label: 'Actions applied', format: 'count' },
      { label: 'Actions failed', format: 'count' },
      { label: 'Actions skipped', format: 'count' },
    ],
    rows: rows.map((r) => [r.name, r.runs, r.matched, r.applied, r.failed, r.skipped]),
  };
  const sum = (i: number) => table.rows.reduce((a, r) => a + Number(r[i]), 0);
  const before = await getDb().execute<{ runs: number; matched: number; applied: number; failed: number }>(sql`
    select count(*) filter (where step in ('matched', 'not_matched'))::int as runs, count(*) filter (where step = 'matched')::int as matched,
      count(*) filter (where step = 'action_applied')::int as applied, count(*) filter (where step = 'action_failed')::int as failed
    from (${runLines(o.accountId, o.range.previous)}) l`);
  return {
    headlines: [
      { label: 'Runs', format: 'count', value: sum(1), previous: Number(before[0]?.runs ?? 0) },
      { label: 'Matched', format: 'count', value: sum(2), previous: Number(before[0]?.matched ?? 0) },
      { label: 'Actions applied', format: 'count', value: sum(3), previous: Number(before[0]?.applied ?? 0) },
      { label: 'Actions failed', format: 'count', value: sum(4), previous: Number(before[0]?.failed ?? 0) },
    ],
    charts: [breakdownChart({ title: 'Matches by workflow or rule', table, column: 2, format: count })],
    tables: [],
    notes: ['A run is one event a workflow or rule was evaluated for; it matched when every condition held.'],
  };
}

export const STAFFING_DEFAULTS = { weeks: 4, share: 80, target: 60, handlingMinutes: 6 };

/** Staffing prediction (ADR 092): per hour of next week, the agents Erlang C needs against the agents scheduled. */
async function staffing(o: Opts): Promise<Report> {
  const p = staffingParams(o.search);
  const tz = o.range.tz;
  const now = new Date();
  const todayLocal = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const historyEnd = dayStart(todayLocal, tz);
  const historyStart = new Date(historyEnd.getTime() - p.weeks * 7 * 86_400_000);
  const { dim, key } = o.range.filter ?? { dim: 'all', key: '' };
  const arrivals = await getDb().execute<{ d: number; h: number; n: number }>(sql`
    select extract(isodow from (hour at time zone ${tz}))::int - 1 as d, extract(hour from (hour at time zone ${tz}))::int as h, sum(n)::float8 as n
    from analytics_counters
    where account_id = ${o.accountId} and metric = 'conversations' and dim = ${dim} and key = ${key}
      and hour >= ${historyStart.toISOString()}::timestamptz and hour < ${historyEnd.toISOString()}::timestamptz
    group by 1, 2`);
  const handling = await getDb().execute<{ d: number | null; h: number | null; avg: number }>(sql`
    select extract(isodow from (started_at at time zone ${tz}))::int - 1 as d, extract(hour from (started_at at time zone ${tz}))::int as h, avg(duration_seconds)::float8 as avg
    from time_entries
    where account_id = ${o.accountId} and conversation_id is not null and duration_seconds > 0
      and started_at >= ${historyStart.toISOString()}::timestamptz and started_at < ${historyEnd.toISOString()}::timestamptz
    group by grouping sets ((1, 2), ())`);
  const overall = handling.find((h) => h.d === null)?.avg;
  const fallback = overall ? Number(overall) : p.handlingMinutes * 60;
  const rate = new Map(arrivals.map((a) => [`${a.d}:${a.h}`, Number(a.n) / p.weeks]));
  const aht = new Map(handling.filter((h) => h.d !== null).map((h) => [`${h.d}:${h.h}`, Number(h.avg)]));
  const hours = (
    await getDb().execute<{
      timezone: string;
      all_day: boolean;
      have_holidays: boolean;
      timings: BusinessHoursRules['timings'];
      holidays: BusinessHoursRules['holidays'];
    }>(sql`
    select timezone, all_day, have_holidays, timings, holidays from business_hours where account_id = ${o.accountId} order by id limit 1`)
  )[0];
  const rules: BusinessHoursRules | null = hours
    ? { timezone: hours.timezone, allDay: hours.all_day, haveHolidays: hours.have_holidays, timings: hours.timings, holidays: hours.holidays }
    : null;
  const [{ agents }] = await getDb().execute<{ agents: number }>(
    sql`select count(*)::int as agents from users where account_id = ${o.accountId} and status = 'active'`,
  );
  // Next week: the coming Monday 00:00 local, 168 hours.
  const dayIdx = (new Date(`${todayLocal}T00:00:00Z`).getUTCDay() + 6) % 7;
  const monday = new Date(`${todayLocal}T00:00:00Z`);
  monday.setUTCDate(monday.getUTCDate() + (7 - dayIdx));
  const dayLabels = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  const rows: Table['rows'] = [];
  let short = 0;
  let peak = 0;
  for (let d = 0; d < 7; d++) {
    const date = new Date(monday);
    date.setUTCDate(monday.getUTCDate() + d);
    const day = date.toISOString().slice(0, 10);
    const start = dayStart(day, tz);
    for (let h = 0; h < 24; h++) {
      const perHour = rate.get(`${d}:${h}`) ?? 0;
      const handlingSeconds = aht.get(`${d}:${h}`) ?? fallback;
      const needed = agentsNeeded({ arrivalsPerHour: perHour, handlingSeconds, targetSeconds: p.target, share: p.share / 100 });
      const instant = new Date(start.getTime() + (h + 0.5) * 3_600_000);
      const scheduled = !rules || isOpenAt(rules, instant) ? Number(agents) : 0;
      const traffic = (perHour * handlingSeconds) / 3600;
      const level = perHour > 0 ? serviceLevel({ agents: scheduled, traffic, targetSeconds: p.target, handlingSeconds }) * 100 : null;
      if (needed > scheduled) short++;
      peak = Math.max(peak, needed);
      rows.push([
        `${dayLabels[d]} ${day.slice(5)} ${String(h).padStart(2, '0')}:00`,
        round2(perHour),
        Math.round(handlingSeconds),
        needed,
        scheduled,
        level === null ? null : round2(level),
        needed > scheduled ? `Short by ${needed - scheduled}` : '',
      ]);
    }
  }
  const table: Table = {
    caption: 'Next week, hour by hour',
    columns: [
      { label: 'Hour', format: 'text' },
      { label: 'Expected conversations', format: 'rating' },
      { label: 'Handling time', format: 'duration' },
      { label: 'Agents needed', format: 'count' },
      { label: 'Agents scheduled', format: 'count' },
      { label: 'Service level with scheduled agents', format: 'percent' },
      { label: 'Short', format: 'text' },
    ],
    rows,
  };
  const byDay = dayLabels.map((label, d) => ({ label, value: Math.max(...rows.slice(d * 24, d * 24 + 24).map((r) => Number(r[3]))) }));
  return {
    headlines: [
      { label: 'Hours short of agents', format: 'count', value: short, previous: null },
      { label: 'Most agents needed in one hour', format: 'count', value: peak, previous: null },
      { label: 'Expected conversations next week', format: 'count', value: Math.round(rows.reduce((a, r) => a + Number(r[1]), 0)), previous: null },
      { label: 'Agents scheduled', format: 'count', value: Number(agents), previous: null },
    ],
    charts: [{ title: 'Most agents needed per day', table, model: barChart({ items: byDay, format: count }) }],
    tables: [],
    notes: [
      `Arrivals: the average of the past ${p.weeks} weeks for each hour of the week. Handling time: the average time tracked on conversations in that hour of the week, else over all hours, else ${p.handlingMinutes} minutes. Agents scheduled: the account's active agents while its first business hours are open (around the clock without business hours).`,
    ],
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

export function staffingParams(search: URLSearchParams) {
  const intIn = (name: string, lo: number, hi: number, dflt: number) => {
    const v = Number(search.get(name));
    return Number.isInteger(v) && v >= lo && v <= hi ? v : dflt;
  };
  return {
    weeks: intIn('weeks', 1, 12, STAFFING_DEFAULTS.weeks),
    share: intIn('share', 50, 99, STAFFING_DEFAULTS.share),
    target: intIn('target', 5, 86_400, STAFFING_DEFAULTS.target),
    handlingMinutes: intIn('handling', 1, 240, STAFFING_DEFAULTS.handlingMinutes),
  };
}

export const PAGE_REPORTS: Record<string, (o: Opts) => Promise<Report>> = {
  overview,
  inbox: perDimension('inbox', 'Inbox'),
  channels: perDimension('channel', 'Channel'),
  metrics,
  sla: slaPage,
  workflows,
  'customer-satisfaction': csatPage,
  users,
  'staffing-prediction': staffing,
  ...AREA_REPORTS,
  // Campaigns and Ecommerce (ADR 104).
  chat: campaignReport('message'),
  email: campaignReport('email'),
  sms: campaignReport('sms'),
  'push-notification': campaignReport('push'),
  goals: goalsReport,
  'sales-tracking': salesReport,
};
