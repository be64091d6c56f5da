/**
 * Pages at a share of the ceiling (issue 23). The compiled production server (child process, engine off) and the
 * ceiling app of `bench/ceiling` (a bare Remix 2 page rendering the inbox list's 50 rows from memory, same Remix,
 * React and Express) are loaded with autocannon at the same concurrency, one after the other, in the same run.
 * Printed per page: requests/s, latency p50/p97.5/p99, and its share of the ceiling beside the target (inbox list
 * >= 25 %, every other signed-in screen >= 30 %).
 * Run: npm run build && npm run bench:pages   (BENCH_CONNECTIONS=10 BENCH_SECONDS=10 BENCH_ROUNDS=3 BENCH_CONVERSATIONS=1000)
 * The inbox list at two sizes in one run (issue 23's 100k ratio): BENCH_PAGES=inbox BENCH_CONVERSATIONS=1000,100000
 * The page and the ceiling alternate in BENCH_ROUNDS short slots, so both see the same load (ADR 110); the page's
 * HTML is weighed (raw and gzipped). BENCH_BEFORE_DIR=/path/to/another/checkout (built) adds its server to the same
 * rounds, for before/after figures from one run.
 * Where the time goes: BENCH_PAGES=settings (labels that contain it) BENCH_PROFILE=/tmp/prof writes the server's CPU
 * profile there (open it in Chrome's DevTools, or `npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile`).
 * BENCH_NODE_ARGS="--flag ...": more node flags for the server under test (not the "before" one), to try a runtime setting.
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, postgresCpuMs, processCpuMs, seedPagesAccount, startCeiling, startCompiledServer } from './support';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// BENCH_CONVERSATIONS=1000,100000: one account per size, the inbox list of each measured in the same rounds (the
// first size's account serves the other pages).
const SIZES = (process.env.BENCH_CONVERSATIONS ?? '1000').split(',').map(Number);
const CONVERSATIONS = SIZES[0];
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 5000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const db0 = await benchDatabase('pages');
  const { getDb, closeDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { sessionCookie } = await import('../tests/helpers/http');
  const db = getDb();
  const { account, owner, real } = await seedPagesAccount({ conversations: CONVERSATIONS, contacts: CONTACTS });
  const accountId = account.id;
  // BENCH_EXPLAIN=1: the inbox list's own statements, explained at this size (after one page view, as the bench sees them).
  const explain = async (label: string) => {
    if (process.env.BENCH_EXPLAIN !== '1') return;
    const plans: [string, ReturnType<typeof sql>][] = [
      ['list ids', sql`select id from conversations where account_id = ${accountId} and deleted_at is null and status = 'open' order by last_message_at desc, id desc limit 50`],
      ['side panel counts (deltas)', sql`select status, inbox_id, coalesce(sum(n) filter (where account_id = ${accountId}), 0)::int, count(*)::int from conversation_count_deltas where account_id = ${accountId} group by status, inbox_id`],
    ];
    for (const [name, q] of plans) {
      const r = await db.execute<Record<string, string>>(sql`explain (analyze, buffers) ${q}`);
      console.log(`\n-- ${label}: ${name}\n${r.map((x) => x['QUERY PLAN']).join('\n')}`);
    }
    const stats = await db.execute(sql`select relname, n_live_tup, n_dead_tup, last_autovacuum, last_autoanalyze from pg_stat_user_tables where relname in ('conversations', 'conversation_count_deltas')`);
    console.log(stats);
  };
  await explain('after seeding');

  const serverEnv = {
    DATABASE_URL: process.env.DATABASE_URL!,
    APP_HOST: process.env.APP_HOST!,
    SESSION_SECRET: process.env.SESSION_SECRET!,
    PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR!,
  };
  const server = await startCompiledServer({ env: serverEnv, nodeArgs: [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])] });
  // BENCH_BEFORE_DIR: another checkout's build (an older commit), loaded in the same rounds for before/after figures.
  const before = process.env.BENCH_BEFORE_DIR ? await startCompiledServer({ cwd: process.env.BENCH_BEFORE_DIR, env: serverEnv }) : null;
  const targets = [...(before ? [{ name: 'before', server: before }] : []), { name: before ? 'after' : 'parley', server }];
  const ceiling = await startCeiling();
  const host = `${account.domain}.${process.env.APP_HOST}`;
  const cookie = await sessionCookie({ domain: account.domain, accountId, userId: owner.id });
  const more: [string, string, boolean, number, { host: string; cookie: string }][] = [];
  for (const n of SIZES.slice(1)) {
    const other = await seedPagesAccount({ conversations: n, contacts: CONTACTS, domain: `benchpages${n}` });
    const otherHost = `${other.account.domain}.${process.env.APP_HOST}`;
    more.push([`inbox list (50 rows) at ${n.toLocaleString('en')} conversations`, '/inbox', true, 25, { host: otherHost, cookie: await sessionCookie({ domain: other.account.domain, accountId: other.account.id, userId: other.owner.id }) }]);
  }
  const allPages: [string, string, boolean, number, { host: string; cookie: string }?][] = [
    [`inbox list (50 rows)${SIZES.length > 1 ? ` at ${CONVERSATIONS.toLocaleString('en')} conversations` : ''}`, '/inbox', true, 25],
    ...more,
    ['conversation', `/inbox/${real.conversation.id}`, true, 30],
    ['contact list', '/customers', true, 30],
    ['settings', '/settings/account-settings', true, 30],
    ['sign-in (no session)', '/signin', false, 30],
  ];
  const pages = allPages.filter(([label]) => !process.env.BENCH_PAGES || label.includes(process.env.BENCH_PAGES));
  // Each page answers 200 first (Node's fetch drops the Host header: a plain request), and its HTML is weighed.
  const { default: http } = await import('node:http');
  const { gzipSync } = await import('node:zlib');
  const get = (port: number, p: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: Buffer }>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port, path: p, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      }).on('error', reject),
    );
  const weight = new Map<string, string>();
  for (const t of targets)
    for (const [label, p, signed, , as] of pages) {
      const r = await get(t.server.port, p, { host: as?.host ?? host, ...(signed ? { cookie: as?.cookie ?? cookie } : {}) });
      if (r.status !== 200) throw new Error(`${t.name} ${p}: ${r.status}`);
      weight.set(`${t.name} ${label}`, `${(r.body.length / 1024).toFixed(1)} KB (${(gzipSync(r.body).length / 1024).toFixed(1)} gz)`);
    }
  await explain('after the first page views');
  const ceilingPage = await get(ceiling.port, '/', {});
  const ceilingWeight = `${(ceilingPage.body.length / 1024).toFixed(1)} KB (${(gzipSync(ceilingPage.body).length / 1024).toFixed(1)} gz)`;

  // Database transactions per request (each statement outside a transaction is one): PostgreSQL's own counter,
  // read after it has flushed (it reports at most once a second).
  const transactions = async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const [row] = await db.execute<{ n: string }>(sql`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`);
    return Number(row.n);
  };
  // BENCH_STATEMENTS=1: each page's statements per request from pg_stat_statements
  // (needs PARLEY_PG_FLAGS="-c shared_preload_libraries=pg_stat_statements").
  const STATEMENTS = process.env.BENCH_STATEMENTS === '1';
  if (STATEMENTS) await db.execute(sql`create extension if not exists pg_stat_statements`);
  // CPU per request of the server process and of PostgreSQL (all its processes), in the transactions slot below.
  const pgCpu = await postgresCpuMs(db as never);

  // The machine's load swings within seconds (other work shares it), so a page is never compared with a ceiling
  // measured minutes apart: each page runs in ROUNDS short slots, each slot right after one of the ceiling's, and
  // its share is against the ceiling's slots of those same rounds.
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
  const slot = Math.max(1, Math.round(SECONDS / ROUNDS));
  type Row = { label: string; target: string; weight: string; rps: number; ceiling: number; p50: number; p99: number; non2xx: number; tx?: number; cpu?: { server: number; pg: number } };
  const rows: Row[] = [];
  const background: number[] = [];
  const shot = async (url: string, headers: Record<string, string>, duration: number) => {
    const r = await autocannon({ url, connections: CONNECTIONS, duration, headers });
    const requests = r.requests as unknown as { total: number; sent: number };
    // `sent` counts the requests still in flight when the slot ends too: the server runs them (and their
    // statements) all the same, so transactions per request divide by it (at low rates they weigh a lot).
    return { n: requests.total, sent: requests.sent ?? requests.total, s: duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
  };
  for (const [label, p, signed, target, as] of pages) {
    const headers = { host: as?.host ?? host, ...(signed ? { cookie: as?.cookie ?? cookie } : {}) };
    const ceilingUrl = `http://127.0.0.1:${ceiling.port}/`;
    // A short warm-up so that JIT and pools are hot for every side alike.
    await shot(ceilingUrl, {}, 2);
    for (const t of targets) await shot(`http://127.0.0.1:${t.server.port}${p}`, headers, 2);
    const sums = new Map<string, { n: number; s: number; p50: number[]; p99: number[]; non2xx: number }>();
    const add = (k: string, r: Awaited<ReturnType<typeof shot>>) => {
      const m = sums.get(k) ?? { n: 0, s: 0, p50: [], p99: [], non2xx: 0 };
      m.n += r.n;
      m.s += r.s;
      m.p50.push(r.p50);
      m.p99.push(r.p99);
      m.non2xx += r.non2xx;
      sums.set(k, m);
    };
    for (let round = 0; round < ROUNDS; round++) {
      add('ceiling', await shot(ceilingUrl, {}, slot));
      for (const t of targets) add(t.name, await shot(`http://127.0.0.1:${t.server.port}${p}`, headers, slot));
    }
    const c = sums.get('ceiling')!;
    const ceilingRps = c.n / c.s;
    // The ceiling's own CPU per request, in one more slot of it alone.
    const ceilingCpu0 = processCpuMs(ceiling.pid);
    const ceilingExtra = await shot(ceilingUrl, {}, 3);
    const ceilingCpu = { server: (processCpuMs(ceiling.pid) - ceilingCpu0) / ceilingExtra.sent, pg: 0 };
    rows.push({ label: `${label} -- its ceiling`, target: '', weight: ceilingWeight, rps: ceilingRps, ceiling: ceilingRps, p50: median(c.p50), p99: median(c.p99), non2xx: c.non2xx, cpu: ceilingCpu });
    for (const t of targets) {
      const m = sums.get(t.name)!;
      // Transactions per request: one more slot of this target alone, between two reads of the counter.
      // The server's own background work (pg-boss polling its queues, the live feed) commits transactions with no
      // request at all; at a lower request rate they weigh more per request. The same window (3 s, plus the 1.1 s flush wait) with no requests is
      // measured first and taken off, so the figure is the page's own.
      const idle0 = await transactions();
      await new Promise((r) => setTimeout(r, 3000));
      const idleTx = (await transactions()) - idle0;
      if (STATEMENTS) await db.execute(sql`select pg_stat_statements_reset()`);
      const tx0 = await transactions();
      const cpu0 = { server: t.server.cpuMs(), pg: pgCpu() };
      const extra = await shot(`http://127.0.0.1:${t.server.port}${p}`, headers, 3);
      const cpu = { server: (t.server.cpuMs() - cpu0.server) / extra.sent, pg: (pgCpu() - cpu0.pg) / extra.sent };
      const txAll = (await transactions()) - tx0;
      const tx = (txAll - idleTx) / extra.sent;
      background.push(idleTx / 4.1);
      rows.push({ label: `${label}${targets.length > 1 ? ` [${t.name}]` : ''}`, target: String(target), weight: weight.get(`${t.name} ${label}`)!, rps: m.n / m.s, ceiling: ceilingRps, p50: median(m.p50), p99: median(m.p99), non2xx: m.non2xx, tx, cpu });
      if (STATEMENTS) {
        const stmts = await db.execute<{ calls: number; mean: number; query: string }>(sql`
          select calls::int, mean_exec_time as mean, regexp_replace(query, '[[:space:]]+', ' ', 'g') as query from pg_stat_statements
           where dbid = (select oid from pg_database where datname = current_database()) order by calls desc limit 30`);
        console.log(`\n${label} [${t.name}]: statements per request`);
        for (const st of stmts) if (st.calls / extra.sent >= 0.05) console.log(`  ${(st.calls / extra.sent).toFixed(2).padStart(6)}  ${Number(st.mean).toFixed(2).padStart(7)} ms  ${st.query.slice(0, 150)}`);
      }
    }
  }
  const rss = targets.map((t) => `${t.name} ${t.server.rssMiB().toFixed(0)} MiB`).join(', ');
  for (const t of targets) await t.server.stop();
  await ceiling.stop();

  const f = (n: number, w = 7) => n.toFixed(1).padStart(w);
  console.log(`\nPages against the ceiling, c=${CONNECTIONS}, ${ROUNDS} rounds of ${slot} s per page, each slot after one of the ceiling's; ${SIZES.join(' and ')} conversations, ${CONTACTS} contacts (compiled server, NODE_ENV=production, engine off)`);
  console.log(`${'page'.padEnd(44)} ${'HTML'.padEnd(20)}  req/s  ceiling     p50     p99 ms   share (target)              db tx/request   CPU ms/request: server, PostgreSQL`);
  const cpuCols = (r: Row) => (r.cpu ? `   ${r.cpu.server.toFixed(2).padStart(6)} ${r.cpu.pg.toFixed(2).padStart(6)}` : '');
  for (const r of rows) {
    if (!r.target) {
      console.log(`${r.label.padEnd(44)} ${r.weight.padEnd(20)} ${f(r.rps)}          ${f(r.p50)} ${f(r.p99)}${' '.repeat(49)}${cpuCols(r)}`);
      continue;
    }
    const share = (100 * r.rps) / r.ceiling;
    const target = Number(r.target);
    console.log(`${r.label.padEnd(44)} ${r.weight.padEnd(20)} ${f(r.rps)} ${f(r.ceiling)} ${f(r.p50)} ${f(r.p99)}    ${f(share, 5)} % (>= ${target} %: ${share >= target ? 'met    ' : 'NOT met'})   ${(r.tx ?? 0).toFixed(1).padStart(5)}${cpuCols(r)}${r.non2xx ? `  ${r.non2xx} non-2xx!` : ''}`);
  }
  if (SIZES.length > 1) {
    const share = (r: Row) => r.rps / r.ceiling;
    const server = (r: Row) => r.label.match(/\[(\w+)\]$/)?.[1] ?? '';
    // Each server's inbox list at every size against its own at the first size.
    const inbox = rows.filter((r) => r.target && r.label.startsWith('inbox list'));
    for (const r of inbox) {
      const first = inbox.find((x) => server(x) === server(r))!;
      if (first === r) continue;
      const ratio = share(r) / share(first);
      console.log(`${r.label}: ${ratio.toFixed(2)}x the share at ${CONVERSATIONS.toLocaleString('en')} (target >= 0.8x: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
    }
  }
  console.log(`server RSS after the run: ${rss}; background transactions with no request (taken off db tx/request): ${background.map((b) => b.toFixed(1)).join(', ')} per second`);

  const { stopBoss } = await import('../app/utils/jobs.server');
  await stopBoss();
  await closeDb();
  await db0.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
