import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { runMigrations } from '../../db/migrate';

/**
 * A PostgreSQL server for tests: TEST_DATABASE_URL (a role that may create databases) or a fresh
 * embedded cluster in a temporary directory. Returns the URL of its maintenance database.
 */
export async function startTestServer(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { adminUrl: process.env.TEST_DATABASE_URL, stop: async () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-pg-'));
  fs.chmodSync(dir, 0o755);
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: dir, database: 'postgres' });
  return {
    adminUrl: embedded.adminUrl,
    stop: async () => {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function withDatabase(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates a database with every migration applied and pg-boss's schema and queues installed: the template each test clones. */
export async function createTemplate(adminUrl: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}"`);
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  await runMigrations(url);
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: url, max: 2, supervise: false, schedule: false });
  await boss.start();
  const { ensureQueues } = await import('../../app/utils/jobs.server');
  await ensureQueues(boss);
  await boss.stop({ graceful: false, wait: true });
  return url;
}

export async function cloneDatabase(adminUrl: string, template: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

export async function dropDatabase(adminUrl: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}
