import { sql, type SQL } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { lineChart } from './charts.server';
import type { Range, Span } from './range.server';
import { breakdownChart, type Chart, type Headline, type Report, type Table } from './reports.server';

/**
 * The four campaign pages (ADR 104): chat (message), email, SMS and push campaigns, read from the campaigns'
 * per-recipient rows (`campaign_recipients`, one row per contact and campaign with the time of each step), by
 * kind. Like the workflows page's run log, these rows are the record; no projection is kept for them.
 */
export type CampaignKind = 'message' | 'email' | 'sms' | 'push';

type Step = { key: string; label: string; at: string };

/** The steps each kind records, with the recipient column holding its time. */
export const CAMPAIGN_STEPS: Record<CampaignKind, Step[]> = {
  message: [
    { key: 'sent', label: 'Shown', at: 'sent_at' },
    { key: 'replied', label: 'Replied', at: 'replied_at' },
  ],
  email: [
    { key: 'sent', label: 'Sent', at: 'sent_at' },
    { key: 'opened', label: 'Opened', at: 'opened_at' },
    { key: 'clicked', label: 'Clicked', at: 'clicked_at' },
    { key: 'replied', label: 'Replied', at: 'replied_at' },
    { key: 'unsubscribed', label: 'Unsubscribed', at: 'unsubscribed_at' },
    { key: 'bounced', label: 'Bounced', at: 'bounced_at' },
  ],
  sms: [
    { key: 'sent', label: 'Sent', at: 'sent_at' },
    { key: 'replied', label: 'Replied', at: 'replied_at' },
    { key: 'unsubscribed', label: 'Opted out', at: 'unsubscribed_at' },
    { key: 'failed', label: 'Failed', at: 'failed' },
  ],
  push: [
    { key: 'sent', label: 'Sent', at: 'sent_at' },
    { key: 'clicked', label: 'Clicked', at: 'clicked_at' },
    { key: 'failed', label: 'Failed', at: 'failed' },
  ],
};

/** The rate of a step: its count per 100 sent (shown, for chat). */
const RATE_OF: Record<string, string> = {
  opened: 'Open rate',
  clicked: 'Click rate',
  replied: 'Reply rate',
  unsubscribed: 'Unsubscribe rate',
  bounced: 'Bounce rate',
};

/** A failed recipient has no failure time; its claim time (when the sender tried it) stands for it. */
function atExpr(step: Step): SQL {
  return step.at === 'failed' ? sql`case when r.status = 'failed' then r.claimed_at end` : sql.raw(`r.${step.at}`);
}

/** One row per recipient step that happened in the span: (campaign, step, local day). */
function stepsCte(o: { accountId: number; kind: CampaignKind; span: Span; tz: string }) {
  const steps = CAMPAIGN_STEPS[o.kind];
  return sql`
    steps as (
      select r.campaign_id, v.step, (v.at at time zone ${o.tz})::date as day
      from campaign_recipients r
      join campaigns c on c.id = r.campaign_id and c.account_id = ${o.accountId} and c.kind = ${o.kind}
      cross join lateral (values ${sql.join(
        steps.map((s) => sql`(${s.key}, ${atExpr(s)})`),
        sql`, `,
      )}) v(step, at)
      where r.account_id = ${o.accountId} and v.at >= ${o.span.start.toISOString()}::timestamptz and v.at < ${o.span.end.toISOString()}::timestamptz
    )`;
}

const counts = (kind: CampaignKind) =>
  sql.join(
    CAMPAIGN_STEPS[kind].map((s) => sql`count(s.step) filter (where s.step = ${s.key})::int as ${sql.raw(`"${s.key}"`)}`),
    sql`, `,
  );

/** The by-day table's query: every local day of the range, a count per step (the page's table, chart and CSV). */
export function campaignDailySql(o: { accountId: number; kind: CampaignKind; range: Range }) {
  const s = o.range.current;
  return sql`
    with ${stepsCte({ ...o, span: s, tz: o.range.tz })}
    select to_char(d.day, 'YYYY-MM-DD') as day, ${counts(o.kind)}
    from generate_series(${s.fromDay}::date, ${s.toDay}::date, interval '1 day') d(day)
    left join steps s on s.day = d.day
    group by d.day order by d.day`;
}

async function totals(o: { accountId: number; kind: CampaignKind; span: Span; tz: string }) {
  const [row] = await getDb().execute<Record<string, number>>(sql`with ${stepsCte(o)} select ${counts(o.kind)} from steps s`);
  return row ?? {};
}

const rate = (n: number, sent: number) => (sent > 0 ? (100 * n) / sent : null);

export function campaignReport(kind: CampaignKind) {
  return async (o: { accountId: number; range: Range }): Promise<Report> => {
    const steps = CAMPAIGN_STEPS[kind];
    const [daily, now, before, perCampaign] = await Promise.all([
      getDb().execute<Record<string, unknown>>(campaignDailySql({ ...o, kind })),
      totals({ ...o, kind, span: o.range.current, tz: o.range.tz }),
      totals({ ...o, kind, span: o.range.previous, tz: o.range.tz }),
      getDb().execute<Record<string, unknown>>(sql`
        with ${stepsCte({ ...o, kind, span: o.range.current, tz: o.range.tz })}
        select c.name, ${counts(kind)}
        from steps s join campaigns c on c.id = s.campaign_id and c.account_id = ${o.accountId}
        group by c.id, c.name order by 2 desc, c.name limit 200`),
    ]);
    const byDay: Table = {
      caption: 'By day',
      columns: [{ label: 'Day', format: 'text' }, ...steps.map((s) => ({ label: s.label, format: 'count' as const }))],
      rows: daily.map((r) => [String(r.day), ...steps.map((s) => Number(r[s.key] ?? 0))]),
    };
    const rated = steps.filter((s) => RATE_OF[s.key]);
    const rateLabel = (s: Step) => (kind === 'sms' && s.key === 'unsubscribed' ? 'Opt-out rate' : RATE_OF[s.key]);
    const byCampaign: Table = {
      caption: 'By campaign',
      columns: [
        { label: 'Campaign', format: 'text' },
        ...steps.map((s) => ({ label: s.label, format: 'count' as const })),
        ...rated.map((s) => ({ label: rateLabel(s), format: 'percent' as const })),
      ],
      rows: perCampaign.map((r) => [
        String(r.name),
        ...steps.map((s) => Number(r[s.key] ?? 0)),
        ...rated.map((s) => rate(Number(r[s.key] ?? 0), Number(r.sent ?? 0))),
      ]),
    };
    const sentLabel = steps[0].label;
    const headlines: Headline[] = [
      ...steps.map((s) => ({ label: s.label, format: 'count' as const, value: Number(now[s.key] ?? 0), previous: Number(before[s.key] ?? 0) })),
      ...rated.map((s) => ({
        label: rateLabel(s),
        format: 'percent' as const,
        value: rate(Number(now[s.key] ?? 0), Number(now.sent ?? 0)),
        previous: rate(Number(before[s.key] ?? 0), Number(before.sent ?? 0)),
      })),
    ];
    const chart: Chart = {
      title: `${sentLabel} and ${steps
        .slice(1)
        .map((s) => s.label.toLowerCase())
        .join(', ')} by day`,
      table: byDay,
      model: lineChart({
        xLabels: byDay.rows.map((r) => String(r[0]).slice(5)),
        series: steps.map((s, i) => ({ label: s.label, values: byDay.rows.map((r) => Number(r[i + 1])) })),
        format: (v) => String(Math.round(v)),
      }),
    };
    const total = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from campaigns where account_id = ${o.accountId} and kind = ${kind}`);
    const notes = [
      `Each figure counts recipients whose step happened in the range, on its local day; rates are per 100 ${sentLabel.toLowerCase()} in the range.`,
    ];
    if (Number(total[0]?.n ?? 0) === 0)
      notes.unshift(kind === 'push' ? 'No push campaigns yet. Their figures appear here once push campaigns are sent.' : 'No campaigns of this kind yet.');
    return {
      headlines,
      charts: [chart, breakdownChart({ title: `${sentLabel} by campaign`, table: byCampaign, column: 1, format: (v) => String(Math.round(v)) })],
      tables: [],
      notes,
    };
  };
}
