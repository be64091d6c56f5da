/**
 * Analytics (issue 21): an account with BENCH_CONVERSATIONS conversations (default 20,000; the issue's target is
 * 1,000,000 with 20,000,000 events) spread over two years, each with its events (created, assigned, an incoming
 * message, two replies, resolved; some rated, some breached: ~6.5 events each), written straight into the event log.
 * Prints: the rebuild time; the per-event cost of the engine's batch statement (batches of 100); p95 of every built
 * page's figures (the loader's work) for a 90-day and a two-year range (ceilings: 200 ms, 500 ms); and the engine's
 * per-event time on a mixed stream with and without the analytics handler, in the same run (ceiling: +15 %).
 * With the day roll-up (ADR 125) timed, and every page compared with and without it (BENCH_SAME=0 skips that).
 * Run: npm run bench:analytics
 * The issue's size (1M conversations, 20.3M events; ADR 126), written once into a kept cluster, then reused:
 *   BENCH_DATA_DIR=/work/benchdata/analytics BENCH_CONVERSATIONS=1000000 npm run bench:analytics
 * The rebuild on it, timed and compared row for row:  … BENCH_PAGES=0 BENCH_ROLLUP_FULL=0 BENCH_REBUILD=1 …
 *   (BENCH_REDO_COUNTERS=1 writes the set-based counters it is compared with again first)
 * The CSV memory on it: BENCH_DATA_DIR=… BENCH_CONVERSATIONS=1000000 npm run bench:analytics-csv
 */
import os from 'node:os';
import { benchDatabase, measure } from './support';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

/** BENCH_DATA_DIR: a persistent embedded cluster whose database is kept between runs (the 20M history is written once). */
async function database() {
  if (!process.env.BENCH_DATA_DIR) return { server: await benchDatabase('analytics'), reused: false };
  const { startEmbeddedPostgres } = await import('../db/embedded');
  const { createTemplate, withDatabase } = await import('../tests/setup/test-database');
  const { runMigrations } = await import('../db/migrate');
  const postgres = (await import('postgres')).default;
  const embedded = await startEmbeddedPostgres({ dataDir: process.env.BENCH_DATA_DIR, database: 'postgres' });
  const name = `parley_bench_analytics_${CONVERSATIONS}`;
  const admin = postgres(embedded.adminUrl, { max: 1, onnotice: () => {} });
  const [{ exists }] = await admin`select exists (select 1 from pg_database where datname = ${name}) as exists`;
  await admin.end();
  let url: string;
  if (exists) {
    url = withDatabase(embedded.adminUrl, name);
    await runMigrations(url);
  } else url = await createTemplate(embedded.adminUrl, name);
  process.env.DATABASE_URL = url;
  process.env.APP_HOST ??= 'localhost:3000';
  process.env.SESSION_SECRET ??= 'bench-secret-bench-secret-bench-secret-0000';
  process.env.LOG_LEVEL ??= 'silent';
  return { server: { stop: () => embedded.stop() }, reused: exists as boolean };
}

async function main() {
  const { server, reused } = await database();
  const { closeDb, getDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { rebuildAnalytics, projectEvents, PROJECTED_EVENT_TYPES } = await import('../app/models/analytics/projection.server');
  const { rollUpAnalytics, rollupCut } = await import('../app/models/analytics/rollup.server');
  const { PAGE_REPORTS } = await import('../app/models/analytics/page-reports.server');
  const { ANALYTICS_PAGES } = await import('../app/models/analytics/pages');
  const { parseRange } = await import('../app/models/analytics/range.server');

  // Phases done in a kept database (BENCH_DATA_DIR) are not done again: 'events', 'counters'.
  await getDb().execute(sql`create table if not exists bench_state (k text primary key, v text not null)`);
  const done = async (k: string) => (await getDb().execute(sql`select 1 from bench_state where k = ${k}`)).length > 0;
  // BENCH_REDO_COUNTERS=1: write the set-based counters (and the figures the rebuild must give) again on a kept database.
  if (process.env.BENCH_REDO_COUNTERS === '1') await getDb().execute(sql`delete from bench_state where k = 'counters'`);
  const mark = (k: string, v = '') => getDb().execute(sql`insert into bench_state (k, v) values (${k}, ${v}) on conflict (k) do update set v = excluded.v`);
  const inboxes: number[] = [];
  let a: { account: { id: number }; owner: { id: number } };
  if (reused) {
    const [acc] = await getDb().execute<{ id: number; owner: number }>(
      sql`select a.id, (select min(u.id) from users u where u.account_id = a.id) as owner from accounts a where a.domain = 'benchanalytics'`,
    );
    a = { account: { id: Number(acc.id) }, owner: { id: Number(acc.owner) } };
    for (const r of await getDb().execute<{ id: number }>(sql`select id from inboxes where account_id = ${a.account.id} order by id`)) inboxes.push(Number(r.id));
  } else {
    a = await createTestAccount({ domain: 'benchanalytics' });
    for (const name of ['Support', 'Billing', 'Chat'])
      inboxes.push(
        (
          await createInbox({
            accountId: a.account.id,
            actorId: a.owner.id,
            name,
            channelType: name === 'Chat' ? 'web' : 'email',
            ...(name === 'Chat' ? {} : { email: `${name.toLowerCase()}@bench.test` }),
          })
        ).id,
      );
  }
  const accountId = a.account.id;
  // The pages read in the account's zone, which the day roll-up cuts days in.
  await getDb().execute(sql`update accounts set settings = coalesce(settings, '{}'::jsonb) || '{"defaultTimezone":"Europe/Berlin"}'::jsonb where id = ${accountId}`);
  const t0 = Date.now();
  // Conversation n starts at a pseudo-random minute of the last two years; its events follow in time order. Written in
  // slices of 50,000 conversations (one statement each), so 1,000,000 conversations fit in memory.
  const SLICE = 50_000;
  const EXTRA = Number(process.env.BENCH_EXTRA_MESSAGES ?? 7);
  // BENCH_PAGES_ONLY=1: only the counters and the page reads (no event log, rebuild or engine runs).
  const PAGES_ONLY = process.env.BENCH_PAGES_ONLY === '1';
  const haveEvents = await done('events');
  for (let lo = 1; lo <= (PAGES_ONLY || haveEvents ? 0 : CONVERSATIONS); lo += SLICE) {
    const hi = Math.min(CONVERSATIONS, lo + SLICE - 1);
    await getDb().execute(sql`
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select account_id, type, subject_type, subject_id, payload, actor_type, actor_id, at from (
    select ${accountId}::int as account_id, e.type, e.subject_type, e.subject_id, e.payload, e.actor_type, e.actor_id, e.at, e.ord
    from generate_series(${lo}::int, ${hi}::int) n
    cross join lateral (select now() - interval '730 days' + ((n::bigint * 7919) % 1051200) * interval '1 minute' as t0,
      (array[${inboxes[0]}::int, ${inboxes[1]}::int, ${inboxes[2]}::int])[1 + n % 3] as inbox) c
    cross join lateral (values
      ('conversation_created', 'conversation', n::text, jsonb_build_object('inboxId', c.inbox, 'sourceType', case when n % 3 = 2 then 'web' else 'email' end), 'contact', null::int, c.t0, 1),
      ('message_created', 'conversation', n::text, '{"kind":"incoming"}'::jsonb, 'contact', null, c.t0, 2),
      ('conversation_assigned', 'conversation', n::text, jsonb_build_object('assigneeId', ${a.owner.id}::int, 'teamId', null), 'system', null, c.t0 + interval '1 minute', 3),
      ('message_created', 'conversation', n::text, '{"kind":"outgoing"}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 240) * interval '1 minute', 4),
      ('message_created', 'conversation', n::text, '{"kind":"outgoing"}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 240 + 30) * interval '1 minute', 5),
      ('conversation_updated', 'conversation', n::text, '{"changed":{"status":{"from":"open","to":"resolved"}}}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 2880 + 60) * interval '1 minute', 6)
    ) e(type, subject_type, subject_id, payload, actor_type, actor_id, at, ord)
    union all
    -- BENCH_EXTRA_MESSAGES more exchanges per conversation (a customer message, then an agent's reply), after the first
    -- reply and the assignment: 7 makes ~20 events per conversation, the issue's 20,000,000 at 1,000,000.
    select ${accountId}::int, m.type, 'conversation', n::text, m.payload, m.actor_type, m.actor_id, m.at, 7
    from generate_series(${lo}::int, ${hi}::int) n
    cross join lateral (select now() - interval '730 days' + ((n::bigint * 7919) % 1051200) * interval '1 minute' as t0) c
    cross join generate_series(1, ${EXTRA}::int) j
    cross join lateral (values
      ('message_created', '{"kind":"incoming"}'::jsonb, 'contact', null::int, c.t0 + (n % 240 + 30 + 20 * j) * interval '1 minute'),
      ('message_created', '{"kind":"outgoing"}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 240 + 40 + 20 * j) * interval '1 minute')
    ) m(type, payload, actor_type, actor_id, at)
    ) u order by at, ord`);
    await getDb().execute(sql`
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, occurred_at)
    select ${accountId}::int, 'survey_received', 'survey_response', n::text, jsonb_build_object('kind', 'csat', 'rating', 1 + n % 5, 'conversationId', n), 'contact',
      now() - interval '730 days' + ((n::bigint * 7919) % 1051200 + 3000) * interval '1 minute'
    from generate_series(${lo}::int, ${hi}::int) n where n % 3 = 1`);
    if (CONVERSATIONS > SLICE) process.stdout.write(`  ${hi} conversations written (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  if (!PAGES_ONLY) await mark('events');
  if (process.env.BENCH_STOP_AFTER === 'events') {
    await closeDb();
    await server.stop();
    process.exit(0);
  }
  const [{ events }] = await getDb().execute<{ events: number }>(sql`select count(*)::int as events from domain_events where account_id = ${accountId}`);
  console.log(`${CONVERSATIONS} conversations, ${events} events written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // The counters this history implies, written set-based (each conversation's facts are known in closed form: no
  // look-ups in the log). Checked equal to the projection's own rebuild whenever the rebuild runs (up to
  // BENCH_REBUILD_MAX conversations), so at 1,000,000 the pages read the rows the projection would have written.
  const owner = a.owner.id;
  async function synthesize() {
    await getDb().execute(sql`delete from analytics_counters where account_id = ${accountId}`);
    await getDb().execute(sql`delete from analytics_durations where account_id = ${accountId}`);
    for (let lo = 1; lo <= CONVERSATIONS; lo += SLICE) {
      const hi = Math.min(CONVERSATIONS, lo + SLICE - 1);
      await getDb().execute(sql`
      -- Each conversation's times as the log has them (its creation, its rating), not recomputed from now(): the
      -- statements that wrote the log ran at other instants.
      with conv as (
        select n, cc.occurred_at as t0, sv.occurred_at as rated_at,
          ((array[${inboxes[0]}::int, ${inboxes[1]}::int, ${inboxes[2]}::int])[1 + n % 3])::text as inbox,
          case when n % 3 = 2 then 'web' else 'email' end as channel
        from generate_series(${lo}::int, ${hi}::int) n
        cross join lateral (
          select occurred_at from domain_events
          where account_id = ${accountId} and subject_type = 'conversation' and subject_id = n::text and type = 'conversation_created' order by id limit 1
        ) cc
        left join lateral (
          select occurred_at from domain_events
          where account_id = ${accountId} and subject_type = 'survey_response' and subject_id = n::text and type = 'survey_received' order by id limit 1
        ) sv on true
      ),
      facts as (
        select t0 as at, 'conversations' as metric, 0::float8 as total, null::float8 as secs, inbox, channel, null::text as agent from conv
        union all select t0, 'incoming_messages', 0, null, inbox, channel, null from conv
        union all select t0 + (n % 240) * interval '1 minute', 'replies', 0, null, inbox, channel, ${String(owner)} from conv
        union all select t0 + (n % 240 + 30) * interval '1 minute', 'replies', 0, null, inbox, channel, ${String(owner)} from conv
        union all select t0 + (n % 240 + 30 + 20 * j) * interval '1 minute', 'incoming_messages', 0, null, inbox, channel, ${String(owner)} from conv cross join generate_series(1, ${EXTRA}::int) j
        union all select t0 + (n % 240 + 40 + 20 * j) * interval '1 minute', 'replies', 0, null, inbox, channel, ${String(owner)} from conv cross join generate_series(1, ${EXTRA}::int) j
        union all select t0 + (n % 240) * interval '1 minute', m, (n % 240) * 60, (n % 240) * 60, inbox, channel, ${String(owner)} from conv
          cross join (values ('first_response'), ('first_response_bh')) v(m)
        union all select t0 + (n % 2880 + 60) * interval '1 minute', m, (n % 2880 + 60) * 60, (n % 2880 + 60) * 60, inbox, channel, ${String(
          owner,
        )} from conv
          cross join (values ('resolved'), ('resolved_bh')) v(m)
        union all select rated_at, m, 1 + n % 5, null, inbox, channel, ${String(owner)} from conv
          cross join (values ('csat'), ('csat_satisfied')) v(m) where n % 3 = 1 and (m = 'csat' or 1 + n % 5 >= 4)
        -- The surveys page's facts of the same ratings (ADR 102): every dimension but the kind is absent.
        union all select rated_at, m, case when m = 'survey_rated' then 1 + n % 5 else 0 end, null, '~area', null, null from conv
          cross join (values ('survey_responses'), ('survey_rated'), ('csat_rated'), ('survey_satisfied')) v(m) where n % 3 = 1 and (m <> 'survey_satisfied' or 1 + n % 5 >= 4)
      ),
      lines as (
        select date_bin('1 hour', at, timestamptz '2000-01-01 00:00:00+00') as hour, metric, d.dim, d.key, total, secs
        from facts cross join lateral (
          select 'all', ''
          union all select 'kind', 'csat' where inbox = '~area'
          union all select 'inbox', inbox where inbox <> '~area'
          union all select 'channel', channel where inbox <> '~area'
          union all select 'agent', agent where agent is not null
        ) d(dim, key)
      ),
      c as (
        insert into analytics_counters (account_id, metric, dim, key, hour, n, total)
        select ${accountId}, metric, dim, key, hour, count(*), sum(total) from lines group by 2, 3, 4, 5
        on conflict (account_id, metric, dim, key, hour) do update set n = analytics_counters.n + excluded.n, total = analytics_counters.total + excluded.total
        returning 1
      )
      insert into analytics_durations (account_id, metric, dim, key, hour, bin, n)
      select ${accountId}, metric, dim, key, hour, floor(4 * ln(1 + secs) / ln(2))::smallint, count(*) from lines where secs is not null group by 2, 3, 4, 5, 6
      on conflict (account_id, metric, dim, key, hour, bin) do update set n = analytics_durations.n + excluded.n`);
    }
  }
  const snapshot = async () =>
    JSON.stringify([
      await getDb().execute(sql`select metric, dim, key, hour, n, total from analytics_counters where account_id = ${accountId} order by 1, 2, 3, 4`),
      await getDb().execute(sql`select metric, dim, key, hour, bin, n from analytics_durations where account_id = ${accountId} order by 1, 2, 3, 4, 5`),
    ]);
  const REBUILD_MAX = Number(process.env.BENCH_REBUILD_MAX ?? 50_000);
  const KEPT = Boolean(process.env.BENCH_DATA_DIR);
  const secs = (t: number) => ((Date.now() - t) / 1000).toFixed(1);
  let rebuilt: string | null = null;
  if (CONVERSATIONS <= REBUILD_MAX && !PAGES_ONLY && !(await done('counters'))) {
    const r0 = Date.now();
    await rebuildAnalytics({ accountId });
    console.log(`rebuild: ${secs(r0)} s (${((Date.now() - r0) / events).toFixed(3)} ms per event)`);
    rebuilt = await snapshot();
  } else if (!(await done('counters'))) console.log(`rebuild: not run above ${REBUILD_MAX} conversations (BENCH_REBUILD_MAX); the counters are written set-based`);
  if (!(await done('counters'))) {
    const s0 = Date.now();
    await synthesize();
    const [{ rows: counterRows }] = await getDb().execute<{ rows: number }>(
      sql`select count(*)::int as rows from analytics_counters where account_id = ${accountId}`,
    );
    console.log(`counters written set-based: ${secs(s0)} s, ${counterRows} counter rows`);
    // Every event counted, as the engine would have left the ledger (the roll-up only rolls a prefix of counted events).
    const l0 = Date.now();
    await getDb().execute(sql`
      insert into analytics_applied_events (event_id, account_id)
      select id, account_id from domain_events where account_id = ${accountId} and type in (${sql.raw(PROJECTED_EVENT_TYPES.map((t) => `'${t}'`).join(', '))})
      on conflict (event_id) do nothing`);
    console.log(`ledger of counted events written: ${secs(l0)} s`);
    // The figures the rebuild must give again (BENCH_REBUILD=1), kept beside the counters.
    await getDb().execute(sql`drop table if exists bench_expected_counters, bench_expected_durations`);
    await getDb().execute(sql`create table bench_expected_counters as select metric, dim, key, hour, n, total from analytics_counters where account_id = ${accountId}`);
    await getDb().execute(sql`create table bench_expected_durations as select metric, dim, key, hour, bin, n from analytics_durations where account_id = ${accountId}`);
    if (KEPT) await mark('counters', String(counterRows));
  }
  if (rebuilt !== null) {
    const synthetic = await snapshot();
    const same = rebuilt === synthetic;
    if (!same && process.env.BENCH_DUMP) {
      const fs = await import('node:fs');
      fs.writeFileSync(`${process.env.BENCH_DUMP}.rebuilt.json`, rebuilt.replace(/\},\{/g, '},\n{'));
      fs.writeFileSync(`${process.env.BENCH_DUMP}.synthetic.json`, synthetic.replace(/\},\{/g, '},\n{'));
    }
    console.log(`set-based counters identical to the projection's rebuild: ${same ? 'yes' : 'NO'}`);
    if (!same) throw new Error('the set-based counters differ from the rebuild: the bench would not measure the projection’s rows');
  }

  let perEvent = 0;
  if (!PAGES_ONLY && !KEPT) {
    // The engine's path: the last 5,000 events again in batches of 100, as new events (ledger cleared for them).
    const last = await getDb().execute<{ id: number }>(sql`select id from domain_events where account_id = ${accountId} order by id desc limit 5000`);
    const ids = last.map((r) => Number(r.id)).reverse();
    await getDb().execute(sql`delete from analytics_applied_events where event_id = any(${`{${ids.join(',')}}`}::bigint[])`);
    const p0 = Date.now();
    for (let i = 0; i < ids.length; i += 100) await projectEvents({ eventIds: ids.slice(i, i + 100) });
    perEvent = (Date.now() - p0) / ids.length;
    console.log(`engine handler: ${perEvent.toFixed(3)} ms per event in batches of 100 (${(1000 / perEvent).toFixed(0)} events/s on one connection)`);
    await synthesize();
  }

  // The day roll-up (ADR 125): the job's first run rolls every closed day up; its second run finds nothing to do.
  if (process.env.BENCH_ROLLUP_FULL !== '0') await getDb().execute(sql`delete from analytics_rollups where account_id = ${accountId}`);
  const u0 = Date.now();
  const first = await rollUpAnalytics({ accountId });
  console.log(`day roll-up, first run: ${secs(u0)} s for ${first.days} local days (${(await rollupCut({ accountId, tz: 'Europe/Berlin' })) ?? 'no cut'})`);
  const u1 = Date.now();
  const again = await rollUpAnalytics({ accountId });
  console.log(`day roll-up, next run: ${secs(u1)} s for ${again.days} days`);

  const today = new Date().toISOString().slice(0, 10);
  const ago = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
  const fails: string[] = [];
  // BENCH_PAGES=0: no page reads (a rebuild-only run on the kept database).
  for (const [label, days, ceiling] of (process.env.BENCH_PAGES === '0'
    ? []
    : [
        ['90 days', 89, 200],
        ['2 years', 729, 500],
      ]) as [string, number, number][]) {
    for (const p of ANALYTICS_PAGES.filter((x) => x.built)) {
      const search = new URLSearchParams(`range=custom&from=${ago(days)}&to=${today}`);
      // A new range per call, as per request: each call looks its roll-up cut up again.
      const page = () => PAGE_REPORTS[p.slug]({ accountId, range: parseRange({ search, tz: 'Europe/Berlin', page: p }).range, search });
      const row = await measure(`${p.slug}, ${label}`, RUNS, page);
      if (row.p95 > ceiling) fails.push(`${p.slug} ${label}: p95 ${row.p95.toFixed(0)} ms > ${ceiling} ms`);
      if (process.env.BENCH_SAME !== '0') {
        // The same figures from hour rows only (the roll-up's state set aside for one read, in a transaction undone).
        const rolled = JSON.stringify(await page());
        await getDb().execute(sql`update analytics_rollups set time_zone = '(set aside)' where account_id = ${accountId}`);
        const hours = JSON.stringify(await page());
        await getDb().execute(sql`update analytics_rollups set time_zone = 'Europe/Berlin' where account_id = ${accountId}`);
        if (rolled !== hours) fails.push(`${p.slug} ${label}: figures differ with and without the day roll-up`);
      }
    }
  }
  if (process.env.BENCH_SAME !== '0' && process.env.BENCH_PAGES !== '0') console.log(fails.some((f) => f.includes('differ')) ? 'pages: figures DIFFER with and without the day roll-up' : 'pages: the same figures with and without the day roll-up (every page, both ranges)');

  if (process.env.BENCH_REBUILD === '1') {
    // The rebuild of the account from its event log, timed, then compared row for row with the counters written above.
    const r0 = Date.now();
    let last = Date.now();
    const out = await rebuildAnalytics({
      accountId,
      onChunk: (done, of) => {
        if (Date.now() - last > 30_000) {
          last = Date.now();
          console.log(`  rebuild: ${done} of ${of} event ids in ${secs(r0)} s (load ${os.loadavg()[0].toFixed(1)})`);
        }
      },
    });
    console.log(`rebuild of ${out.events} events: ${secs(r0)} s (${((Date.now() - r0) / out.events).toFixed(3)} ms per event), load ${os.loadavg()[0].toFixed(2)}`);
    const [diff] = await getDb().execute<{ c: number; d: number }>(sql`
      select (select count(*) from ((select metric, dim, key, hour, n, total from analytics_counters where account_id = ${accountId} except all select * from bench_expected_counters)
        union all (select * from bench_expected_counters except all select metric, dim, key, hour, n, total from analytics_counters where account_id = ${accountId})) x)::int as c,
        (select count(*) from ((select metric, dim, key, hour, bin, n from analytics_durations where account_id = ${accountId} except all select * from bench_expected_durations)
        union all (select * from bench_expected_durations except all select metric, dim, key, hour, bin, n from analytics_durations where account_id = ${accountId})) x)::int as d`);
    console.log(`rebuilt counters identical to the set-based ones: ${diff.c === 0 && diff.d === 0 ? 'yes' : `NO (${diff.c} counter rows, ${diff.d} histogram rows differ)`}`);
    if (diff.c !== 0 || diff.d !== 0) fails.push('rebuild differs');
  }

  if (!PAGES_ONLY && !KEPT && process.env.BENCH_ENGINE !== '0') await engineComparison();

  async function engineComparison() {
    // 4. The projection's share of the engine's per-event cost, in this run: the same mixed stream of conversation
    // events through the engine (inline, as in `npm start`, with 10 inbox rules evaluated per message), without the
    // analytics handler and with it, alternated ROUNDS times after a warm-up; the difference is what the projection adds.
    const { startEngine } = await import('../engine/index');
    const { HANDLERS } = await import('../engine/handlers/index');
    const { openConversation } = await import('../app/models/inbox/conversations.server');
    const { emitEvents } = await import('../app/models/events/events.server');
    const { schema } = await import('../db/client');
    const ENGINE_EVENTS = Number(process.env.BENCH_ENGINE_EVENTS ?? 3000);
    const ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS ?? 3);
    const analyticsHandler = HANDLERS.find((h) => h.name === 'analytics')!;
    const convIds: number[] = [];
    {
      const engine = await startEngine({ mode: 'inline' });
      for (let i = 0; i < 100; i++) {
        const c = await openConversation({
          accountId,
          inboxId: inboxes[0],
          sourceType: 'email',
          subject: `Order ${i}`,
          contact: { email: `c${i}@bench.test`, name: `Customer ${i}` },
          message: { kind: 'incoming', text: 'Where is my order?' },
        });
        convIds.push(c.conversation.id);
      }
      await drainEvents();
      await getDb()
        .insert(schema.automationRules)
        .values(
          Array.from({ length: 10 }, (_, i) => ({
            accountId,
            kind: 'inbox_rule' as const,
            name: `rule ${i}`,
            event: 'message_created',
            isActive: true,
            sources: [inboxes[0]],
            conditions: [{ field: 'contacts' as const, op: 'equal' as const, value: '-1' }],
            actions: [],
          })),
        );
      await engine.stop();
    }
    async function drainEvents() {
      for (;;) {
        const [row] = await getDb().execute<{ busy: boolean }>(
          sql`select exists (select 1 from pgboss.job where name = 'engine.domain-events' and state in ('created', 'retry', 'active')) as busy`,
        );
        if (!row.busy) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const kinds = ['incoming', 'outgoing', 'status', 'assigned'] as const;
    async function engineRun(withProjection: boolean) {
      const at = HANDLERS.indexOf(analyticsHandler);
      if (!withProjection && at >= 0) HANDLERS.splice(at, 1);
      if (withProjection && at < 0) HANDLERS.push(analyticsHandler);
      const engine = await startEngine({ mode: 'inline' });
      const inputs = Array.from({ length: ENGINE_EVENTS }, (_, i) => {
        const kind = kinds[i % kinds.length];
        const conv = convIds[i % convIds.length];
        if (kind === 'assigned')
          return { accountId, type: 'conversation_assigned', subjectType: 'conversation', subjectId: conv, payload: { assigneeId: a.owner.id, teamId: null } };
        if (kind === 'status')
          return {
            accountId,
            type: 'conversation_updated',
            subjectType: 'conversation',
            subjectId: conv,
            payload: { changed: { status: { from: 'open', to: i % 8 === 2 ? 'resolved' : 'open' } } },
            actor: { type: 'user' as const, id: a.owner.id },
          };
        return {
          accountId,
          type: 'message_created',
          subjectType: 'conversation',
          subjectId: conv,
          payload: { messageId: i, kind },
          actor: kind === 'outgoing' ? { type: 'user' as const, id: a.owner.id } : { type: 'contact' as const, id: null },
        };
      });
      const t = performance.now();
      for (let i = 0; i < inputs.length; i += 500) await getDb().transaction((tx) => emitEvents(tx, inputs.slice(i, i + 500) as never));
      await drainEvents();
      const ms = (performance.now() - t) / ENGINE_EVENTS;
      await engine.stop();
      return ms;
    }
    const without: number[] = [];
    const withP: number[] = [];
    await engineRun(true); // warm-up: the first run pays for the rule cache, the queues and the plans
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await engineRun(false));
      withP.push(await engineRun(true));
    }
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const added = (mean(withP) - mean(without)) / mean(without);
    console.log(`\nengine, ${ENGINE_EVENTS} mixed conversation events per run, ${ROUNDS} runs each, alternated (load ${os.loadavg()[0].toFixed(2)}):`);
    console.log(`  without the analytics handler: ${without.map((v) => v.toFixed(3)).join(', ')} ms per event (${(1000 / mean(without)).toFixed(0)} events/s)`);
    console.log(`  with the analytics handler:    ${withP.map((v) => v.toFixed(3)).join(', ')} ms per event (${(1000 / mean(withP)).toFixed(0)} events/s)`);
    console.log(
      `  the projection adds ${(added * 100).toFixed(1)} % to the engine's per-event cost (ceiling 15 %); the projection statement alone: ${perEvent.toFixed(
        3,
      )} ms per event = ${((100 * perEvent) / mean(without)).toFixed(1)} % of the engine's per-event time without it`,
    );
    if (added > 0.15) fails.push(`projection adds ${(added * 100).toFixed(1)} % > 15 %`);
  }
  console.log(
    `\nload ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const f of fails) console.log(`OVER ${f}`);
  await closeDb();
  await server.stop();
  process.exit(fails.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
