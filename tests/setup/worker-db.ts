import crypto from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { cloneDatabase, dropDatabase } from './test-database';

// Each test file gets its own database, cloned from the migrated template: files never see each other's rows.
const adminUrl = inject('adminUrl');
const name = `parley_test_${process.env.VITEST_POOL_ID ?? '0'}_${crypto.randomBytes(4).toString('hex')}`;
process.env.DATABASE_URL = await cloneDatabase(adminUrl, inject('templateDb'), name);
// Singletons from an earlier file in this worker point at that file's database: start clean.
(globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons = new Map();

afterAll(async () => {
  const { stopBoss } = await import('../../app/utils/jobs.server');
  const { closeDb } = await import('../../db/client');
  await stopBoss().catch(() => {});
  await closeDb().catch(() => {});
  await dropDatabase(adminUrl, name).catch(() => {});
});
