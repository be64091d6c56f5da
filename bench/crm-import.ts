/**
 * Contact import at scale: a 100,000-row CSV through the real import path (upload store, mapping, the job's
 * batches). Target (issue 5): under 60 s on this machine, with memory that does not grow with the file.
 * Run: npm run bench:crm-import   (BENCH_ROWS=20000 for a quick run; compare the memory line of both)
 */
import { benchDatabase } from './support';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);

function csv(rows: number) {
  const first = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Linus'];
  const last = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Torvalds'];
  const lines = ['First Name,Last Name,Email,Phone,Title,Country,Company,Tags'];
  for (let i = 0; i < rows; i++) {
    // One row in a thousand is bad, so the failure path is part of the measurement.
    const email = i % 1000 === 999 ? 'not-an-email' : `person${i}@example${i % 97}.test`;
    lines.push(`${first[i % 10]},${last[(i * 7) % 10]},${email},+4420${String(1000000 + i)},Engineer,GB,Company ${i % 500},vip`);
  }
  return Buffer.from(lines.join('\n'));
}

async function main() {
  const server = await benchDatabase('import');
  const { closeDb } = await import('../db/client');
  const { stopBoss } = await import('../app/utils/jobs.server');
  const { createTestAccount } = await import('../tests/factories');
  const { storeImportUpload, startImport, runContactImport, getImport } = await import('../app/models/crm/imports.server');

  const a = await createTestAccount({ domain: 'benchimport' });
  const bytes = csv(ROWS);
  console.log(`CSV: ${ROWS} rows, ${(bytes.byteLength / 1e6).toFixed(1)} MB`);
  const stored = await storeImportUpload({ accountId: a.account.id, userId: a.owner.id, filename: 'contacts.csv', bytes });
  if (!stored.ok) throw new Error(stored.error);
  await startImport({
    accountId: a.account.id,
    id: stored.importId,
    mapping: ['firstName', 'lastName', 'email', 'phone', 'title', 'country', 'company', 'tags'],
    duplicateMode: 'skip',
  });
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  // With --expose-gc (the npm script passes it) each sample first collects garbage, so the figure is what the
  // import really holds, not what V8 has not yet bothered to free.
  const sampler = setInterval(() => {
    global.gc?.();
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 250);
  const t0 = performance.now();
  // The job handler the engine runs for this queue, called directly so that only the import is timed.
  await runContactImport({ accountId: a.account.id, importId: stored.importId });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const result = await getImport({ accountId: a.account.id, id: stored.importId });
  console.log(
    `import: ${seconds.toFixed(1)} s (target 60 s), status ${result?.status}, created ${result?.createdRows}, failed ${result?.failedRows}, ` +
      `${Math.round(ROWS / seconds)} rows/s`,
  );
  console.log(`memory: live heap +${((peakHeap - before.heapUsed) / 1e6).toFixed(0)} MB at peak${global.gc ? '' : ' (run with --expose-gc for live heap)'}, rss +${((peakRss - before.rss) / 1e6).toFixed(0)} MB at peak`);
  await stopBoss();
  await closeDb();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
