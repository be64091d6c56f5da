process.env.NODE_ENV ??= 'production';
/**
 * Where a signed-in page request's time goes beyond rendering (issue 23, ADR 110), one request at a time, in this
 * process, against the compiled Remix build (`npm run build` first):
 *   - the guard's read (tenant, session, user, role, plan, and what the shell shows) alone;
 *   - each loader of the page's route chain alone, its guard already read (as within one request);
 *   - all the chain's loaders together, as Remix runs them for a document request;
 *   - the whole request through the Express app (middleware, loaders, render, serialization, response);
 *   - what is left for rendering, serialization and middleware (whole request minus loaders).
 * Each line gives wall time p50 and this process's CPU per call (JavaScript and the database driver; PostgreSQL's
 * own CPU is not in it), plus statements per call for the loaders and the page's HTML size.
 * Run: npm run build && npx tsx bench/page-costs.ts   (BENCH_RUNS=200 BENCH_CONVERSATIONS=1000 BENCH_CONTACTS=5000)
 * BENCH_DUMP_HTML=/tmp/dir BENCH_RUNS=0: only writes each page's HTML there.
 * BENCH_CPU_PROFILE=/tmp/dir: also writes a CPU profile of each page's whole requests there.
 * BENCH_ALLOC_PROFILE=/tmp/dir: also writes where each page's whole requests allocate (a sampled heap profile that
 * keeps what GC collected too; open it in DevTools' Memory tab, or `npx tsx bench/profile-summary.ts F.heapprofile`).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { benchDatabase, percentile, seedPagesAccount } from './support';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);

async function main() {
  const db0 = await benchDatabase('pagecosts');
  const { getDb, closeDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { startTestApp, sessionCookie } = await import('../tests/helpers/http');
  const { getAppContext } = await import('../app/utils/session.server');
  const { runInRequestScope } = await import('../app/utils/request-scope.server');
  const db = getDb();
  const { account, owner, real } = await seedPagesAccount({ conversations: Number(process.env.BENCH_CONVERSATIONS ?? 1000), contacts: Number(process.env.BENCH_CONTACTS ?? 5000) });
  const cookie = await sessionCookie({ domain: account.domain, accountId: account.id, userId: owner.id });
  const host = `${account.domain}.${process.env.APP_HOST}`;
  const build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  const app = await startTestApp();

  const statements = async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const [row] = await db.execute<{ n: string }>(sql`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`);
    return Number(row.n);
  };
  /** p50 wall ms, CPU ms per call (this process), statements per call. */
  async function time(fn: () => Promise<unknown>) {
    for (let i = 0; i < 20; i++) await fn();
    const tx0 = await statements();
    const walls: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) {
      const t = process.hrtime.bigint();
      await fn();
      walls.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const cpu = process.cpuUsage(cpu0);
    const tx = ((await statements()) - tx0) / RUNS;
    return { p50: percentile(walls, 50), cpu: (cpu.user + cpu.system) / 1000 / RUNS, tx };
  }

  const pages: [string, string, string[], Record<string, string>][] = [
    ['inbox list (50 rows)', '/inbox', ['root', 'routes/_app', 'routes/_app.inbox', 'routes/_app.inbox._index'], {}],
    ['conversation', `/inbox/${real.conversation.id}`, ['root', 'routes/_app', 'routes/_app.inbox', 'routes/_app.inbox.$conversationId'], { conversationId: String(real.conversation.id) }],
    ['contact list', '/customers', ['root', 'routes/_app', 'routes/_app.customers', 'routes/_app.customers._index'], {}],
    ['settings', '/settings/account-settings', ['root', 'routes/_app', 'routes/_app.settings', 'routes/_app.settings.account-settings'], {}],
  ];
  const line = (label: string, r: { p50: number; cpu: number; tx: number }, extra = '') =>
    console.log(`  ${label.padEnd(44)} ${r.p50.toFixed(2).padStart(7)} ms  ${r.cpu.toFixed(2).padStart(6)} ms CPU  ${r.tx.toFixed(1).padStart(5)} statements${extra}`);

  const request = (p: string) => new Request(`http://${host}${p}`, { headers: { cookie, host } });
  console.log(`\nWhere a signed-in request goes, ${RUNS} requests one at a time, p50 wall and this process's CPU per request`);
  const guard = await time(() => runInRequestScope(() => getAppContext(request('/inbox'))));
  if (RUNS > 0) line("guard: tenant + session + user + role + plan + shell", guard);
  const minusGuard = (r: { p50: number; cpu: number; tx: number }) => ({ p50: r.p50 - guard.p50, cpu: r.cpu - guard.cpu, tx: r.tx - guard.tx });
  for (const [label, p, chain, params] of pages) {
    const res = await app.request(p, { domain: account.domain, cookie });
    if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
    console.log(`\n${label}: ${p}, HTML ${(Buffer.byteLength(res.text) / 1024).toFixed(1)} KB`);
    // BENCH_DUMP_HTML=/dir: each page's HTML written there, to see what its kilobytes are.
    if (process.env.BENCH_DUMP_HTML) (await import('node:fs')).writeFileSync(path.join(process.env.BENCH_DUMP_HTML, `${label.split(' ')[0]}.html`), res.text);
    if (process.env.BENCH_DUMP_HTML && process.env.BENCH_RUNS === '0') continue;
    const loaderOf = (id: string) => build.routes[id].module.loader!;
    for (const id of chain) {
      // The loader alone, within a request whose guard was already read (as the other loaders of a page share it).
      const r = await time(() =>
        runInRequestScope(async () => {
          const req = request(p);
          await getAppContext(req);
          const t0 = process.hrtime.bigint();
          await loaderOf(id)({ request: req, params, context: {} });
          return Number(process.hrtime.bigint() - t0);
        }),
      );
      line(`loader ${id.replace('routes/', '')} (guard taken off)`, minusGuard(r));
    }
    const all = await time(() => runInRequestScope(() => Promise.all(chain.map((id) => loaderOf(id)({ request: request(p), params, context: {} })))));
    line('all loaders at once, as Remix runs them', all);
    // BENCH_CPU_PROFILE=/dir: a CPU profile of this page's whole requests alone (read it with bench/profile-summary.ts).
    const profiling = process.env.BENCH_CPU_PROFILE ? await startProfile() : null;
    const allocating = process.env.BENCH_ALLOC_PROFILE ? await startProfile('allocation') : null;
    const whole = await time(() => app.request(p, { domain: account.domain, cookie }));
    if (profiling) await profiling.stop(path.join(process.env.BENCH_CPU_PROFILE!, `${label.split(' ')[0]}.cpuprofile`));
    if (allocating) await allocating.stop(path.join(process.env.BENCH_ALLOC_PROFILE!, `${label.split(' ')[0]}.heapprofile`));
    line('whole request through Express', whole);
    console.log(`  ${'left for render, serialization, middleware'.padEnd(44)} ${(whole.p50 - all.p50).toFixed(2).padStart(7)} ms  ${(whole.cpu - all.cpu).toFixed(2).padStart(6)} ms CPU`);
  }
  await app.close();
  const { stopBoss } = await import('../app/utils/jobs.server');
  await stopBoss();
  await closeDb();
  await db0.stop();
}

/** A CPU profile, or a sampled allocation profile that keeps what GC collected too, of this process from now on. */
async function startProfile(kind: 'cpu' | 'allocation' = 'cpu') {
  const { Session } = await import('node:inspector/promises');
  const fs = await import('node:fs');
  const session = new Session();
  session.connect();
  if (kind === 'cpu') {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  } else {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  return {
    async stop(file: string) {
      const { profile } = kind === 'cpu' ? await session.post('Profiler.stop') : await session.post('HeapProfiler.stopSampling');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
