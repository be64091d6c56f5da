/**
 * Backup and restore of a whole installation (issue 37, ADR 151): the time of `backup` and `restore` and the archive's
 * size, on the seeded demo, then with an account of 100,000 conversations (and 3 messages each) added to it. Each
 * restore goes into a new empty database and a new storage directory, as a real one would.
 * Run: npm run bench:backup   (BENCH_SCALE=0.1 for a quick run)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { benchDatabase, seedPagesAccount } from './support';
import { withDatabase as databaseUrlOf } from '../tests/setup/test-database';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CONVERSATIONS = Math.round(100_000 * SCALE);
const MESSAGES_PER_CONVERSATION = 3;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  const server = await benchDatabase('backup');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-backup-'));
  fs.chmodSync(work, 0o755);
  const { getDb, closeDb } = await import('../db/client');
  const { getConfig, parseConfig } = await import('../app/utils/env.server');
  const { getFileStorage } = await import('../app/models/storage/files.server');
  const { LocalFileStorage } = await import('../app/models/storage/local-files.server');
  const { createBackup, restoreBackup } = await import('../app/models/operations/backup-archive.server');
  const { seedDemo } = await import('../db/seed');
  const { stopBoss } = await import('../app/utils/jobs.server');

  let n = 0;
  async function round(label: string) {
    const out = path.join(work, `${label}.tar.gz`);
    const made = await createBackup({ databaseUrl: process.env.DATABASE_URL!, storage: getFileStorage(), config: getConfig(), out });
    const name = `parley_bench_restore_${process.pid}_${++n}`;
    const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const targetUrl = databaseUrlOf(server.adminUrl, name);
    const targetDir = path.join(work, `restore-${n}`);
    const restored = await restoreBackup({
      archive: made.path,
      databaseUrl: targetUrl,
      storage: new LocalFileStorage(targetDir),
      config: { dataDir: targetDir, secretKey: getConfig().secretKey },
      reloadSecretKey: () => parseConfig().secretKey,
    });
    const t = made.manifest.totals;
    console.log(
      `${label.padEnd(28)} ${String(t.rows).padStart(9)} rows ${String(t.files).padStart(4)} files   data ${mb(t.databaseBytes + t.fileBytes).padStart(9)}   ` +
        `archive ${mb(made.sizeBytes).padStart(8)}   backup ${made.seconds.toFixed(1).padStart(6)} s   restore ${restored.seconds.toFixed(1).padStart(6)} s`,
    );
    const drop = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
    await drop.unsafe(`drop database "${name}" with (force)`);
    await drop.end();
    fs.rmSync(out, { force: true });
    fs.rmSync(targetDir, { recursive: true, force: true });
  }

  let t0 = Date.now();
  await seedDemo();
  console.log(`seeded the demo in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await round('demo');

  t0 = Date.now();
  const { account } = await seedPagesAccount({ conversations: CONVERSATIONS, contacts: Math.max(1000, CONVERSATIONS / 5), domain: 'benchbackup' });
  const db = getDb();
  const [{ min }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from conversations where account_id = ${account.id}`);
  const total = CONVERSATIONS * MESSAGES_PER_CONVERSATION;
  for (let start = 1; start <= total; start += 100_000) {
    const end = Math.min(total, start + 99_999);
    await db.execute(sql`insert into messages (account_id, conversation_id, kind, text, created_at)
      select ${account.id}, ${min} + g % ${CONVERSATIONS}, case when g % 2 = 0 then 'incoming' else 'outgoing' end,
        'Hello, about order ' || g || ': ' || md5(g::text) || ' arrived ' || (g % 17) || ' days late', now() - (g || ' seconds')::interval
      from generate_series(${start}::int, ${end}::int) g`);
  }
  console.log(`added ${CONVERSATIONS} conversations and ${total} messages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await round(`demo + ${CONVERSATIONS / 1000}k conversations`);

  await stopBoss().catch(() => {});
  await closeDb();
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
