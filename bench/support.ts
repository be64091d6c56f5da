import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTemplate, startTestServer } from '../tests/setup/test-database';

/**
 * A database for a benchmark: BENCH_DATABASE_URL (an admin URL of a server where databases may be created),
 * or a fresh embedded PostgreSQL in a temporary directory. Migrated, with pg-boss installed.
 */
export async function benchDatabase(name: string) {
  const server = process.env.BENCH_DATABASE_URL ? { adminUrl: process.env.BENCH_DATABASE_URL, stop: async () => {} } : await startTestServer();
  const url = await createTemplate(server.adminUrl, `parley_bench_${name}_${process.pid}`);
  process.env.DATABASE_URL = url;
  process.env.APP_HOST ??= 'localhost:3000';
  process.env.SESSION_SECRET ??= 'bench-secret-bench-secret-bench-secret-0000';
  process.env.LOG_LEVEL ??= 'silent';
  process.env.PARLEY_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  return server;
}

export function percentile(samples: number[], p: number) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Times `fn` `runs` times (after a few warm-up runs) and prints p50/p95/max in milliseconds. */
export async function measure(label: string, runs: number, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const row = { label, runs, p50: percentile(samples, 50), p95: percentile(samples, 95), max: Math.max(...samples) };
  console.log(`${label.padEnd(58)} p50 ${row.p50.toFixed(1).padStart(7)} ms   p95 ${row.p95.toFixed(1).padStart(7)} ms   max ${row.max.toFixed(1).padStart(7)} ms`);
  return row;
}

/** CPU time (user + system) of a process so far, in milliseconds, from /proc. */
export function processCpuMs(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat; after the ") " split they are at 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * CPU time of a PostgreSQL server so far, in milliseconds: its postmaster and every process it started (backends,
 * walwriter, autovacuum...), from /proc, found through the server's data directory. Processes that ended since are
 * not counted, so read it around windows where the pool's connections stay open.
 */
export async function postgresCpuMs(db: { execute: (q: never) => Promise<unknown> }) {
  const { sql } = await import('drizzle-orm');
  const [row] = (await db.execute(sql`select current_setting('data_directory') as dir` as never)) as { dir: string }[];
  const postmaster = Number(fs.readFileSync(path.join(row.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return () => {
    let total = processCpuMs(postmaster);
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        if (ppid === postmaster) total += processCpuMs(Number(pid));
      } catch {
        // The process ended while we read.
      }
    }
    return total;
  };
}

/** The node flags `npm run serve` starts the server with (that checkout's package.json): a bench runs what production runs. */
export function serveNodeFlags(cwd = process.cwd()): string[] {
  const serve = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')).scripts.serve as string;
  const flags = / node ((?:--\S+ )*)build\/server\/index\.js/.exec(serve);
  if (!flags) throw new Error(`package.json's serve script no longer reads "node [flags] build/server/index.js": ${serve}`);
  return flags[1].split(' ').filter(Boolean);
}

/**
 * The compiled production server (`build/server/index.js`, with `npm run serve`'s node flags) in a child process on
 * a free port, against the benchmark's database, engine off unless asked. `cwd` picks another checkout's build
 * (a "before" build for side-by-side figures).
 */
export async function startCompiledServer(opts: { cwd?: string; env?: Record<string, string>; waitFor?: 'listening' | 'healthy'; nodeArgs?: string[] } = {}) {
  const { spawn } = await import('node:child_process');
  const net = await import('node:net');
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn(process.execPath, [...serveNodeFlags(opts.cwd), ...(opts.nodeArgs ?? []), 'build/server/index.js'], {
    cwd: opts.cwd ?? process.cwd(),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      SMTP_INBOUND_PORT: '0',
      PARLEY_ENGINE: 'off',
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    // With the engine off /healthz answers 503 (no engine consumes events): answering at all is enough then.
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok || opts.waitFor !== 'healthy', () => false);
    if (ok) break;
    if (Date.now() - started > 60_000) throw new Error('server not healthy within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pid: child.pid!,
    startMs: Date.now() - started,
    cpuMs: () => processCpuMs(child.pid!),
    rssMiB: () => Number(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** POSTs a body to the server under test on loopback and reads its JSON answer (the widget benches). */
export function postJson(port: number, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The ceiling app of `bench/ceiling` (a bare Remix 2 app, same Remix, React and Express as Parley), built and started
 * in a child process on a free port: its page (bench/pages.ts) and its bare action `/submit` (bench/forms.ts).
 */
export async function startCeiling() {
  const { spawn, execFileSync } = await import('node:child_process');
  const dir = path.resolve('bench/ceiling');
  execFileSync(process.execPath, [path.resolve('node_modules/@remix-run/dev/dist/cli.js'), 'build'], { cwd: dir, stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
  const child = spawn(process.execPath, ['server.mjs'], { cwd: dir, env: { ...process.env, NODE_ENV: 'production', PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.on('data', (d) => resolve(Number(/listening on (\d+)/.exec(String(d))?.[1]))));
  return {
    port,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * The account the page benches load (bench/pages.ts, bench/page-costs.ts): an email inbox, one real thread through
 * the domain function, and `conversations` and `contacts` more in bulk (through the same count trigger as the
 * writers', ADR 032).
 */
export async function seedPagesAccount(opts: { conversations: number; contacts: number; domain?: string }) {
  const { getDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { openConversation } = await import('../app/models/inbox/conversations.server');
  const db = getDb();
  const domain = opts.domain ?? 'benchpages';
  const { account, owner } = await createTestAccount({ domain });
  const accountId = account.id;
  const inbox = await createInbox({ accountId, actorId: owner.id, name: 'Support', channelType: 'email', email: `help@${domain}.test` });
  const real = await openConversation({ accountId, inboxId: inbox.id, sourceType: 'email', subject: 'A real thread', contact: { email: `real@${domain}.test`, name: 'Rea Customer' }, message: { kind: 'incoming', text: 'Hello there' } });
  await db.execute(sql`insert into contacts (account_id, email, first_name, last_name)
    select ${accountId}, 'customer' || g || '@example.test', 'First' || g, 'Last' || g from generate_series(1, ${opts.contacts}::int) g`);
  const [{ min: contactMin }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from contacts where account_id = ${accountId}`);
  await db.execute(sql`insert into conversations (account_id, inbox_id, contact_id, subject, status, priority, source_type, last_message_at, created_at, message_count, last_message_preview)
    select ${accountId}, ${inbox.id}, ${contactMin} + g % ${opts.contacts}, 'Bench conversation ' || g, (array['open','pending','resolved'])[1 + g % 3], g % 5, 'email',
      now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, 1, 'preview of message ' || g
    from generate_series(1, ${opts.conversations}::int) g`);
  // The count deltas the insert's trigger wrote (one per conversation) folded as readers fold them every 500 rows
  // (ADR 032), so the tables are as a long-lived account's are, not one fold away from it.
  const { foldCountDeltas } = await import('../app/models/inbox/conversation-counts.server');
  await foldCountDeltas(accountId);
  await db.execute(sql`vacuum analyze`);
  return { account, owner, inbox, real };
}
