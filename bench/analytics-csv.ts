/**
 * Analytics CSV memory (issue 21: "CSV export streams with flat memory"): every page's CSV for a two-year range of the
 * account `bench/analytics.ts` kept in BENCH_DATA_DIR (1,000,000 conversations), streamed through the route's own
 * source (`csvStream` over `dailySql` / `csvSource`), with the process's RSS sampled every 5 ms after a forced GC.
 * Prints per page: rows, bytes, RSS before, peak RSS during, and the growth.
 * Run (after bench/analytics.ts has kept its database; not while it runs on the same directory):
 *   BENCH_DATA_DIR=/work/benchdata/analytics BENCH_CONVERSATIONS=1000000 node --expose-gc --import tsx bench/analytics-csv.ts
 */
import os from 'node:os';

async function main() {
  const dir = process.env.BENCH_DATA_DIR;
  if (!dir) throw new Error('BENCH_DATA_DIR: the kept database of bench/analytics.ts');
  const { startEmbeddedPostgres } = await import('../db/embedded');
  const { withDatabase } = await import('../tests/setup/test-database');
  const embedded = await startEmbeddedPostgres({ dataDir: dir, database: 'postgres' });
  process.env.DATABASE_URL = withDatabase(embedded.adminUrl, `parley_bench_analytics_${Number(process.env.BENCH_CONVERSATIONS ?? 1_000_000)}`);
  process.env.LOG_LEVEL ??= 'silent';
  const { closeDb, getDb } = await import('../db/client');
  const { sql } = await import('drizzle-orm');
  const { csvStream } = await import('../app/utils/csv-stream.server');
  const { DAILY_COLUMNS } = await import('../app/models/analytics/page-reports.server');
  const { csvSource } = await import('../app/models/analytics/csv-sources.server');
  const { dailySql } = await import('../app/models/analytics/reports.server');
  const { cutOf } = await import('../app/models/analytics/rollup.server');
  const { ANALYTICS_PAGES } = await import('../app/models/analytics/pages');
  const { parseRange } = await import('../app/models/analytics/range.server');
  const [acc] = await getDb().execute<{ id: number }>(sql`select id from accounts where domain = 'benchanalytics'`);
  const accountId = Number(acc.id);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 729 * 86_400_000).toISOString().slice(0, 10);
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  let worst = 0;
  for (const p of ANALYTICS_PAGES.filter((x) => x.built)) {
    const search = new URLSearchParams(`range=custom&from=${from}&to=${today}`);
    const { range } = parseRange({ search, tz: 'Europe/Berlin', page: p });
    const cols = DAILY_COLUMNS[p.slug];
    const source = (await csvSource({ accountId, slug: p.slug, range, search })) ??
      (cols
        ? {
            query: dailySql({ accountId, range, cols, cut: await cutOf(accountId, range) }),
            header: ['Day', ...cols.map((c) => c.label)],
            toRecord: (r: Record<string, unknown>) => [r.day, ...cols.map((_, i) => r[`c${i}`])],
          }
        : null);
    if (!source) continue; // the staffing prediction and the workflows table are written whole / from the run log
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    let bytes = 0;
    let lines = 0;
    const reader = csvStream<Record<string, unknown>>({ ...source, toRecord: source.toRecord as never }).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      for (const b of value) if (b === 10) lines++;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    clearInterval(timer);
    worst = Math.max(worst, peak - before);
    console.log(`${p.slug.padEnd(24)} ${String(lines - 1).padStart(5)} rows ${String(bytes).padStart(8)} bytes  RSS ${mb(before)} MB -> peak ${mb(peak)} MB (+${mb(peak - before)} MB)`);
  }
  console.log(`largest RSS growth during a CSV export: ${mb(worst)} MB; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await closeDb();
  await embedded.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
