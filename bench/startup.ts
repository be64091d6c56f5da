/**
 * Start-up on an existing data directory (issue 23, ADR 047): the compiled server with its embedded PostgreSQL, as
 * `npm run serve` and the Docker image start it. The first start creates the data directory (not counted); then
 * BENCH_STARTS starts, each timed from spawn to the first healthy /healthz (database up, engine consuming), with the
 * server's own step times (it logs them once listening). Target: under 5 s.
 * Run: npm run build && npm run bench:startup   (BENCH_STARTS=5)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { percentile, serveNodeFlags } from './support';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const TARGET_MS = 5000;
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
const MiB = (n: number | undefined) => `${((n ?? 0) / 1048576).toFixed(0)}`;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

async function start(dataDir: string) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PORT: String(port), APP_HOST: `localhost:${port}`, SMTP_INBOUND_PORT: '0', PARLEY_DATA_DIR: dataDir, SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-0000', LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  delete env.PARLEY_ENGINE;
  const t0 = performance.now();
  // The probe (a preload, nothing else) answers SIGUSR2 with the process's heap figures on one stdout line.
  const probe = `data:text/javascript,${encodeURIComponent(`process.on('SIGUSR2', () => process.stdout.write('\\n' + JSON.stringify({ memoryProbe: process.memoryUsage() }) + '\\n'))`)}`;
  const child = spawn(process.execPath, [...serveNodeFlags(), '--import', probe, 'build/server/index.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let steps: Record<string, number> = {};
  let memory: NodeJS.MemoryUsage | undefined;
  let out = '';
  child.stdout.on('data', (d) => {
    out += String(d);
    for (const line of out.split('\n')) {
      if (!line.includes('"startup"') && !line.includes('"memoryProbe"')) continue;
      try {
        const parsed = JSON.parse(line);
        if (parsed.startup) steps = parsed.startup;
        if (parsed.memoryProbe) memory = parsed.memoryProbe;
      } catch {
        /* a partial line */
      }
    }
  });
  child.stderr.on('data', () => {});
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out.slice(-500)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (performance.now() - t0 > 120_000) throw new Error('not healthy within 120 s');
    await new Promise((r) => setTimeout(r, 25));
  }
  const healthyMs = performance.now() - t0;
  const rssNow = () => Number(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
  const rss = rssNow();
  // Idle: IDLE_MS after the first healthy answer, nothing asked of it (the engine and pg-boss poll as they always do).
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idleRss = rssNow();
  child.kill('SIGUSR2');
  for (let i = 0; i < 100 && !memory; i++) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { healthyMs, steps, rss, idleRss, memory };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-startup-'));
  const first = await start(dataDir);
  console.log(`first start (creates the data directory): ${(first.healthyMs / 1000).toFixed(2)} s`);
  const samples: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const r = await start(dataDir);
    samples.push(r.healthyMs);
    console.log(`start ${i + 1} on the existing data directory: ${(r.healthyMs / 1000).toFixed(2)} s to healthy; steps (ms) ${JSON.stringify(r.steps)}; RSS at healthy ${r.rss.toFixed(0)} MiB, idle ${IDLE_MS / 1000} s later ${r.idleRss.toFixed(0)} MiB (heap used ${MiB(r.memory?.heapUsed)} of ${MiB(r.memory?.heapTotal)} MiB, external ${MiB(r.memory?.external)} MiB)`);
    idle.push(r.idleRss);
  }
  const p50 = percentile(samples, 50);
  const max = Math.max(...samples);
  console.log(`\nstart on an existing data directory: median ${(p50 / 1000).toFixed(2)} s, worst ${(max / 1000).toFixed(2)} s (target < ${TARGET_MS / 1000} s: ${max < TARGET_MS ? 'met' : 'NOT met'})`);
  console.log(`idle RSS: ${Math.min(...idle).toFixed(0)}–${Math.max(...idle).toFixed(0)} MiB (target < 200 MiB: ${Math.max(...idle) < 200 ? 'met' : 'NOT met'})`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
