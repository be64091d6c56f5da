/**
 * What the cluster's coordination costs (issue 40, ADR 143): the same work against one Parley process (web and engine
 * inline, straight to PostgreSQL) and against the clustered topology (HAProxy, three web nodes, two engine nodes,
 * PgBouncer), on the same PostgreSQL primary with its synchronous standby, the same data, the same machine, one run.
 *
 * The work, closed-loop with BENCH_CLIENTS clients for BENCH_SECONDS each: an agent loading the inbox page (GET /inbox,
 * signed in) or a customer sending a widget message (each opens a conversation: an event the engine works with 20
 * active workflows), in the proportion BENCH_CHAT_SHARE. Printed per side: requests a second, p50/p95 per kind, and how
 * long the engine took after the last request to finish the workflows of every conversation opened (the engine's
 * throughput is conversations / (window + drain)). Target: the cluster at least 90 % of one process on these 2 cores.
 *
 * BENCH_WEB and BENCH_ENGINES change the cluster's shape (3 web and 2 engine nodes by default); the CPU each part used
 * (as % of one core) is printed for both windows, which shows where coordination costs.
 * Each side gets BENCH_WARMUP seconds of the same load first, not counted, then ANALYZE. BENCH_STATEMENTS=1 loads
 * pg_stat_statements (and auto_explain, PARLEY_CLUSTER_EXPLAIN_MS) into the primary and prints its statements per
 * request of each window: calls, time and blocks read (time includes waiting for a CPU; blocks do not).
 * Run: npm run build && npm run bench:cluster   (BENCH_CLIENTS=16 BENCH_SECONDS=30 BENCH_CHAT_SHARE=0.3 BENCH_WARMUP=15)
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import { startCluster, type Cluster } from '../scripts/cluster';
import { percentile, processCpuMs } from './support';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CHAT_SHARE = Number(process.env.BENCH_CHAT_SHARE ?? 0.3);
/** Load before each measured window, not counted: every side's processes warm their JIT and caches first. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 15);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

type Fixture = Awaited<ReturnType<typeof import('../tests/cluster/traffic').prepareAccount>>;

function request(port: number, opts: { method?: string; path: string; host: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; body: string }>((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: opts.method ?? 'GET', path: opts.path, headers: { host: opts.host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(opts.body);
  });
}

/** BENCH_CLIENTS clients for BENCH_SECONDS against `port` (the proxy, or the one process). */
async function load(c: Cluster, f: Fixture, port: number, label: string, seconds = SECONDS) {
  const times = { page: [] as number[], chat: [] as number[] };
  let failed = 0;
  const conversations: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  const accountHost = `${f.domain}.${c.appHost}`;
  const client = async (n: number) => {
    const from = { 'x-forwarded-for': `10.77.${n}.${crypto.randomInt(1, 250)}` };
    while (Date.now() < deadline) {
      const t0 = performance.now();
      if (Math.random() < CHAT_SHARE) {
        // A new customer each time: a session and the message that opens the conversation.
        const s = await request(port, { method: 'POST', path: '/public/widget/session', host: c.appHost, headers: { 'content-type': 'application/json', ...from }, body: JSON.stringify({ inboxId: f.webInboxId }) });
        if (s.status !== 200) {
          failed++;
          continue;
        }
        const token = JSON.parse(s.body).token as string;
        const form = new URLSearchParams({ text: `${label}: is my order on its way?`, clientId: crypto.randomUUID() }).toString();
        const m = await request(port, { method: 'POST', path: '/public/widget/messages', host: c.appHost, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}`, ...from }, body: form });
        if (m.status !== 200) failed++;
        else {
          conversations.push(Number(JSON.parse(m.body).conversationId));
          times.chat.push(performance.now() - t0);
        }
      } else {
        const r = await request(port, { path: '/inbox', host: accountHost, headers: { cookie: f.cookie } });
        if (r.status !== 200) failed++;
        else times.page.push(performance.now() - t0);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  const windowS = (performance.now() - started) / 1000;
  // The engine's part: every workflow of every conversation opened in the window.
  const sql = postgres(c.serverUrl(), { max: 1, onnotice: () => {} });
  const t1 = performance.now();
  for (;;) {
    const [row] = await sql<{ n: number }[]>`select count(distinct (rule_id, conversation_id))::int as n from automation_run_log
      where account_id = ${f.accountId} and step = 'action_applied' and conversation_id = any(${conversations}::int[])`;
    if (row.n >= conversations.length * 20 || performance.now() - t1 > 300_000) break;
    await sleep(250);
  }
  const drainS = (performance.now() - t1) / 1000;
  await sql.end();
  const requests = times.page.length + times.chat.length * 2;
  return {
    label,
    windowS,
    rps: requests / windowS,
    pages: times.page.length,
    chats: times.chat.length,
    failed,
    pageP50: percentile(times.page, 50),
    pageP95: percentile(times.page, 95),
    chatP50: percentile(times.chat, 50),
    chatP95: percentile(times.chat, 95),
    drainS,
    conversationsPerS: conversations.length / (windowS + drainS),
  };
}

/** CPU time so far (ms) per part of the installation, from /proc: Parley's processes, HAProxy, PgBouncer, PostgreSQL. */
function cpuByPart(c: Cluster, extra: Record<string, number | undefined> = {}) {
  const state = JSON.parse(fs.readFileSync(path.join(c.dir, 'cluster.json'), 'utf8')) as { pids: Record<string, number | undefined> };
  const pids = { ...state.pids, ...extra };
  const read = (pid?: number) => {
    try {
      return pid ? processCpuMs(pid) : 0;
    } catch {
      return 0;
    }
  };
  const children = (pid?: number) => {
    try {
      return pid ? fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
    } catch {
      return [];
    }
  };
  const parts: Record<string, number> = {};
  const add = (part: string, ms: number) => (parts[part] = (parts[part] ?? 0) + ms);
  for (const [name, pid] of Object.entries(pids)) {
    if (name === 'primary' || name === 'standby') for (const p of [pid, ...children(pid)]) add(`postgres ${name}`, read(p));
    else if (name.startsWith('pgbouncer')) add('pgbouncer', read(pid));
    else if (name === 'haproxy') add('haproxy', read(pid));
    else add(name.replace(/-\d+$/, ' nodes'), read(pid));
  }
  return parts;
}

/**
 * The statements the primary ran since the last reset, per request of the window (pg_stat_statements, BENCH_STATEMENTS=1):
 * where the database's time goes on each side.
 */
async function statements(c: Cluster, requests: number, reset: boolean) {
  if (reset) {
    await c.query(`create extension if not exists pg_stat_statements`, 'primary');
    await c.query(`select pg_stat_statements_reset()`, 'primary');
    return [];
  }
  const mine = `dbid = (select oid from pg_database where datname = current_database())`;
  const rows = await c.query<{ query: string; calls: number; ms: number; blocks: number }>(
    `select regexp_replace(left(query, 110), '\\s+', ' ', 'g') as query, sum(calls)::int as calls, sum(total_exec_time)::float as ms,
       sum(shared_blks_hit + shared_blks_read)::float as blocks
     from pg_stat_statements where ${mine} group by 1 order by 3 desc limit 25`,
    'primary',
  );
  const [all] = await c.query<{ calls: number; ms: number; blocks: number }>(`select sum(calls)::int as calls, sum(total_exec_time)::float as ms,
    sum(shared_blks_hit + shared_blks_read)::float as blocks from pg_stat_statements where ${mine}`, 'primary');
  return [
    `    all: ${(all.calls / requests).toFixed(1)} statements, ${(all.ms / requests).toFixed(2)} ms and ${(all.blocks / requests).toFixed(0)} blocks read per request (ms include waiting for a CPU; blocks do not)`,
    ...rows.map((r) => `    ${(r.calls / requests).toFixed(2).padStart(7)} calls ${(r.ms / requests).toFixed(3).padStart(8)} ms ${(r.blocks / requests).toFixed(0).padStart(6)} blocks  ${r.query}`),
  ];
}

function cpuShare(before: Record<string, number>, after: Record<string, number>, seconds: number) {
  return Object.keys(after)
    .map((k) => `${k} ${(((after[k] - (before[k] ?? 0)) / (seconds * 1000)) * 100).toFixed(0)} %`)
    .join(', ');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

async function main() {
  // BENCH_WEB and BENCH_ENGINES: the cluster's shape (3 and 2, as the drills).
  const c = await startCluster({ web: Number(process.env.BENCH_WEB ?? 3), engines: Number(process.env.BENCH_ENGINES ?? 2), pgStatements: process.env.BENCH_STATEMENTS === '1', log: (l) => console.log(`  cluster: ${l}`) });
  try {
    Object.assign(process.env, c.clientEnv());
    const { prepareAccount } = await import('../tests/cluster/traffic');
    // An account of its own for each side, set up alike: each starts from the same data (the inbox's counts and lists
    // grow with the conversations the other side's run opened).
    const fOne = await prepareAccount(c, { domain: 'benchone' });
    const fCluster = await prepareAccount(c, { domain: 'benchcluster' });

    // One process first: the cluster's nodes stopped, one node with its engine inline, straight to the primary.
    for (const n of [...c.nodes.keys()]) await c.stopNode(n);
    const port = await freePort();
    const record = { name: 'single', kind: 'web' as const, port, smtpPort: await freePort() };
    const env = { ...process.env, ...c.nodeEnv(record), PARLEY_ENGINE: 'inline', DATABASE_URL: c.serverUrl('primary'), PARLEY_DB_POOL: '20', PARLEY_JOBS_POOL: '4' };
    const out = fs.openSync(path.join(c.dir, 'logs', 'single.log'), 'a');
    const single = spawn(process.execPath, ['--enable-source-maps', '--max-semi-space-size=64', 'build/server/index.js'], { env, stdio: ['ignore', out, out] });
    for (let i = 0; i < 240; i++) {
      const r = await request(port, { path: '/readyz', host: c.appHost });
      if (r.status === 200) break;
      await sleep(250);
    }
    await sleep(2000);
    await load(c, fOne, port, 'warm-up', WARMUP_SECONDS);
    const withStatements = process.env.BENCH_STATEMENTS === '1';
    // Both sides measured on current statistics: the tables grew from nothing in the warm-up, faster than autovacuum
    // analyses them, and the side measured second would otherwise run on plans made for smaller tables.
    await c.query('analyze', 'primary');
    if (withStatements) await statements(c, 0, true);
    const cpu0 = cpuByPart(c, { single: single.pid });
    const one = await load(c, fOne, port, 'one process');
    const oneStatements = withStatements ? await statements(c, one.pages + one.chats * 2, false) : [];
    const oneCpu = cpuShare(cpu0, cpuByPart(c, { single: single.pid }), one.windowS + one.drainS);
    single.kill('SIGTERM');
    await new Promise((r) => single.once('exit', r));

    for (const n of [...c.nodes.keys()]) await c.startNode(n);
    await sleep(3000);
    await load(c, fCluster, c.ports.proxy, 'warm-up', WARMUP_SECONDS);
    await c.query('analyze', 'primary');
    if (withStatements) await statements(c, 0, true);
    const cpu1 = cpuByPart(c);
    const cluster = await load(c, fCluster, c.ports.proxy, 'cluster');
    const clusterStatements = withStatements ? await statements(c, cluster.pages + cluster.chats * 2, false) : [];
    const clusterCpu = cpuShare(cpu1, cpuByPart(c), cluster.windowS + cluster.drainS);

    const fmt = (n: number) => n.toFixed(1).padStart(8);
    console.log(`\n  ${CLIENTS} clients, ${SECONDS} s each, ${Math.round(CHAT_SHARE * 100)} % new chats (20 workflows each), the rest inbox page loads`);
    console.log(`  ${'side'.padEnd(12)} ${'req/s'.padStart(8)} ${'pages'.padStart(8)} ${'chats'.padStart(8)} ${'failed'.padStart(8)} ${'page p50'.padStart(9)} ${'p95'.padStart(8)} ${'chat p50'.padStart(9)} ${'p95'.padStart(8)} ${'drain s'.padStart(8)} ${'conv/s'.padStart(8)}`);
    for (const r of [one, cluster]) {
      console.log(
        `  ${r.label.padEnd(12)} ${fmt(r.rps)} ${String(r.pages).padStart(8)} ${String(r.chats).padStart(8)} ${String(r.failed).padStart(8)} ${fmt(r.pageP50)}  ${fmt(r.pageP95)} ${fmt(r.chatP50)}  ${fmt(r.chatP95)} ${fmt(r.drainS)} ${fmt(r.conversationsPerS)}`,
      );
    }
    console.log(`\n  CPU (% of one core) during one process's window: ${oneCpu}`);
    console.log(`  CPU (% of one core) during the cluster's window: ${clusterCpu}`);
    if (withStatements) {
      console.log(`\n  The primary's statements during one process's window, per request:\n${oneStatements.join('\n')}`);
      console.log(`\n  The primary's statements during the cluster's window, per request:\n${clusterStatements.join('\n')}`);
    }
    console.log(`\n  cluster / one process: requests ${((cluster.rps / one.rps) * 100).toFixed(0)} %, conversations through the engine ${((cluster.conversationsPerS / one.conversationsPerS) * 100).toFixed(0)} % (target >= 90 %)`);
  } finally {
    await c.stop();
    const { closeDb } = await import('../db/client');
    await closeDb().catch(() => {});
  }
  process.exit(0);
}

void main();
