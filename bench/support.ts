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
