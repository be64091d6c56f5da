import { sql, type SQL } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db/client';
import { PROJECTED_EVENT_TYPES } from './projection.server';
import type { Range, Span } from './range.server';

/**
 * The per-local-day roll-up of the analytics counters (ADR 125). The engine's projection writes hour rows only; this
 * job sums the hour rows of closed local days of the account's zone into day rows. A read takes day rows for the days
 * up to the account's cut and hour rows after it, so its figures are the sums of the same hour rows whether a day is
 * rolled up or not.
 *
 * The cut: the day rows hold every projected event with an id up to `through_event_id` (the job only advances it over
 * a prefix of the log that is all in the ledger). An event after it (still to be projected, or projected since the
 * last run: a sale reported with a past time, the backlog after downtime) makes every day from its local day on read
 * from hours, until the job has rolled it in.
 */
// Built on first use: projection.server imports this module (the rebuild rolls up), so its list is not ready at load.
let typesSql: SQL | null = null;
const types = () => (typesSql ??= sql.raw(PROJECTED_EVENT_TYPES.map((t) => `'${t}'`).join(', ')));

/** The hour bucket of an event time (the projection's `date_bin('1 hour', …)`), as a local day of `tz`. */
const bucketDay = (col: SQL, tz: string) => sql`(date_bin('1 hour', ${col}, timestamptz '2000-01-01 00:00:00+00') at time zone ${tz})::date`;

export function safeZone(tz: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

async function accountZoneOf(db: DbOrTx, accountId: number) {
  const [row] = await db.execute<{ tz: string | null }>(sql`select settings->>'defaultTimezone' as tz from accounts where id = ${accountId}`);
  return safeZone(row?.tz || 'UTC');
}

/**
 * The last local day whose day rows a read in zone `tz` may use, or null (no roll-up, another zone, nothing closed).
 */
export async function rollupCut(opts: { accountId: number; tz: string; db?: DbOrTx }): Promise<string | null> {
  const db = opts.db ?? getDb();
  const [state] = await db.execute<{ through_day: string | null; through_event_id: string }>(sql`
    select to_char(through_day, 'YYYY-MM-DD') as through_day, through_event_id::text from analytics_rollups
    where account_id = ${opts.accountId} and time_zone = ${opts.tz}`);
  if (!state?.through_day) return null;
  // The account's events after through_event_id, on the primary key (a literal bound, so the planner sees how few;
  // offset 0 keeps it from walking the account's whole (account, occurred_at) index for the min).
  const [later] = await db.execute<{ day: string | null }>(sql`
    select to_char(${bucketDay(sql`min(occurred_at)`, opts.tz)} - 1, 'YYYY-MM-DD') as day from (
      select occurred_at from domain_events where id > ${Number(state.through_event_id)} and account_id = ${opts.accountId} and type in (${types()}) offset 0
    ) e`);
  return later?.day && later.day < state.through_day ? later.day : state.through_day;
}

const cuts = new WeakMap<Range, Promise<string | null>>();
/** The cut of a page request: computed once per range object (one request), so all of its reads agree. */
export function cutOf(accountId: number, range: Range) {
  let c = cuts.get(range);
  if (!c) {
    c = rollupCut({ accountId, tz: range.tz });
    cuts.set(range, c);
  }
  return c;
}

function nextDay(day: string) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The counter rows of a span as one relation `(metric, dim, key, n, total, day)` (or `(…, bin, n, day)` for the
 * histograms): day rows for the span's days up to the cut, hour rows (with their local day) after it. `where` filters
 * both (columns unqualified: metric, dim, key).
 */
export function spanRows(opts: { accountId: number; span: Span; tz: string; cut: string | null; where: SQL; histogram?: boolean }): SQL {
  const s = opts.span;
  const cut = opts.cut && opts.cut >= s.fromDay ? (opts.cut < s.toDay ? opts.cut : s.toDay) : null;
  const hourTable = sql.raw(opts.histogram ? 'analytics_durations' : 'analytics_counters');
  const dayTable = sql.raw(opts.histogram ? 'analytics_durations_daily' : 'analytics_counters_daily');
  const cols = sql.raw(opts.histogram ? 'metric, dim, key, bin, n' : 'metric, dim, key, n, total');
  const hours = (from: string) => sql`
      select ${cols}, (hour at time zone ${opts.tz})::date as day, hour from ${hourTable}
      where account_id = ${opts.accountId} and ${opts.where}
        and hour >= ${from}::timestamptz and hour < ${s.end.toISOString()}::timestamptz`;
  if (!cut) return sql`(${hours(s.start.toISOString())})`;
  const days = sql`
      select ${cols}, day, null::timestamptz as hour from ${dayTable}
      where account_id = ${opts.accountId} and ${opts.where} and day >= ${s.fromDay}::date and day <= ${cut}::date`;
  if (cut === s.toDay) return sql`(${days})`;
  return sql`(${days} union all ${hours(dayStartSql(nextDay(cut), opts.tz))})`;
}

/** The instant local midnight of `day` starts in `tz`, as Postgres computes it (the same rule as the roll-up). */
function dayStartSql(day: string, tz: string) {
  return `${day} 00:00:00 ${tz}`;
}

/**
 * The roll-up job of one account: sums the hour rows of its closed local days (up to yesterday, in its current zone)
 * into day rows, for the days not rolled up yet and for the days of the events projected since the last run. Idempotent
 * (a day's rows are replaced by the sum of its hour rows); after downtime it catches up in one run; a change of zone
 * rolls every day up again. Runs under the projections' advisory lock shared, as the engine's batches do.
 */
export async function rollUpAnalytics(opts: { accountId: number; now?: Date; db?: DbOrTx }) {
  return (opts.db ?? getDb()).transaction(
    async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock_shared(90, ${opts.accountId})`);
      return rollUpIn(tx, { accountId: opts.accountId, now: opts.now });
    },
    { isolationLevel: 'repeatable read' },
  );
}


/**
 * The roll-up in the caller's transaction. `full`: every day again (the rebuild, which has just counted every event
 * of the account up to `full.upto`).
 */
export async function rollUpIn(tx: DbOrTx, opts: { accountId: number; now?: Date; full?: { upto: number } }) {
  const tz = await accountZoneOf(tx, opts.accountId);
  const now = (opts.now ?? new Date()).toISOString();
  const [state] = await tx.execute<{ time_zone: string; through_day: string | null; through_event_id: string }>(sql`
    select time_zone, to_char(through_day, 'YYYY-MM-DD') as through_day, through_event_id::text from analytics_rollups where account_id = ${opts.accountId} for update`);
  const incremental = !opts.full && state?.time_zone === tz;
  const fromEvent = incremental ? Number(state.through_event_id) : 0;
  let upto: number;
  let pendingDay: string | null = null;
  if (opts.full) upto = opts.full.upto;
  else {
    // The prefix of the log after the last run that is all projected: up to the first event not in the ledger (or,
    // with none, the newest event of any account: nothing of this account is waiting before it).
    const [head] = await tx.execute<{ upto: string | null; pending_day: string | null }>(sql`
      with later as materialized (
        select e.id, e.occurred_at, exists (select 1 from analytics_applied_events l where l.event_id = e.id) as counted
        from domain_events e
        where e.id > ${fromEvent} and e.account_id = ${opts.accountId} and e.type in (${types()})
        offset 0
      ), first_pending as (select min(id) as id from later where not counted)
      select coalesce((select id - 1 from first_pending where id is not null), (select max(id) from domain_events), ${fromEvent})::text as upto,
        to_char((select ${bucketDay(sql`min(occurred_at)`, tz)} from later where id >= (select id from first_pending)), 'YYYY-MM-DD') as pending_day`);
    upto = Number(head.upto);
    pendingDay = head.pending_day;
  }
  const yesterday = sql`((${now}::timestamptz at time zone ${tz})::date - 1)`;
  const firstDay = sql`(select (min(hour) at time zone ${tz})::date from analytics_counters where account_id = ${opts.accountId})`;
  // Days to (re)compute: every day after the last run's through_day up to yesterday, and the days of the events
  // counted since the last run (late ones with a past time). Otherwise (first run, another zone, the rebuild): every day.
  const daysSql = incremental
    ? sql`
      select d::date as day from generate_series(coalesce(${state.through_day}::date + 1, ${firstDay}), ${yesterday}, interval '1 day') d
      union
      select distinct ${bucketDay(sql`occurred_at`, tz)} from domain_events
      where id > ${fromEvent} and id <= ${upto} and account_id = ${opts.accountId} and type in (${types()})
        and ${bucketDay(sql`occurred_at`, tz)} <= ${yesterday}`
    : sql`select d::date as day from generate_series(${firstDay}, ${yesterday}, interval '1 day') d`;
  if (!incremental) {
    await tx.execute(sql`delete from analytics_counters_daily where account_id = ${opts.accountId}`);
    await tx.execute(sql`delete from analytics_durations_daily where account_id = ${opts.accountId}`);
  }
  // A day's rows are the sums of the hour buckets that start on it, local time (a DST day: 23 or 25 buckets). One
  // pass over the account's hour rows between the first and the last day to do (not one per day).
  const [done] = await tx.execute<{ days: number }>(sql`
    with days as materialized (select day from (${daysSql}) d where day is not null),
    span as (
      select (min(day)::timestamp at time zone ${tz}) as start, ((max(day) + 1)::timestamp at time zone ${tz}) as stop from days
    ),
    c_del as (
      delete from analytics_counters_daily d where d.account_id = ${opts.accountId} and d.day in (select day from days) returning 1
    ),
    h_del as (
      delete from analytics_durations_daily d where d.account_id = ${opts.accountId} and d.day in (select day from days) returning 1
    ),
    c_ins as (
      insert into analytics_counters_daily (account_id, metric, dim, key, day, n, total)
      select c.account_id, c.metric, c.dim, c.key, (c.hour at time zone ${tz})::date, sum(c.n), sum(c.total)
      from analytics_counters c
      where c.account_id = ${opts.accountId} and c.hour >= (select start from span) and c.hour < (select stop from span)
        and (c.hour at time zone ${tz})::date in (select day from days)
      group by 1, 2, 3, 4, 5
      returning 1
    ),
    h_ins as (
      insert into analytics_durations_daily (account_id, metric, dim, key, day, bin, n)
      select c.account_id, c.metric, c.dim, c.key, (c.hour at time zone ${tz})::date, c.bin, sum(c.n)
      from analytics_durations c
      where c.account_id = ${opts.accountId} and c.hour >= (select start from span) and c.hour < (select stop from span)
        and (c.hour at time zone ${tz})::date in (select day from days)
      group by 1, 2, 3, 4, 5, 6
      returning 1
    )
    select (select count(*) from days)::int as days,
      ((select count(*) from c_del) + (select count(*) from h_del) + (select count(*) from c_ins) + (select count(*) from h_ins))::int as touched`);
  // Complete through yesterday, except from the local day of an event still waiting for the projection.
  await tx.execute(sql`
    insert into analytics_rollups (account_id, time_zone, through_day, through_event_id, updated_at)
    values (${opts.accountId}, ${tz}, least(${yesterday}, ${pendingDay}::date - 1), ${upto}, now())
    on conflict (account_id) do update set time_zone = excluded.time_zone, through_day = excluded.through_day,
      through_event_id = excluded.through_event_id, updated_at = now()`);
  return { tz, days: Number(done?.days ?? 0), throughEventId: upto };
}

/** The roll-up of every account with counters (the scheduled job). */
export async function rollUpAllAnalytics(opts: { now?: Date } = {}) {
  const accounts = await getDb().execute<{ id: number }>(sql`select id from accounts order by id`);
  let days = 0;
  for (const a of accounts) days += (await rollUpAnalytics({ accountId: Number(a.id), now: opts.now })).days;
  return { accounts: accounts.length, days };
}
