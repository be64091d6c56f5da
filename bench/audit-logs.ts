/**
 * Audit logs (issue 18). Ceiling: with 5,000,000 events in one account, the filtered list (one page and its capped
 * count, as the page loads it) p95 < 200 ms, for each filter the screen offers.
 * Run: npm run bench:audit   (BENCH_SCALE=0.1 for 500,000 events)
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { benchDatabase, measure } from './support';

const EVENTS = Math.round(5_000_000 * Number(process.env.BENCH_SCALE ?? 1));

async function main() {
  const server = await benchDatabase('audit');
  const { getDb, closeDb } = await import('../db/client');
  const { createTestAccount, createTestUser } = await import('../tests/factories');
  const { listAuditEntries, AUDITED_TYPES } = await import('../app/models/audit/audit-logs.server');
  const db = getDb();
  const a = await createTestAccount({ domain: 'benchaudit' });
  const users = [a.owner.id];
  for (let i = 0; i < 19; i++) users.push((await createTestUser({ accountId: a.account.id, roleKind: 'agent', email: `agent${i}@bench.test` })).id);
  const other = await createTestAccount({ domain: 'benchauditother' });
  const types = AUDITED_TYPES.slice(0, 60);
  const t0 = Date.now();
  // One statement per million rows: a year of events, 20 actors, 60 event types, a small payload with before/after.
  for (let done = 0; done < EVENTS; done += 1_000_000) {
    const n = Math.min(1_000_000, EVENTS - done);
    await db.execute(sql`insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at, ip, user_agent)
      select ${a.account.id}, (${sql.raw(`array[${types.map((t) => `'${t}'`).join(',')}]`)})[1 + (g % ${types.length})],
        split_part((${sql.raw(`array[${types.map((t) => `'${t}'`).join(',')}]`)})[1 + (g % ${types.length})], '_', 1), (g % 5000)::text,
        jsonb_build_object('before', jsonb_build_object('name', 'old ' || g), 'after', jsonb_build_object('name', 'new ' || g)),
        case when g % 10 = 0 then 'engine' else 'user' end, case when g % 10 = 0 then null else (${sql.raw(`array[${users.join(',')}]`)})[1 + (g % 20)] end,
        now() - ((g::float / ${EVENTS}::int) * interval '365 days'), '203.0.113.' || (g % 250), 'Mozilla/5.0 bench'
      from generate_series(${done + 1}::int, ${done + n}::int) g`);
  }
  // Another account's events share the table (tenancy is in every query).
  await db.execute(sql`insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, occurred_at)
    select ${other.account.id}, 'tag_updated', 'tag', g::text, '{}', 'system', now() - (g * interval '1 minute') from generate_series(1, ${Math.round(EVENTS / 10)}::int) g`);
  await db.execute(sql`vacuum analyze domain_events`);
  console.log(`${EVENTS.toLocaleString('en')} events written and analysed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  const accountId = a.account.id;
  const cases: [string, Parameters<typeof listAuditEntries>[0]['filters'], number][] = [
    ['no filter, page 1', {}, 1],
    ['no filter, page 200', {}, 200],
    ['by event type', { type: types[7] }, 1],
    ['by actor', { actor: String(users[5]) }, 1],
    ['by automation (engine)', { actor: 'engine' }, 1],
    ['by object and id', { subjectType: 'tag', subjectId: '42' }, 1],
    ['by date range (one week, 3 months ago)', { from: day(-97), to: day(-90) }, 1],
    ['actor + type + date range', { actor: String(users[3]), type: types[3], from: day(-200), to: day(-10) }, 1],
  ];
  const rows: { label: string; p95: number }[] = [];
  for (const [label, filters, page] of cases) {
    const r = await measure(`audit list: ${label}`, 40, () => listAuditEntries({ accountId, filters, page }));
    rows.push({ label, p95: r.p95 });
  }
  console.log(`\nload ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let failed = 0;
  for (const row of rows) {
    const ok = row.p95 < 200;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${`filtered list p95, ${row.label}`.padEnd(62)} ${row.p95.toFixed(1).padStart(8)} ms  ceiling 200 ms`);
  }
  await closeDb();
  await server.stop();
  process.exit(failed ? 1 : 0);
}

function day(offset: number) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
