/**
 * Pages at a share of the ceiling (issue 23). The compiled production server (child process, engine off) and the
 * ceiling app of `bench/ceiling` (a bare Remix 2 page rendering the inbox list's 50 rows from memory, same Remix,
 * React and Express) are loaded with autocannon at the same concurrency, one after the other, in the same run.
 * Printed per page: requests/s, latency p50/p97.5/p99, and its share of the ceiling beside the target (inbox list
 * >= 25 %, every other signed-in screen >= 30 %).
 * Run: npm run build && npm run bench:pages   (BENCH_CONNECTIONS=10 BENCH_SECONDS=10 BENCH_CONVERSATIONS=1000)
 * Where the time goes: BENCH_PAGES=settings (labels that contain it) BENCH_PROFILE=/tmp/prof writes the server's CPU
 * profile there (open it in Chrome's DevTools, or `npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile`).
 */
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, startCompiledServer } from './support';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 1000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 5000);

type Result = { label: string; rps: number; p50: number; p975: number; p99: number; non2xx: number; total: number; txPerRequest?: number };

async function load(label: string, url: string, headers: Record<string, string>): Promise<Result> {
  // A short warm-up so that JIT and pools are hot for both sides alike.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  return { label, rps: r.requests.average, p50: r.latency.p50, p975: r.latency.p97_5, p99: r.latency.p99, non2xx: r.non2xx, total: (r.requests as unknown as { total: number }).total };
}

async function startCeiling() {
  const dir = path.resolve('bench/ceiling');
  execFileSync(process.execPath, [path.resolve('node_modules/@remix-run/dev/dist/cli.js'), 'build'], { cwd: dir, stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
  const child = spawn(process.execPath, ['server.mjs'], { cwd: dir, env: { ...process.env, NODE_ENV: 'production', PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.on('data', (d) => resolve(Number(/listening on (\d+)/.exec(String(d))?.[1]))));
  return { port, stop: () => child.kill('SIGTERM') };
}

async function main() {
  const db0 = await benchDatabase('pages');
  const { getDb, closeDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { sessionCookie } = await import('../tests/helpers/http');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');
  const { openConversation } = await import('../app/models/inbox/conversations.server');
  const db = getDb();
  const { account, owner } = await createTestAccount({ domain: 'benchpages' });
  // (Bulk rows pass through the same count trigger as the writers' (ADR 032).)
  const accountId = account.id;
  const inbox = await createInbox({ accountId, actorId: owner.id, name: 'Support', channelType: 'email', email: 'help@benchpages.test' });
  // One conversation through the domain function (a real thread), the rest in bulk as bench/inbox-list.ts does.
  const real = await openConversation({ accountId, inboxId: inbox.id, sourceType: 'email', subject: 'A real thread', contact: { email: 'real@bench.test', name: 'Rea Customer' }, message: { kind: 'incoming', text: 'Hello there' } });
  await db.execute(sql`insert into contacts (account_id, email, first_name, last_name)
    select ${accountId}, 'customer' || g || '@example.test', 'First' || g, 'Last' || g from generate_series(1, ${CONTACTS}::int) g`);
  const [{ min: contactMin }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from contacts where account_id = ${accountId}`);
  await db.execute(sql`insert into conversations (account_id, inbox_id, contact_id, subject, status, priority, source_type, last_message_at, created_at, message_count, last_message_preview)
    select ${accountId}, ${inbox.id}, ${contactMin} + g % ${CONTACTS}, 'Bench conversation ' || g, (array['open','pending','resolved'])[1 + g % 3], g % 5, 'email',
      now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, 1, 'preview of message ' || g
    from generate_series(1, ${CONVERSATIONS}::int) g`);
  await db.execute(sql`vacuum analyze`);

  const server = await startCompiledServer({
    env: {
      DATABASE_URL: process.env.DATABASE_URL!,
      APP_HOST: process.env.APP_HOST!,
      SESSION_SECRET: process.env.SESSION_SECRET!,
      PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR!,
    },
    nodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [],
  });
  const host = `${account.domain}.${process.env.APP_HOST}`;
  const cookie = await sessionCookie({ domain: account.domain, accountId, userId: owner.id });
  const base = `http://127.0.0.1:${server.port}`;
  const allPages: [string, string, boolean, number][] = [
    ['inbox list (50 rows)', '/inbox', true, 25],
    ['conversation', `/inbox/${real.conversation.id}`, true, 30],
    ['contact list', '/customers', true, 30],
    ['settings', '/settings/account-settings', true, 30],
    ['sign-in (no session)', '/signin', false, 30],
  ];
  const pages = allPages.filter(([label]) => !process.env.BENCH_PAGES || label.includes(process.env.BENCH_PAGES));
  // Each page answers 200 first (Node's fetch drops the Host header: a plain request).
  const { default: http } = await import('node:http');
  for (const [, p, signed] of pages) {
    const status = await new Promise<number>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port: server.port, path: p, headers: { host, ...(signed ? { cookie } : {}) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject),
    );
    if (status !== 200) throw new Error(`${p}: ${status}`);
  }
  const results: Result[] = [];
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
  for (const [label, p, signed] of pages) {
    if (STATEMENTS) await db.execute(sql`select pg_stat_statements_reset()`);
    const before = await transactions();
    const r = await load(label, base + p, { host, ...(signed ? { cookie } : {}) });
    // The warm-up's requests count too: about SECONDS + 2 seconds of the same rate.
    r.txPerRequest = (await transactions()) - before;
    r.txPerRequest /= r.total * ((SECONDS + 2) / SECONDS);
    results.push(r);
    if (STATEMENTS) {
      const rows = await db.execute<{ calls: number; query: string }>(sql`
        select calls::int, regexp_replace(query, '[[:space:]]+', ' ', 'g') as query from pg_stat_statements
         where dbid = (select oid from pg_database where datname = current_database()) order by calls desc limit 30`);
      console.log(`\n${label}: statements per request`);
      for (const row of rows) console.log(`  ${(row.calls / (r.total * ((SECONDS + 2) / SECONDS))).toFixed(2).padStart(6)}  ${row.query.slice(0, 160)}`);
    }
  }
  const rss = server.rssMiB();
  await server.stop();

  const ceiling = await startCeiling();
  const top = await load('ceiling: bare Remix page, 50 rows from memory', `http://127.0.0.1:${ceiling.port}/`, {});
  ceiling.stop();

  const f = (n: number, w = 7) => n.toFixed(1).padStart(w);
  console.log(`\nPages against the ceiling, c=${CONNECTIONS}, ${SECONDS} s each, ${CONVERSATIONS} conversations, ${CONTACTS} contacts (compiled server, NODE_ENV=production, engine off)`);
  console.log(`${'page'.padEnd(48)}  req/s     p50   p97.5     p99 ms   share of ceiling (target)            db transactions/request`);
  console.log(`${top.label.padEnd(48)} ${f(top.rps)} ${f(top.p50)} ${f(top.p975)} ${f(top.p99)}`);
  results.forEach((r, i) => {
    const share = (100 * r.rps) / top.rps;
    const target = pages[i][3];
    console.log(`${r.label.padEnd(48)} ${f(r.rps)} ${f(r.p50)} ${f(r.p975)} ${f(r.p99)}    ${f(share, 5)} %  (>= ${target} %: ${share >= target ? 'met    ' : 'NOT met'})   ${(r.txPerRequest ?? 0).toFixed(1)}${r.non2xx ? `  ${r.non2xx} non-2xx!` : ''}`);
  });
  console.log(`server RSS after the run: ${rss.toFixed(0)} MiB`);

  const { stopBoss } = await import('../app/utils/jobs.server');
  await stopBoss();
  await closeDb();
  await db0.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
