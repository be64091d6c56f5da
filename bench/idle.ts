/**
 * What an idle Parley costs (ADR 142): the compiled server (`npm run serve`) with a fresh embedded PostgreSQL, no
 * requests. After it is healthy and has settled (BENCH_SETTLE_MS), for BENCH_WINDOW_MS: the CPU time of each Parley
 * process and of the PostgreSQL server's processes (its backends, found by their client ports, and its own helpers:
 * checkpointer, walwriter...), as % of one core; the commits a second of the `parley` database (pg_stat_database,
 * less the bench's own read). Then the engine's wake-up: a job queued with no delay (a domain event) and a job queued
 * for 3 s later (a snooze wake-up), each through the app's own enqueueInTx, timed from its due time to its start and
 * completion (pgboss.job's own timestamps, so the database's clock on both sides).
 *
 * Variants (BENCH_VARIANTS, comma-separated): `full` (web + inline engine, as `npm start`), `web` (PARLEY_ENGINE=off),
 * `engine` (the web with PARLEY_ENGINE=off beside `node build/server/engine.js`: an engine node of a cluster).
 * BENCH_STATEMENTS=1 loads pg_stat_statements and lists what ran during the window.
 * Target: under 1 % of a core (Parley and its PostgreSQL together) and under 2 commits a second per idle node.
 * Run: npm run build && npm run bench:idle
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { percentile, processCpuMs, serveNodeFlags } from './support';

const VARIANTS = (process.env.BENCH_VARIANTS ?? 'full,web,engine').split(',').map((v) => v.trim()).filter(Boolean);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 20_000);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 60_000);
const PROBES = Number(process.env.BENCH_PROBES ?? 5);
const STATEMENTS = process.env.BENCH_STATEMENTS === '1';
const DELAY_MS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

type Node = { name: string; child: ChildProcess; log: string[] };

function spawnNode(name: string, script: string, env: NodeJS.ProcessEnv): Node {
  const child = spawn(process.execPath, [...serveNodeFlags(), ...(process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean), script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  const keep = (d: Buffer) => {
    log.push(String(d));
    if (log.length > 200) log.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { name, child, log };
}

async function health(port: number): Promise<{ database?: string; engine?: string } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return (await res.json()) as { database?: string; engine?: string };
  } catch {
    return null;
  }
}

async function waitFor(what: string, nodes: Node[], ok: () => Promise<boolean>) {
  const t0 = Date.now();
  for (;;) {
    for (const n of nodes) if (n.child.exitCode !== null) throw new Error(`${n.name} exited with ${n.child.exitCode}: ${n.log.join('').slice(-1500)}`);
    if (await ok()) return;
    if (Date.now() - t0 > 120_000) throw new Error(`${what} not within 120 s`);
    await sleep(100);
  }
}

/** Local ports of the TCP sockets a process holds: what PostgreSQL sees as its backends' client ports. */
function socketPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed while we read
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || !inodes.has(cols[9])) continue;
      ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return ports;
}

function postgresPids(postmaster: number): number[] {
  const pids = [postmaster];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(pid));
    } catch {
      // ended while we read
    }
  }
  return pids;
}

function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, processCpuMs(pid));
    } catch {
      // ended
    }
  }
  return out;
}

type Snapshot = { commits: number; backends: { pid: number; port: number | null; kind: string }[] };

async function snapshot(sql: postgres.Sql): Promise<Snapshot> {
  // One statement (one commit): the database's commits and who is connected.
  const [row] = await sql<{ commits: string; backends: { pid: number; port: number | null; kind: string }[] }[]>`
    select (select xact_commit from pg_stat_database where datname = current_database()) as commits,
           (select json_agg(json_build_object('pid', pid, 'port', client_port, 'kind', backend_type)) from pg_stat_activity) as backends`;
  return { commits: Number(row.commits), backends: row.backends };
}

type Result = {
  variant: string;
  cpu: { name: string; nodePct: number; backendsPct: number }[];
  pgOtherPct: number;
  commitsPerSec: number;
  statements?: { calls: number; query: string }[];
  immediate?: { startMs: number[]; doneMs: number[] };
  delayed?: { startMs: number[]; doneMs: number[] };
};

async function runVariant(variant: string): Promise<Result> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-idle-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    APP_HOST: `localhost:${port}`,
    SMTP_INBOUND_PORT: '0',
    PARLEY_DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'warn',
    PARLEY_ENGINE: variant === 'full' ? 'inline' : 'off',
  };
  delete env.DATABASE_URL;
  if (STATEMENTS) env.PARLEY_PG_FLAGS = `${env.PARLEY_PG_FLAGS ?? ''} -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all`.trim();
  const nodes: Node[] = [spawnNode(variant === 'full' ? 'web + engine' : 'web', 'build/server/index.js', env)];
  let sql: postgres.Sql | undefined;
  try {
    await waitFor('the web server', nodes, async () => (await health(port))?.database === 'up');
    if (variant === 'engine') nodes.push(spawnNode('engine', 'build/server/engine.js', env));
    if (variant !== 'web') await waitFor('the engine', nodes, async () => (await health(port))?.engine === 'up');
    const { runningEmbeddedUrl } = await import('../db/embedded');
    const url = runningEmbeddedUrl(dataDir);
    if (!url) throw new Error('the embedded PostgreSQL is not running');
    sql = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
    const [{ dir, me }] = await sql<{ dir: string; me: number }[]>`select current_setting('data_directory') as dir, pg_backend_pid() as me`;
    const postmaster = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (STATEMENTS) await sql`create extension if not exists pg_stat_statements`;
    await sleep(SETTLE_MS);
    if (STATEMENTS) await sql`select pg_stat_statements_reset()`;

    const nodeCpu0 = cpuOf(nodes.map((n) => n.child.pid!));
    const pgCpu0 = cpuOf(postgresPids(postmaster));
    const s0 = await snapshot(sql);
    const t0 = performance.now();
    await sleep(WINDOW_MS);
    const s1 = await snapshot(sql);
    const elapsed = performance.now() - t0;
    const nodeCpu1 = cpuOf(nodes.map((n) => n.child.pid!));
    const pgCpu1 = cpuOf(postgresPids(postmaster));
    const pct = (ms: number) => (ms / elapsed) * 100;

    // Each PostgreSQL process's CPU in the window (one that started during it counts whole).
    const pgUsed = new Map<number, number>();
    for (const [pid, ms] of pgCpu1) pgUsed.set(pid, ms - (pgCpu0.get(pid) ?? 0));
    pgUsed.delete(me);
    const portOf = new Map<number, number | null>();
    for (const b of [...s0.backends, ...s1.backends]) portOf.set(b.pid, b.port);
    const cpu = nodes.map((n) => {
      const ports = socketPorts(n.child.pid!);
      let backends = 0;
      for (const [pid, ms] of pgUsed) {
        const p = portOf.get(pid);
        if (p != null && ports.has(p)) {
          backends += ms;
          pgUsed.delete(pid);
        }
      }
      return { name: n.name, nodePct: pct((nodeCpu1.get(n.child.pid!) ?? 0) - (nodeCpu0.get(n.child.pid!) ?? 0)), backendsPct: pct(backends) };
    });
    const pgOtherPct = pct([...pgUsed.values()].reduce((a, b) => a + b, 0));
    // The first snapshot's own commit is in the second one's count.
    const commitsPerSec = (s1.commits - s0.commits - 1) / (elapsed / 1000);

    let statements: Result['statements'];
    if (STATEMENTS) {
      statements = (
        await sql<{ calls: string; query: string }[]>`
          select calls, query from pg_stat_statements
           where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_%'
           order by calls desc limit 20`
      ).map((r) => ({ calls: Number(r.calls), query: r.query.replace(/\s+/g, ' ').slice(0, 110) }));
    }

    const result: Result = { variant, cpu, pgOtherPct, commitsPerSec, statements };
    if (variant !== 'web') Object.assign(result, await wakeUps(url, sql));
    return result;
  } finally {
    await sql?.end({ timeout: 5 }).catch(() => {});
    for (const n of [...nodes].reverse()) {
      if (n.child.exitCode !== null) continue;
      n.child.kill('SIGTERM');
      await new Promise((r) => n.child.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The engine's answer to new work, through the app's own enqueue (its NOTIFY included): jobs with no delay (a domain
 * event no handler wants) and jobs due DELAY_MS later (a snooze wake-up of no conversation), one at a time, the engine
 * idle before each.
 */
async function wakeUps(url: string, sql: postgres.Sql) {
  process.env.DATABASE_URL = url;
  // The pools and pg-boss of an earlier variant point at its (stopped) database: start clean, as the tests do.
  (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons = new Map();
  process.env.SESSION_SECRET ??= 'bench-secret-bench-secret-bench-secret-0000';
  process.env.LOG_LEVEL = 'silent';
  const { getDb, closeDb } = await import('../db/client');
  const { enqueueInTx, QUEUES, stopBoss } = await import('../app/utils/jobs.server');
  const db = getDb();
  const finished = async (id: string) => {
    for (let i = 0; i < 600; i++) {
      const [row] = await sql<{ start: number | null; done: number | null; state: string }[]>`
        select extract(epoch from started_on - start_after) * 1000 as start, extract(epoch from completed_on - start_after) * 1000 as done, state::text
          from pgboss.job where id = ${id}`;
      if (row?.state === 'completed') return { start: Number(row.start), done: Number(row.done) };
      await sleep(20);
    }
    throw new Error(`job ${id} not completed within 12 s`);
  };
  const immediate = { startMs: [] as number[], doneMs: [] as number[] };
  const delayed = { startMs: [] as number[], doneMs: [] as number[] };
  try {
    for (let i = 0; i < PROBES; i++) {
      await sleep(1500);
      const id = await db.transaction((tx) => enqueueInTx(tx, QUEUES.domainEvents, { eventId: 0, type: 'bench_idle_probe' }));
      const r = await finished(id);
      immediate.startMs.push(r.start);
      immediate.doneMs.push(r.done);
    }
    for (let i = 0; i < PROBES; i++) {
      const id = await db.transaction((tx) =>
        enqueueInTx(tx, QUEUES.snoozeWake, { accountId: 0, conversationId: 0 }, { startAfter: new Date(Date.now() + DELAY_MS) }),
      );
      const r = await finished(id);
      delayed.startMs.push(r.start);
      delayed.doneMs.push(r.done);
    }
  } finally {
    await stopBoss().catch(() => {});
    await closeDb().catch(() => {});
  }
  return { immediate, delayed };
}

const f = (n: number, d = 2) => n.toFixed(d);
const span = (xs: number[] | undefined) => (xs?.length ? `${f(percentile(xs, 50), 0)} (max ${f(Math.max(...xs), 0)})` : '-');

async function main() {
  if (!fs.existsSync('build/server/index.js')) throw new Error('build/server/index.js is missing: run `npm run build` first');
  const results: Result[] = [];
  for (const v of VARIANTS) {
    if (!['full', 'web', 'engine'].includes(v)) throw new Error(`unknown variant ${v} (full, web, engine)`);
    console.log(`\n== ${v}: settling ${SETTLE_MS / 1000} s, measuring ${WINDOW_MS / 1000} s ==`);
    const r = await runVariant(v);
    results.push(r);
    for (const c of r.cpu) console.log(`  ${c.name.padEnd(14)} node ${f(c.nodePct)} %   its PostgreSQL backends ${f(c.backendsPct)} %`);
    console.log(`  PostgreSQL's own processes (checkpointer, walwriter, io workers...) ${f(r.pgOtherPct)} %   commits ${f(r.commitsPerSec)}/s`);
    if (r.immediate) console.log(`  wake-up (ms, p50 / max): no delay: started ${span(r.immediate.startMs)}, done ${span(r.immediate.doneMs)}; due in ${DELAY_MS / 1000} s: started ${span(r.delayed!.startMs)} after its time, done ${span(r.delayed!.doneMs)}`);
    if (r.statements) {
      console.log('  statements in the window (calls, text):');
      for (const s of r.statements) console.log(`    ${String(s.calls).padStart(6)}  ${s.query}`);
    }
  }
  console.log('\n| variant | Parley process(es) % | their PG backends % | PG own processes % | total % of a core | commits/s | no-delay job: started, done (ms p50) | 3-s job: started, done after its time (ms p50) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const node = r.cpu.reduce((a, c) => a + c.nodePct, 0);
    const backends = r.cpu.reduce((a, c) => a + c.backendsPct, 0);
    const label = r.variant === 'full' ? 'full (web + inline engine)' : r.variant === 'web' ? 'web only (PARLEY_ENGINE=off)' : 'web (engine off) + engine process';
    console.log(`| ${label} | ${r.cpu.map((c) => `${c.name} ${f(c.nodePct)}`).join(', ')} | ${r.cpu.map((c) => f(c.backendsPct)).join(', ')} | ${f(r.pgOtherPct)} | ${f(node + backends + r.pgOtherPct)} | ${f(r.commitsPerSec)} | ${r.immediate ? `${span(r.immediate.startMs)}, ${span(r.immediate.doneMs)}` : '-'} | ${r.delayed ? `${span(r.delayed.startMs)}, ${span(r.delayed.doneMs)}` : '-'} |`);
  }
  const web = results.find((r) => r.variant === 'web');
  const two = results.find((r) => r.variant === 'engine');
  if (web && two) {
    const engine = two.cpu.find((c) => c.name === 'engine');
    console.log(`\nengine node alone: its process ${f(engine?.nodePct ?? 0)} % + its backends ${f(engine?.backendsPct ?? 0)} %; commits ≈ ${f(two.commitsPerSec - web.commitsPerSec)}/s (the two-process run less the web-only run)`);
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
