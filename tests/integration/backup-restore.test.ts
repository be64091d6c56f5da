import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { c as createTar, x as extractTar } from 'tar';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';

// The installation under test keeps its stored files in a directory of its own (set before the configuration is read).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-backup-test-'));
fs.chmodSync(root, 0o755);
const sourceDir = path.join(root, 'source');
process.env.PARLEY_DATA_DIR = sourceDir;

const { getDb, schema } = await import('../../db/client');
const { resetSingleton } = await import('../../app/utils/singleton.server');
const { getConfig } = await import('../../app/utils/env.server');
const { LocalFileStorage } = await import('../../app/models/storage/local-files.server');
const { saveAttachment } = await import('../../app/models/inbox/attachments.server');
const { saveKbImage } = await import('../../app/models/knowledge-base/images.server');
const { createBackup, migrateUpTo, restoreBackup, sha256Of } = await import('../../app/models/operations/backup-archive.server');
const { latestBackups, runScheduledBackup } = await import('../../app/models/operations/backups.server');
const { expectedMigration } = await import('../../db/migrate');
const { withDatabase: databaseUrlOf, dropDatabase } = await import('../setup/test-database');
const { runScript } = await import('../helpers/process');
const { makePng } = await import('../helpers/png');

const adminUrl = inject('adminUrl');
const created: string[] = [];

/** A new, empty database on the test server (no schema at all), dropped after the file. */
async function emptyDatabase(label: string) {
  const name = `parley_restore_${label}_${crypto.randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  created.push(name);
  return databaseUrlOf(adminUrl, name);
}

afterAll(async () => {
  for (const name of created) await dropDatabase(adminUrl, name).catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
});

/** `npm run parley -- ...` as its own process, as an operator runs it. */
function parley(args: string[], env: { DATABASE_URL: string; PARLEY_DATA_DIR: string }) {
  return runScript('server/cli.ts', args, { ...process.env, ...env, LOG_LEVEL: 'silent' });
}

/** Every table's row count and a checksum of its rows (in a stable order), and every sequence's value. */
async function fingerprint(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string }[]>`
      select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'p') and not c.relispartition and (n.nspname = 'public' or (n.nspname = 'pgboss' and c.relname = 'job'))
       order by 1`;
    const out: Record<string, { rows: number; md5: string | null }> = {};
    for (const { name } of tables) {
      const [row] = await sql.unsafe<{ rows: number; md5: string | null }[]>(
        `select count(*)::int as rows, md5(string_agg(t::text, E'\\n' order by t::text)) as md5 from ${name} t`,
      );
      out[name] = row;
    }
    const sequences = await sql<{ name: string; value: string | null }[]>`select sequencename as name, last_value::text as value from pg_sequences where schemaname = 'public' order by 1`;
    return { tables: out, sequences: Object.fromEntries(sequences.map((s) => [s.name, s.value])) };
  } finally {
    await sql.end();
  }
}

async function fileChecksums(storage: InstanceType<typeof LocalFileStorage>) {
  const out: Record<string, string> = {};
  for await (const o of storage.list('')) out[o.key] = await sha256Of((await storage.getStream(o.key))!);
  return out;
}

let archive: string;
/** The installation the first test restored into (it holds the demo account afterwards). */
let restoredUrl: string;
let restoredDir: string;
const journal = JSON.parse(fs.readFileSync(path.join('db', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };

describe('backup and restore of a whole installation', () => {
  beforeAll(async () => {
    // The seeded demo (accounts, conversations, messages, contacts, KB, surveys, campaigns...) through the seed command.
    const seeded = await runScript('db/seed.ts', [], { ...process.env, PARLEY_DATA_DIR: sourceDir });
    expect(seeded.code, seeded.stderr).toBe(0);
    // Stored files: message attachments, a knowledge-base image and a contact import file, through the models.
    const db = getDb();
    const [demo] = await db.select().from(schema.accounts).where(eq(schema.accounts.domain, 'demo'));
    const messages = await db.select({ id: schema.messages.id }).from(schema.messages).where(eq(schema.messages.accountId, demo.id)).orderBy(asc(schema.messages.id)).limit(5);
    for (const [i, m] of messages.entries()) {
      await saveAttachment({ accountId: demo.id, messageId: m.id, filename: `invoice-${i}.pdf`, contentType: 'application/pdf', bytes: crypto.randomBytes(20_000 + i * 7919) });
    }
    const [kb] = await db.select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, demo.id)).limit(1);
    await saveKbImage({ accountId: demo.id, knowledgeBaseId: kb.id, filename: 'diagram.png', bytes: makePng(64, 48) });
    const { writeStoredFile } = await import('../../app/models/storage/files.server');
    await writeStoredFile(demo.id, Buffer.from('email,name\nana@example.test,Ana\n'), { extension: 'csv' });
  }, 480_000);

  test('an archive of the seeded demo restores into a fresh database and storage with every row and file the same', { timeout: 480_000 }, async () => {
    const out = path.join(root, 'archives');
    const made = await parley(['backup', '--out', `${out}/`], { DATABASE_URL: process.env.DATABASE_URL!, PARLEY_DATA_DIR: sourceDir });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^Wrote .*parley-backup-.*\.tar\.gz \(.+\) in [\d.]+ s: \d+ rows in \d+ tables .*\d+ files .*migration \d{4}_\w+\./m);
    [archive] = fs.readdirSync(out).map((f) => path.join(out, f));
    expect(fs.readdirSync(out)).toHaveLength(1); // no .partial or staging left behind

    // The command's run is recorded.
    const [run] = await latestBackups(1);
    expect(run).toMatchObject({ kind: 'command', status: 'succeeded', path: archive, sizeBytes: fs.statSync(archive).size, error: null });

    // The manifest: version, migration, a count per table, a checksum per file.
    const listed: string[] = [];
    await extractTar({ file: archive, cwd: root, filter: (p) => (listed.push(p), p === 'manifest.json') });
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8'));
    expect(listed.at(-1)).toBe('manifest.json');
    expect(manifest).toMatchObject({ format: 'parley-backup', formatVersion: 1, parleyVersion: '0.1.0', migration: expectedMigration() });
    const source = await fingerprint(process.env.DATABASE_URL!);
    const conversations = manifest.database.tables.find((t: { name: string }) => t.name === 'conversations');
    expect(conversations.rows).toBe(source.tables['public.conversations'].rows);
    expect(conversations.rows).toBeGreaterThan(50);
    const sourceFiles = await fileChecksums(new LocalFileStorage(sourceDir));
    expect(Object.keys(sourceFiles).length).toBeGreaterThanOrEqual(7); // the demo's KB images and the seven above
    expect(Object.fromEntries(manifest.files.map((f: { key: string; sha256: string }) => [f.key, f.sha256]))).toEqual(sourceFiles);

    // Restore into a database that never saw Parley and a new data directory.
    const targetUrl = await emptyDatabase('fresh');
    const targetDir = path.join(root, 'target');
    restoredUrl = targetUrl;
    restoredDir = targetDir;
    const restored = await parley(['restore', archive], { DATABASE_URL: targetUrl, PARLEY_DATA_DIR: targetDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(new RegExp(`^Restored \\d+ rows and ${Object.keys(sourceFiles).length} files from Parley 0\\.1\\.0 .* Start Parley\\.$`, 'm'));

    const target = await fingerprint(targetUrl);
    // backup_runs: the run that made the archive was "running" in its own snapshot; the restore records it succeeded.
    // pgboss.job: the source's queue moves on after the snapshot; the restored one holds the archive's jobs.
    const { ['public.backup_runs']: sourceRuns, ['pgboss.job']: _sourceJobs, ...sourceRest } = source.tables;
    const { ['public.backup_runs']: targetRuns, ['pgboss.job']: targetJobs, ...targetRest } = target.tables;
    expect(targetRest).toEqual(sourceRest);
    expect(targetRuns.rows).toBe(sourceRuns.rows);
    expect(targetJobs.rows).toBe(manifest.database.tables.find((t: { schema: string; name: string }) => t.schema === 'pgboss' && t.name === 'job').rows);
    expect(target.sequences).toEqual(source.sequences);
    expect(await fileChecksums(new LocalFileStorage(targetDir))).toEqual(sourceFiles);

    // The restored installation answers Parley's own commands: the demo account with its users.
    const accounts = await parley(['account', 'list'], { DATABASE_URL: targetUrl, PARLEY_DATA_DIR: targetDir });
    expect(accounts.code, accounts.stderr).toBe(0);
    expect(accounts.stdout).toMatch(/^demo\s+/m);
  });

  test('a non-empty target is refused and left as it was', { timeout: 120_000 }, async () => {
    // The installation the first test restored holds the demo account now.
    const before = await fingerprint(restoredUrl);
    const res = await parley(['restore', archive], { DATABASE_URL: restoredUrl, PARLEY_DATA_DIR: restoredDir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/This installation already holds 1 account: a restore goes into an empty one\..*--force/);
    expect(await fingerprint(restoredUrl)).toEqual(before);

    // A database a running Parley uses (this test process's pools) is refused whatever it holds.
    const running = await parley(['restore', archive, '--force'], { DATABASE_URL: process.env.DATABASE_URL!, PARLEY_DATA_DIR: sourceDir });
    expect(running.code).toBe(1);
    expect(running.stderr).toMatch(/Parley is running on this database \(\d+ connections?\): stop every node/);

    // An empty database beside a storage that holds files is refused too.
    const url = await emptyDatabase('files');
    const files = await parley(['restore', archive], { DATABASE_URL: url, PARLEY_DATA_DIR: sourceDir });
    expect(files.code).toBe(1);
    expect(files.stderr).toContain('The file storage already holds files');
  });

  test('a damaged archive is refused with a clear message before anything is written', { timeout: 120_000 }, async () => {
    // Unpack, change one byte of one table's rows, pack again with the original manifest.
    const work = path.join(root, 'tamper');
    fs.mkdirSync(work);
    await extractTar({ file: archive, cwd: work });
    const entries = fs.readdirSync(path.join(work, 'database')).map((f) => `database/${f}`);
    const victim = path.join(work, 'database/public.contacts.copy');
    const bytes = fs.readFileSync(victim);
    bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
    fs.writeFileSync(victim, bytes);
    const tampered = path.join(root, 'tampered.tar.gz');
    await createTar({ gzip: true, file: tampered, cwd: work }, [...entries, 'files', 'manifest.json']);

    const url = await emptyDatabase('damaged');
    const dir = path.join(root, 'damaged-target');
    const res = await parley(['restore', tampered], { DATABASE_URL: url, PARLEY_DATA_DIR: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('The archive is damaged: 1 entry does not match the manifest. Nothing was restored.');
    expect(res.stderr).toContain('database/public.contacts.copy: checksum mismatch');
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect((await sql`select count(*)::int as n from accounts`)[0].n).toBe(0);
    } finally {
      await sql.end();
    }
    expect(await fileChecksums(new LocalFileStorage(dir))).toEqual({});

    // A cut-short archive (the last half missing) is refused too.
    const cut = path.join(root, 'cut.tar.gz');
    fs.writeFileSync(cut, fs.readFileSync(archive).subarray(0, Math.floor(fs.statSync(archive).size / 2)));
    const short = await parley(['restore', cut], { DATABASE_URL: url, PARLEY_DATA_DIR: dir });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/The archive (cannot be read|has no manifest\.json)/);
  });
});

describe('an archive from an older version', () => {
  test('restores, then this build applies its newer migrations', { timeout: 120_000 }, async () => {
    // A database at migration 0028, with a few rows written as that version wrote them.
    const oldTag = '0028_rollups_and_lookups';
    const oldUrl = await emptyDatabase('old');
    await migrateUpTo(oldUrl, oldTag);
    const sql = postgres(oldUrl, { max: 1, onnotice: () => {} });
    try {
      const [plan] = await sql`insert into plans (key, name) values ('legacy', 'Legacy') returning id`;
      await sql`insert into accounts (domain, name, plan_id) values ('oldco', 'Old Co', ${plan.id}), ('elder', 'Elder Ltd', ${plan.id})`;
      const [acct] = await sql`select id from accounts where domain = 'oldco'`;
      await sql`insert into contacts (account_id, first_name, last_name, email) values (${acct.id}, 'Ana', 'Old', 'ana@old.test'), (${acct.id}, 'Ben', 'Old', 'ben@old.test')`;
      expect((await sql`select count(*)::int as n from drizzle.__drizzle_migrations`)[0].n).toBe(29);
    } finally {
      await sql.end();
    }
    const oldDir = path.join(root, 'old');
    const storage = new LocalFileStorage(oldDir);
    await storage.put('1/2026-01/0123456789abcdef0123456789abcdef', Buffer.from('an old attachment'));
    const made = await createBackup({ databaseUrl: oldUrl, storage, config: { ...getConfig(), dataDir: oldDir }, out: path.join(root, 'old.tar.gz') });
    expect(made.manifest.migration.tag).toBe(oldTag);

    const url = await emptyDatabase('upgraded');
    const dir = path.join(root, 'upgraded');
    const res = await parley(['restore', made.path], { DATABASE_URL: url, PARLEY_DATA_DIR: dir });
    expect(res.code, res.stderr).toBe(0);
    const newer = journal.entries.slice(29).map((e) => e.tag);
    expect(newer[0]).toBe('0029_cluster_presence_and_leases');
    expect(res.stdout).toContain(`applied ${newer.length} newer migrations (${newer.join(', ')})`);

    const check = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [{ n }] = await check`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(n).toBe(journal.entries.length);
      expect((await check`select max(created_at)::bigint as at from drizzle.__drizzle_migrations`)[0].at).toBe(String(expectedMigration().when));
      expect((await check`select domain from accounts order by id`).map((r) => r.domain)).toEqual(['oldco', 'elder']);
      expect((await check`select email from contacts order by id`).map((r) => r.email)).toEqual(['ana@old.test', 'ben@old.test']);
      // The newer migrations' tables are there, and the sequences go on after the restored rows.
      expect((await check`select to_regclass('public.backup_runs')::text as t`)[0].t).toBe('backup_runs');
      const [next] = await check`insert into accounts (domain, name, plan_id) select 'newco', 'New Co', plan_id from accounts limit 1 returning id`;
      expect(next.id).toBe(3);
    } finally {
      await check.end();
    }
    expect(await new LocalFileStorage(dir).get('1/2026-01/0123456789abcdef0123456789abcdef')).toEqual(Buffer.from('an old attachment'));
  });
});

describe('scheduled backups', () => {
  test('each run is recorded, the archives beyond PARLEY_BACKUP_KEEP are removed, a failure is recorded and logged', { timeout: 180_000 }, async () => {
    const dir = path.join(root, 'scheduled');
    process.env.PARLEY_BACKUP_DIR = dir;
    process.env.PARLEY_BACKUP_KEEP = '2';
    resetSingleton('config');
    try {
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await runScheduledBackup();
        expect(r.runId).not.toBeNull();
        runs.push(r.runId!);
        await new Promise((res) => setTimeout(res, 1100)); // archive names are per second
      }
      const rows = (await latestBackups(10)).filter((r) => r.kind === 'scheduled');
      expect(rows.map((r) => r.id)).toEqual([...runs].reverse());
      expect(rows.every((r) => r.status === 'succeeded' && r.sizeBytes! > 0 && r.finishedAt)).toBe(true);
      // The oldest was pruned: its file is gone, its row stays with prunedAt; the two newest are on disk.
      const [newest, middle, oldest] = rows;
      expect(oldest.prunedAt).not.toBeNull();
      expect(fs.existsSync(oldest.path!)).toBe(false);
      expect([newest, middle].every((r) => r.prunedAt === null && fs.existsSync(r.path!))).toBe(true);
      expect(fs.readdirSync(dir).sort()).toEqual([path.basename(middle.path!), path.basename(newest.path!)].sort());

      // A directory that cannot be written: the run is recorded failed, logged at error level, and nothing is pruned.
      fs.writeFileSync(path.join(root, 'not-a-dir'), '');
      process.env.PARLEY_BACKUP_DIR = path.join(root, 'not-a-dir', 'backups');
      resetSingleton('config');
      resetSingleton('logger');
      const { getLogger } = await import('../../app/utils/logger.server');
      const errorLog = vi.spyOn(getLogger(), 'error');
      const failed = await runScheduledBackup();
      expect(failed.pruned).toBe(0);
      const [last] = await latestBackups(1);
      expect(last).toMatchObject({ kind: 'scheduled', status: 'failed', sizeBytes: null });
      expect(last.error).toMatch(/ENOTDIR/);
      expect(errorLog).toHaveBeenCalledWith(expect.objectContaining({ err: expect.stringMatching(/ENOTDIR/) }), 'scheduled backup failed');
      expect(fs.readdirSync(dir)).toHaveLength(2);
    } finally {
      delete process.env.PARLEY_BACKUP_DIR;
      delete process.env.PARLEY_BACKUP_KEEP;
      resetSingleton('config');
    }
  });

  test('PARLEY_BACKUP_SCHEDULE declares one cron for the cluster; without it there is none', async () => {
    const { ensureQueues } = await import('../../app/utils/jobs.server');
    const { default: PgBoss } = await import('pg-boss');
    const boss = new PgBoss({ connectionString: process.env.DATABASE_URL!, max: 2, supervise: false, schedule: false });
    await boss.start();
    try {
      process.env.PARLEY_BACKUP_SCHEDULE = '30 2 * * *';
      resetSingleton('config');
      await ensureQueues(boss);
      expect((await boss.getSchedules()).filter((s) => s.name === 'operations.backup')).toEqual([expect.objectContaining({ cron: '30 2 * * *', timezone: 'UTC' })]);
      delete process.env.PARLEY_BACKUP_SCHEDULE;
      resetSingleton('config');
      await ensureQueues(boss);
      expect((await boss.getSchedules()).filter((s) => s.name === 'operations.backup')).toEqual([]);
    } finally {
      delete process.env.PARLEY_BACKUP_SCHEDULE;
      resetSingleton('config');
      await boss.stop({ graceful: false, wait: true });
    }
  });
});
