/**
 * Public forms (issue 17, ADR 112). Targets: a public form submission p95 under 50 ms server time with 200 concurrent
 * submitters; the public form page under 15 KB gzipped.
 *
 * What is measured, over HTTP against the compiled production server (child process, engine inline as `npm start`
 * runs it, PARLEY_SERVER_TIMING=1), POST /f/{code} with a form of every field type, captcha on, an inbox chosen:
 *   - server time: the server's own `Server-Timing: app;dur=` — from the request's arrival in Express to its
 *     response headers (parse, tenant, form, rate limit, captcha, the submission's transaction, the 302). It does not
 *     count the time a request waits in the kernel or behind the busy event loop before Express sees it; the client
 *     time (send to answer, from this process) does, and is printed beside it;
 *   - "200 concurrent submitters", two ways, both printed:
 *       paced: 200 submitters, each sends, thinks 1-3 s (reading the thank-you page, typing the next), sends again,
 *         five times: about 100 submissions a second offered, which is what 200 people at once can do;
 *       closed loop: 200 connections, each sends its next submission the moment the last is answered, for
 *         BENCH_SECONDS: the most the server takes, every request a new visitor (its own address and captcha);
 *   - the ceiling, same client, same run: a bare Remix 2 action (bench/ceiling /submit: reads the body, answers 302;
 *     no database) under the same two loads;
 *   - filed: from a response's commit to the engine's forms handler having made its contact and conversation
 *     (event_handlings.handled_at - created_at), p50/p95 for the paced run;
 *   - the public form page with everything it loads, gzipped.
 * Load (uptime) is printed before and after each phase. Run: npm run build && npm run bench:forms
 *   BENCH_ENGINE=inline|process|off (below), BENCH_SUBMITTERS (200), BENCH_SECONDS (10), BENCH_CPU_PROF=<dir> (a CPU
 *   profile of the web process; bench/profile-summary.ts reads it), BENCH_SERVER_DIR=<checkout> (its build, for a before).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import zlib from 'node:zlib';
import { benchDatabase, percentile, processCpuMs, startCeiling, startCompiledServer } from './support';

const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 200);
const ROUNDS = 5;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/**
 * BENCH_ENGINE: inline (as `npm start` runs it: the engine in the web process, sharing its CPU and pool); process
 * (the web with PARLEY_ENGINE=off and the engine as its own process, `npm run engine`, with its own pool, filing while
 * the submissions arrive); off (the web process alone, the engine started after the paced run to file the backlog).
 */
const ENGINE = process.env.BENCH_ENGINE === 'off' ? 'off' : process.env.BENCH_ENGINE === 'process' ? 'process' : 'inline';

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Sample = { server: number | null; client: number; status: number };

/** One POST over a keep-alive agent; the server's own time from its Server-Timing header. */
function post(agent: http.Agent, port: number, path: string, host: string, body: string, ip: string) {
  return new Promise<Sample>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': ip },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const timing = /app;dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
          resolve({ server: timing ? Number(timing[1]) : null, client: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode ?? 0 });
        });
      },
    );
    // A kept-alive socket the server closed as this request went out (Node's documented race, likelier when a loaded
    // server answers slowly): the server never read it, so it is sent again on a new connection (node docs, reusedSocket).
    req.on('error', (err: NodeJS.ErrnoException) => (req.reusedSocket && err.code === 'ECONNRESET' ? post(agent, port, path, host, body, ip).then(resolve, reject) : reject(err)));
    req.end(body);
  });
}

function summary(label: string, samples: Sample[], seconds: number) {
  const server = samples.map((s) => s.server).filter((x): x is number => x !== null);
  const client = samples.map((s) => s.client);
  const bad = samples.filter((s) => s.status !== 302).length;
  const row = {
    label,
    n: samples.length,
    rate: samples.length / seconds,
    serverP50: percentile(server, 50),
    serverP95: percentile(server, 95),
    clientP50: percentile(client, 50),
    clientP95: percentile(client, 95),
    bad,
  };
  console.log(
    `${label.padEnd(44)} ${String(row.n).padStart(5)} in ${seconds.toFixed(1).padStart(5)} s ${row.rate.toFixed(0).padStart(5)}/s   server p50 ${row.serverP50.toFixed(1).padStart(7)} p95 ${row.serverP95.toFixed(1).padStart(7)} ms   client p50 ${row.clientP50.toFixed(1).padStart(7)} p95 ${row.clientP95.toFixed(1).padStart(7)} ms${bad ? `   ${bad} not 302!` : ''}   load ${load()}`,
  );
  return row;
}

async function main() {
  const db0 = await benchDatabase('forms');
  database = db0;
  const { getDb, closeDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { createTestAccount } = await import('../tests/factories');
  const { createForm, saveForm, setFormStatus } = await import('../app/models/forms/forms.server');
  const { FormBuilderSchema } = await import('../app/models/forms/schemas');
  const { createCaptcha } = await import('../app/models/productivity/captcha.server');
  const { createInbox } = await import('../app/models/inbox/inboxes.server');

  const a = await createTestAccount({ domain: 'benchforms' });
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const inbox = await createInbox({ ...who, name: 'Leads', channelType: 'contact_form' });
  const draft = await createForm({ ...who, name: 'Demo request' });
  const types = ['company', 'department', 'job_title', 'phone', 'website', 'country', 'short_text', 'choice', 'consent', 'file'] as const;
  const fields = [...draft.fields, ...types.map((type, i) => ({ key: `f_bench${String(i).padStart(3, '0')}`, type, label: `Field ${type}`, required: false, ...(type === 'choice' ? { options: ['Starter', 'Pro', 'Enterprise'] } : {}) }))];
  const input = FormBuilderSchema.parse({ name: 'Demo request', headerText: 'Book a demo', description: 'We will call you back within a day.', submitText: 'Request demo', brandColour: 'teal', thankYouMessage: 'Thanks!', captcha: 'on', inboxId: String(inbox.id), fields: [] });
  await saveForm({ ...who, id: draft.id, input, fields });
  await setFormStatus({ ...who, id: draft.id, status: 'published' });
  const [nameKey, emailKey, messageKey] = draft.fields.map((f) => f.key);
  const path = `/f/${draft.code}`;
  const host = `benchforms.${process.env.APP_HOST}`;

  // Every submission a visitor's: its own captcha, made as the page's GET makes it (5 s before, so not "too fast").
  const body = async (email: string, name: string) => {
    const c = await createCaptcha({ formId: -draft.id, now: Date.now() - 5_000 });
    const [, x, y] = c.question.match(/What is (\d+) \+ (\d+)\?/)!;
    return new URLSearchParams({
      [nameKey]: name,
      [emailKey]: email,
      [messageKey]: 'Please call me about the Pro plan',
      f_bench000: `Company ${email.length % 50}`,
      f_bench005: 'DE',
      f_bench007: 'Pro',
      f_bench008: 'on',
      captchaToken: c.token,
      captchaQuestion: c.question,
      captchaAnswer: String(Number(x) + Number(y)),
    }).toString();
  };
  let visitor = 0;
  const nextIp = () => {
    visitor++;
    return `10.${(visitor >> 16) & 255}.${(visitor >> 8) & 255}.${visitor & 255}`;
  };

  const server = await startCompiledServer({
    // BENCH_SERVER_DIR: another checkout's build (a "before" for side-by-side figures on the same machine).
    cwd: process.env.BENCH_SERVER_DIR,
    env: { PARLEY_ENGINE: ENGINE === 'inline' ? 'inline' : 'off', PARLEY_SERVER_TIMING: '1', TRUST_PROXY: 'loopback', LOG_LEVEL: 'error' },
    // BENCH_CPU_PROF=<dir>: the web process writes a V8 CPU profile there when it stops (where a submission's CPU goes).
    nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
    waitFor: ENGINE === 'inline' ? 'healthy' : 'listening',
  });
  const ceiling = await startCeiling();
  const { spawn } = await import('node:child_process');
  const startEngineProcess = () =>
    spawn(process.execPath, ['build/server/engine.js'], { env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'inherit'] });
  let engine = ENGINE === 'process' ? startEngineProcess() : undefined;
  // A failed run stops what it started (the children would keep the database and ports).
  process.on('exit', () => {
    for (const pid of [server.pid, ceiling.pid, engine?.pid ?? 0]) {
      try {
        process.kill(pid);
      } catch {
        // already gone
      }
    }
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: SUBMITTERS });
  const rss = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
  if (engine) await sleep(3000);
  console.log(
    `public form submissions, ${fields.length} fields, captcha on, an inbox; compiled server with the engine ${ENGINE === 'process' ? 'in its own process' : ENGINE}; idle RSS web ${rss(server.pid).toFixed(0)} MiB${engine ? ` + engine ${rss(engine.pid!).toFixed(0)} MiB` : ''}; load ${load()}`,
  );

  // Warm-up, not measured: a fresh process compiles its routes and queries on first use.
  const warm = async (port: number, p: string) => {
    for (let i = 0; i < 40; i++) {
      const s = await post(agent, port, p, host, await body(`warm${i}@bench.test`, 'Warm Up'), nextIp());
      if (s.status !== 302) throw new Error(`warm-up ${p} answered ${s.status}`);
    }
  };
  await warm(server.port, path);
  await warm(ceiling.port, '/submit');

  const paced = async (port: number, p: string) => {
    const samples: Sample[] = [];
    const t = Date.now();
    await Promise.all(
      Array.from({ length: SUBMITTERS }, async (_, n) => {
        const ip = nextIp();
        await sleep(Math.random() * 2000);
        for (let round = 0; round < ROUNDS; round++) {
          // Half the rounds a returning contact (an update), half a new one.
          const email = round % 2 ? `submitter${n}@bench.test` : `submitter${n}-${round}@bench.test`;
          samples.push(await post(agent, port, p, host, await body(email, `Submitter ${n}`), ip));
          await sleep(1000 + Math.random() * 2000);
        }
      }),
    );
    return { samples, seconds: (Date.now() - t) / 1000 };
  };
  const closed = async (port: number, p: string) => {
    const samples: Sample[] = [];
    const t = Date.now();
    const until = t + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: SUBMITTERS }, async (_, n) => {
        for (let round = 0; Date.now() < until; round++) samples.push(await post(agent, port, p, host, await body(`loop${n}-${round}@bench.test`, `Looper ${n}`), nextIp()));
      }),
    );
    return { samples, seconds: (Date.now() - t) / 1000 };
  };

  const rows = [];
  const before = Date.now();
  // CPU of each server process per submission (Parley's includes the inline engine filing it): on a loaded machine a
  // millisecond of CPU costs several of wall time, so this is the figure that does not depend on the neighbours.
  const cpu = (pid: number, n: number, from: number) => ((processCpuMs(pid) - from) / n).toFixed(1);
  let cpu0 = processCpuMs(server.pid);
  const engineCpu0 = engine ? processCpuMs(engine.pid!) : 0;
  let run = await paced(server.port, path);
  const parleyPaced = summary(`Parley, paced (${SUBMITTERS} submitters, think 1-3 s)`, run.samples, run.seconds);
  console.log(
    `  Parley web process CPU per submission${ENGINE === 'inline' ? ' (with the engine filing it)' : ''}: ${cpu(server.pid, run.samples.length, cpu0)} ms${engine ? `; engine process ${cpu(engine.pid!, run.samples.length, engineCpu0)} ms (so far)` : ''}`,
  );
  cpu0 = processCpuMs(ceiling.pid);
  run = await paced(ceiling.port, '/submit');
  const ceilingPaced = summary('ceiling (bare Remix action), paced', run.samples, run.seconds);
  console.log(`  ceiling server CPU per submission: ${cpu(ceiling.pid, run.samples.length, cpu0)} ms`);

  // Filed: the engine's half, for the paced run's responses (with the engine off, an engine process is started now).
  if (ENGINE === 'off') engine = startEngineProcess();
  const filedBy = Date.now() + 120_000;
  for (;;) {
    const [{ n }] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from form_responses where account_id = ${a.account.id} and pending`);
    if (Number(n) === 0 || Date.now() > filedBy) break;
    await sleep(500);
  }
  const filed = await getDb().execute<{ ms: number }>(sql`
    select extract(epoch from (h.handled_at - r.created_at)) * 1000 as ms
      from form_responses r join domain_events e on e.type = 'form_submitted' and e.subject_id = r.id::text and e.account_id = r.account_id
      join event_handlings h on h.event_id = e.id and h.handler = 'forms'
     where r.account_id = ${a.account.id} and r.created_at >= ${new Date(before).toISOString()}`);
  const filedMs = filed.map((r) => Number(r.ms));
  const [{ pending }] = await getDb().execute<{ pending: number }>(sql`select count(*)::int as pending from form_responses where account_id = ${a.account.id} and pending`);
  // Exactly once: one handler record and one conversation per response, no response filed twice.
  const [once] = await getDb().execute<{ responses: number; records: number; conversations: number; twice: number }>(sql`
    select (select count(*)::int from form_responses where account_id = ${a.account.id}) as responses,
           (select count(*)::int from event_handlings h join domain_events e on e.id = h.event_id where e.account_id = ${a.account.id} and e.type = 'form_submitted' and h.handler = 'forms') as records,
           (select count(*)::int from conversations where account_id = ${a.account.id} and inbox_id = ${inbox.id}) as conversations,
           (select count(*)::int from (select conversation_id from form_responses where account_id = ${a.account.id} and conversation_id is not null group by 1 having count(*) > 1) t) as twice`);
  if (ENGINE === 'off') {
    engine?.kill();
    engine = undefined;
  }
  console.log(
    `filed by the engine ${ENGINE === 'off' ? '(its own process, started after the run: the figure is its backlog, not latency)' : ENGINE === 'process' ? '(its own process and pool, filing during the run)' : '(inline)'} (contact, company, conversation): ${filedMs.length} responses, p50 ${percentile(filedMs, 50).toFixed(0)} ms, p95 ${percentile(filedMs, 95).toFixed(0)} ms after their commit; ${pending} still pending   load ${load()}`,
  );
  console.log(`  exactly once: ${once.responses} responses (warm-up included), ${once.records} handler records, ${once.conversations} conversations, ${once.twice} conversations shared by two responses`);

  run = await closed(server.port, path);
  const parleyClosed = summary(`Parley, closed loop (${SUBMITTERS} connections, ${SECONDS} s)`, run.samples, run.seconds);
  run = await closed(ceiling.port, '/submit');
  const ceilingClosed = summary('ceiling (bare Remix action), closed loop', run.samples, run.seconds);
  rows.push({ label: `submission server time p95, paced ${SUBMITTERS} submitters`, value: parleyPaced.serverP95, ceiling: 50, unit: 'ms', beside: `bare action ${ceilingPaced.serverP95.toFixed(1)} ms` });
  rows.push({
    label: `submission server time p95, closed loop of ${SUBMITTERS}`,
    value: parleyClosed.serverP95,
    ceiling: 50,
    unit: 'ms',
    beside: `bare action ${ceilingClosed.serverP95.toFixed(1)} ms; ${parleyClosed.rate.toFixed(0)}/s against ${ceilingClosed.rate.toFixed(0)}/s`,
  });

  // ------------------------------------------------------------------ page weight
  const page = await new Promise<{ status: number; text: string }>((resolve, reject) =>
    http.get({ host: '127.0.0.1', port: server.port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject),
  );
  if (page.status !== 200) throw new Error(`page answered ${page.status}`);
  const assets = [...page.text.matchAll(/<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src|img[^>]+src)="([^"]+)"/g)].map((m) => m[1]);
  let total = zlib.gzipSync(page.text).length;
  for (const asset of assets) {
    const text = await fetch(`http://127.0.0.1:${server.port}${asset}`).then((r) => r.text());
    total += zlib.gzipSync(text).length;
  }
  const scripts = (page.text.match(/<script/g) ?? []).length;
  console.log(`public form page (${fields.length} fields, every type): ${(total / 1024).toFixed(1)} KB gzipped with ${assets.length} stylesheets, ${scripts} scripts`);
  rows.push({ label: 'public form page with what it loads, gzipped', value: total / 1024, ceiling: 15, unit: 'KB', beside: '' });

  agent.destroy();
  engine?.kill();
  await ceiling.stop();
  await server.stop();
  console.log(`\nload ${load()}`);
  let failed = 0;
  for (const row of rows) {
    const ok = row.value <= row.ceiling;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${row.label.padEnd(52)} ${row.value.toFixed(row.unit === 'KB' ? 2 : 1).padStart(8)} ${row.unit}  target ${row.ceiling} ${row.unit}   ${row.beside}`);
  }
  await closeDb();
  await db0.stop();
  process.exit(failed ? 1 : 0);
}

let database: { stop: () => Promise<void> } | undefined;
main().catch(async (err) => {
  console.error(err);
  await database?.stop().catch(() => {});
  process.exit(1);
});
