/**
 * Analytics (issue 21): an account with BENCH_CONVERSATIONS conversations (default 20,000; the issue's target is
 * 1,000,000 with 20,000,000 events) spread over two years, each with its events (created, assigned, an incoming
 * message, two replies, resolved; some rated, some breached: ~6.5 events each), written straight into the event log.
 * Prints: the rebuild time; the per-event cost of the engine's batch statement (batches of 100); p95 of every built
 * page's figures (the loader's work) for a 90-day and a two-year range. Ceilings: 200 ms (90 days), 500 ms (2 years).
 * Run: npm run bench:analytics
 */
import os from 'node:os';
import { benchDatabase, measure } from './support';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

async function main() {
  const server = await benchDatabase('analytics');
  const { closeDb, getDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { rebuildAnalytics, projectEvents } = await import('../app/models/analytics/projection.server');
  const { PAGE_REPORTS } = await import('../app/models/analytics/page-reports.server');
  const { ANALYTICS_PAGES } = await import('../app/models/analytics/pages');
  const { parseRange } = await import('../app/models/analytics/range.server');

  const a = await createTestAccount({ domain: 'benchanalytics' });
  const accountId = a.account.id;
  const inboxes = [];
  for (const name of ['Support', 'Billing', 'Chat']) inboxes.push((await createInbox({ accountId, actorId: a.owner.id, name, channelType: name === 'Chat' ? 'web' : 'email', ...(name === 'Chat' ? {} : { email: `${name.toLowerCase()}@bench.test` }) })).id);
  const t0 = Date.now();
  // Conversation n starts at a pseudo-random minute of the last two years; its events follow in time order.
  await getDb().execute(sql`
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select ${accountId}::int, e.type, e.subject_type, e.subject_id, e.payload, e.actor_type, e.actor_id, e.at
    from generate_series(1, ${CONVERSATIONS}::int) n
    cross join lateral (select now() - interval '730 days' + ((n * 7919) % 1051200) * interval '1 minute' as t0,
      (array[${inboxes[0]}::int, ${inboxes[1]}::int, ${inboxes[2]}::int])[1 + n % 3] as inbox) c
    cross join lateral (values
      ('conversation_created', 'conversation', n::text, jsonb_build_object('inboxId', c.inbox, 'sourceType', case when n % 3 = 2 then 'web' else 'email' end), 'contact', null::int, c.t0, 1),
      ('message_created', 'conversation', n::text, '{"kind":"incoming"}'::jsonb, 'contact', null, c.t0, 2),
      ('conversation_assigned', 'conversation', n::text, jsonb_build_object('assigneeId', ${a.owner.id}::int, 'teamId', null), 'system', null, c.t0 + interval '1 minute', 3),
      ('message_created', 'conversation', n::text, '{"kind":"outgoing"}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 240) * interval '1 minute', 4),
      ('message_created', 'conversation', n::text, '{"kind":"outgoing"}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 240 + 30) * interval '1 minute', 5),
      ('conversation_updated', 'conversation', n::text, '{"changed":{"status":{"from":"open","to":"resolved"}}}'::jsonb, 'user', ${a.owner.id}::int, c.t0 + (n % 2880 + 60) * interval '1 minute', 6)
    ) e(type, subject_type, subject_id, payload, actor_type, actor_id, at, ord)
    order by e.at, e.ord`);
  await getDb().execute(sql`
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, occurred_at)
    select ${accountId}::int, 'survey_received', 'survey_response', n::text, jsonb_build_object('kind', 'csat', 'rating', 1 + n % 5, 'conversationId', n), 'contact',
      now() - interval '730 days' + ((n * 7919) % 1051200 + 3000) * interval '1 minute'
    from generate_series(1, ${CONVERSATIONS}::int, 3) n`);
  const [{ events }] = await getDb().execute<{ events: number }>(sql`select count(*)::int as events from domain_events where account_id = ${accountId}`);
  console.log(`${CONVERSATIONS} conversations, ${events} events written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const r0 = Date.now();
  await rebuildAnalytics({ accountId });
  console.log(`rebuild: ${((Date.now() - r0) / 1000).toFixed(1)} s (${((Date.now() - r0) / events).toFixed(3)} ms per event)`);

  // The engine's path: the last 5,000 events again in batches of 100, as new events (ledger cleared for them).
  const last = await getDb().execute<{ id: number }>(sql`select id from domain_events where account_id = ${accountId} order by id desc limit 5000`);
  const ids = last.map((r) => Number(r.id)).reverse();
  await getDb().execute(sql`delete from analytics_applied_events where event_id = any(${`{${ids.join(',')}}`}::bigint[])`);
  const p0 = Date.now();
  for (let i = 0; i < ids.length; i += 100) await projectEvents({ eventIds: ids.slice(i, i + 100) });
  const perEvent = (Date.now() - p0) / ids.length;
  console.log(`engine handler: ${perEvent.toFixed(3)} ms per event in batches of 100 (${(1000 / perEvent).toFixed(0)} events/s on one connection)`);
  await rebuildAnalytics({ accountId });

  const today = new Date().toISOString().slice(0, 10);
  const ago = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
  const fails: string[] = [];
  for (const [label, days, ceiling] of [
    ['90 days', 89, 200],
    ['2 years', 729, 500],
  ] as const) {
    for (const p of ANALYTICS_PAGES.filter((x) => x.built)) {
      const search = new URLSearchParams(`range=custom&from=${ago(days)}&to=${today}`);
      const { range } = parseRange({ search, tz: 'Europe/Berlin', page: p });
      const row = await measure(`${p.slug}, ${label}`, RUNS, () => PAGE_REPORTS[p.slug]({ accountId, range, search }));
      if (row.p95 > ceiling) fails.push(`${p.slug} ${label}: p95 ${row.p95.toFixed(0)} ms > ${ceiling} ms`);
    }
  }
  console.log(`\nload ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const f of fails) console.log(`OVER ${f}`);
  await closeDb();
  await server.stop();
  process.exit(fails.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
