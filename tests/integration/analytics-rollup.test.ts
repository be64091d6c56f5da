import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../db/client';
import { projectEvents, rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { PAGE_REPORTS } from '../../app/models/analytics/page-reports.server';
import { ANALYTICS_PAGES } from '../../app/models/analytics/pages';
import { parseRange } from '../../app/models/analytics/range.server';
import { rollUpAnalytics, rollupCut } from '../../app/models/analytics/rollup.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
import { JOB_HANDLERS } from '../../engine/jobs/index';
import { getBoss, QUEUES, startBoss } from '../../app/utils/jobs.server';

/**
 * The per-day roll-up (ADR 125): every page's figures are the same whether its days are read from day rows or from
 * hour rows, across both DST changes of Europe/Berlin, with late events, events still waiting for the projection, and
 * after a rebuild.
 */
const TZ = 'Europe/Berlin';

type E = { type: string; subject: string; at: string; payload?: Record<string, unknown>; actor?: number; subjectType?: string };

async function write(accountId: number, events: E[]) {
  const rows = await getDb().execute<{ id: number }>(sql`
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select ${accountId}, e->>'type', coalesce(e->>'subjectType', 'conversation'), e->>'subject', coalesce(e->'payload', '{}'::jsonb),
      case when e->>'actor' is null then 'system' else 'user' end, (e->>'actor')::int, (e->>'at')::timestamptz
    from jsonb_array_elements(${JSON.stringify(events)}::jsonb) with ordinality x(e, i) order by i
    returning id`);
  return rows.map((r) => Number(r.id));
}

function history(agentId: number, inboxA: number, inboxB: number, first: number, times: string[]): E[] {
  return times.flatMap((t, i) => {
    const conv = String(first + i);
    const at = new Date(t).getTime();
    const plus = (min: number) => new Date(at + min * 60_000).toISOString();
    const inbox = i % 2 ? inboxB : inboxA;
    return [
      { type: 'conversation_created', subject: conv, at: plus(0), payload: { inboxId: inbox, sourceType: i % 2 ? 'web' : 'email' } },
      { type: 'message_created', subject: conv, at: plus(0), payload: { kind: 'incoming' } },
      { type: 'conversation_assigned', subject: conv, at: plus(1), payload: { assigneeId: agentId, teamId: null } },
      { type: 'message_created', subject: conv, at: plus(3 + ((i * 37) % 500)), payload: { kind: 'outgoing' }, actor: agentId },
      { type: 'conversation_updated', subject: conv, at: plus(90 + ((i * 53) % 3000)), payload: { changed: { status: { from: 'open', to: 'resolved' } } }, actor: agentId },
      {
        type: 'survey_received',
        subject: String(990000 + first + i),
        subjectType: 'survey_response',
        at: plus(120),
        payload: { kind: 'csat', rating: 1 + (i % 5), conversationId: Number(conv), inboxId: inbox, surveyId: 0, channel: 'email' },
      },
    ];
  });
}

async function allPages(accountId: number, from: string, to: string, filter?: string) {
  const out: Record<string, unknown> = {};
  for (const p of ANALYTICS_PAGES.filter((x) => x.built && x.slug !== 'staffing-prediction')) {
    const search = new URLSearchParams(`range=custom&from=${from}&to=${to}${filter && p.filters.includes(filter.split(':')[0] as never) ? `&filter=${filter}` : ''}`);
    const { range } = parseRange({ search, tz: TZ, page: p });
    out[p.slug] = await PAGE_REPORTS[p.slug]({ accountId, range, search });
  }
  return JSON.parse(JSON.stringify(out));
}

async function dayRows(accountId: number) {
  return getDb().execute(sql`
    select 'c' as t, metric, dim, key, to_char(day, 'YYYY-MM-DD') as day, null::int as bin, n, total from analytics_counters_daily where account_id = ${accountId}
    union all
    select 'd', metric, dim, key, to_char(day, 'YYYY-MM-DD'), bin, n, null from analytics_durations_daily where account_id = ${accountId}
    order by 1, 2, 3, 4, 5, 6`);
}

describe('analytics day roll-up (ADR 125)', () => {
  it('gives every page the same figures with and without day rows, across DST, late and waiting events, and the rebuild', async () => {
    const { account, owner } = await createTestAccount({ domain: 'anarollup' });
    await getDb().execute(sql`update accounts set settings = coalesce(settings, '{}'::jsonb) || ${JSON.stringify({ defaultTimezone: TZ })}::jsonb where id = ${account.id}`);
    const a = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: `support-${account.id}@rollup.test` });
    const b = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Chat', channelType: 'web' });
    // Around spring forward (29 March 2026: 02:00 → 03:00 local) and fall back (25 October 2026: 03:00 → 02:00, the
    // hour 02:00–03:00 local twice: 00:00 and 01:00 UTC), local midnights (22:00/23:00 UTC), and ordinary days.
    const times = [
      '2026-03-28T22:30:00Z',
      '2026-03-29T00:30:00Z',
      '2026-03-29T01:10:00Z',
      '2026-03-29T21:59:00Z',
      '2026-03-29T22:00:00Z',
      '2026-06-14T12:00:00Z',
      '2026-10-24T21:30:00Z',
      '2026-10-24T22:00:00Z',
      '2026-10-25T00:15:00Z',
      '2026-10-25T01:15:00Z',
      '2026-10-25T22:59:00Z',
      '2026-10-25T23:00:00Z',
      '2026-11-03T08:00:00Z',
      '2026-11-20T16:00:00Z',
    ];
    const ids = await write(account.id, history(owner.id, a.id, b.id, 500000, times));
    for (let i = 0; i < ids.length; i += 7) await projectEvents({ eventIds: ids.slice(i, i + 7) });
    const other = await createTestAccount({ domain: 'anarollupother' });
    const theirs = await write(other.account.id, history(other.owner.id, a.id, b.id, 600000, times.slice(0, 5)));
    await projectEvents({ eventIds: theirs });

    const ranges: [string, string, string?][] = [
      ['2026-03-01', '2026-11-25'],
      ['2026-10-25', '2026-10-25'],
      ['2026-03-29', '2026-10-25', `inbox:${a.id}`],
    ];
    const plain = await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)));
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBeNull();

    const now = new Date('2026-11-25T12:00:00Z');
    await rollUpAnalytics({ accountId: account.id, now });
    await rollUpAnalytics({ accountId: other.account.id, now });
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBe('2026-11-24');
    expect(await rollupCut({ accountId: account.id, tz: 'UTC' })).toBeNull();
    // The fall-back day has 25 hour buckets (22:00 UTC on the 24th to 23:00 UTC on the 25th): the two conversations of
    // the repeated hour and the one of 22:59 UTC are on it, the one of 23:00 UTC on the 26th.
    const [day] = await getDb().execute<{ n: number }>(sql`
      select n::int from analytics_counters_daily where account_id = ${account.id} and metric = 'conversations' and dim = 'all' and day = '2026-10-25'`);
    expect(day.n).toBe(4);
    const [spring] = await getDb().execute<{ n: number }>(sql`
      select n::int from analytics_counters_daily where account_id = ${account.id} and metric = 'conversations' and dim = 'all' and day = '2026-03-29'`);
    // The spring day has 23 (23:00 UTC on the 28th to 22:00 UTC on the 29th): three of the five conversations.
    expect(spring.n).toBe(3);
    const rolled = await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)));
    expect(rolled).toEqual(plain);
    // The roll-up is idempotent.
    const rows = await dayRows(account.id);
    await rollUpAnalytics({ accountId: account.id, now });
    expect(await dayRows(account.id)).toEqual(rows);

    // A late event (a conversation with a past time, projected after the roll-up): the pages read its day and the
    // days after it from hours until the next run, which rolls that day up again.
    const late = await write(account.id, history(owner.id, a.id, b.id, 700000, ['2026-10-25T10:00:00Z']));
    await projectEvents({ eventIds: late });
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBe('2026-10-24');
    const withLate = await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)));
    expect(withLate).not.toEqual(plain);
    await getDb().execute(sql`delete from analytics_rollups where account_id = ${account.id}`);
    expect(await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)))).toEqual(withLate);
    await rollUpAnalytics({ accountId: account.id, now });
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBe('2026-11-24');
    expect(await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)))).toEqual(withLate);
    const [lateDay] = await getDb().execute<{ n: number }>(sql`
      select n::int from analytics_counters_daily where account_id = ${account.id} and metric = 'conversations' and dim = 'all' and day = '2026-10-25'`);
    expect(lateDay.n).toBe(5);

    // An event still waiting for the projection (after downtime): the roll-up stops the day before it.
    const waiting = await write(account.id, history(owner.id, a.id, b.id, 800000, ['2026-11-03T09:00:00Z']));
    await rollUpAnalytics({ accountId: account.id, now });
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBe('2026-11-02');
    await projectEvents({ eventIds: waiting });
    const caughtUp = await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)));
    await rollUpAnalytics({ accountId: account.id, now });
    expect(await rollupCut({ accountId: account.id, tz: TZ })).toBe('2026-11-24');
    expect(await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)))).toEqual(caughtUp);
    const incremental = await dayRows(account.id);

    // The rebuild rolls every day up again: the same day rows, the same pages; the other account keeps its own.
    await rebuildAnalytics({ accountId: account.id });
    expect(await dayRows(account.id)).toEqual(incremental);
    expect(await Promise.all(ranges.map(([f, t, x]) => allPages(account.id, f, t, x)))).toEqual(caughtUp);
    const [mine] = await getDb().execute<{ n: number }>(sql`
      select coalesce(sum(n), 0)::int as n from analytics_counters_daily where account_id = ${other.account.id} and metric = 'conversations' and dim = 'all'`);
    expect(mine.n).toBe(5);
  });

  it('is a job scheduled every 5 minutes that rolls every account up', async () => {
    const { account, owner } = await createTestAccount({ domain: 'anarollupjob' });
    const a = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: `support-${account.id}@rollupjob.test` });
    const ids = await write(account.id, history(owner.id, a.id, a.id, 900000, ['2026-11-20T10:00:00Z']));
    await projectEvents({ eventIds: ids });
    await startBoss();
    expect((await getBoss().getSchedules()).map((x) => x.name)).toContain(QUEUES.analyticsRollup);
    await JOB_HANDLERS[QUEUES.analyticsRollup]({});
    expect(await rollupCut({ accountId: account.id, tz: 'UTC' })).not.toBeNull();
    const [row] = await getDb().execute<{ n: number }>(sql`
      select coalesce(sum(n), 0)::int as n from analytics_counters_daily where account_id = ${account.id} and metric = 'conversations' and dim = 'all'`);
    expect(row.n).toBe(1);
  });
});
