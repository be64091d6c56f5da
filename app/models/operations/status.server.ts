import fs from 'node:fs';
import path from 'node:path';
import { and, desc, eq, gt, isNotNull, sql } from 'drizzle-orm';
import { getDb, getSql, schema } from '../../../db/client';
import { appliedMigration, expectedMigration } from '../../../db/migrate';
import { PART_LABELS } from '../channels/health.server';
import { listNodes } from '../cluster/heartbeat.server';
import { getConfig } from '../../utils/env.server';
import { latestBackups } from './backups.server';
import { engineLag, queueDepths } from './queues.server';
import { PARLEY_VERSION } from './version.server';

/** What the console's status page shows (ADR 152): one read of each part, side by side. */
export async function systemStatus() {
  const [migration, nodes, queues, lag, failingChannels, mailFailures, backups, disk] = await Promise.all([
    migrationState(),
    listNodes(),
    queueDepths().catch(() => null),
    engineLag().catch(() => null),
    failingChannelsAcrossAccounts(),
    recentMailFailures(),
    latestBackups(5),
    diskUse(),
  ]);
  return { version: PARLEY_VERSION, migration, nodes, queues, lag, failingChannels, mailFailures, backups, disk };
}

/**
 * The newest migration of this build. db/migrate.ts reads the journal beside itself, which holds for the server's
 * bundle (build/server/migrations) but not for the Remix bundle the routes run in (build/index.js): look there too.
 */
function expectedOfBuild() {
  try {
    return expectedMigration();
  } catch {
    for (const dir of ['build/server/migrations', 'db/migrations']) {
      const file = path.join(process.cwd(), dir, 'meta', '_journal.json');
      if (!fs.existsSync(file)) continue;
      const last = (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: { tag: string; when: number }[] }).entries.at(-1);
      if (last) return { tag: last.tag, when: last.when };
    }
    throw new Error('the migrations journal of this build was not found');
  }
}

async function migrationState() {
  const expected = expectedOfBuild();
  const applied = await appliedMigration(getSql());
  const [{ n }] = await getSql()<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
  return {
    expectedTag: expected.tag,
    expectedAt: new Date(expected.when),
    appliedAt: applied === null ? null : new Date(applied),
    appliedCount: n,
    state: applied === null ? ('none' as const) : applied === expected.when ? ('current' as const) : applied < expected.when ? ('behind' as const) : ('ahead' as const),
  };
}

/** Channel parts failing now, in every account (channel_health, ADR 024), oldest failure first. */
async function failingChannelsAcrossAccounts() {
  const rows = await getDb()
    .select({
      accountId: schema.accounts.id,
      domain: schema.accounts.domain,
      inboxName: schema.inboxes.name,
      part: schema.channelHealth.part,
      lastError: schema.channelHealth.lastError,
      failingSince: schema.channelHealth.failingSince,
    })
    .from(schema.channelHealth)
    .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, schema.channelHealth.inboxId), eq(schema.inboxes.accountId, schema.channelHealth.accountId)))
    .innerJoin(schema.accounts, eq(schema.accounts.id, schema.channelHealth.accountId))
    .where(isNotNull(schema.channelHealth.failingSince))
    .orderBy(schema.channelHealth.failingSince)
    .limit(50);
  return rows.map((r) => ({ ...r, label: PART_LABELS[r.part] }));
}

/** Mail Parley could not hand to SMTP in the last 7 days (outbound_emails, status failed), newest first. */
async function recentMailFailures() {
  const since = new Date(Date.now() - 7 * 86_400_000);
  const where = and(eq(schema.outboundEmails.status, 'failed'), gt(schema.outboundEmails.createdAt, since));
  const [rows, [{ total }]] = await Promise.all([
    getDb()
      .select({
        id: schema.outboundEmails.id,
        domain: schema.accounts.domain,
        subject: schema.outboundEmails.subject,
        error: schema.outboundEmails.error,
        createdAt: schema.outboundEmails.createdAt,
      })
      .from(schema.outboundEmails)
      .leftJoin(schema.accounts, eq(schema.accounts.id, schema.outboundEmails.accountId))
      .where(where)
      .orderBy(desc(schema.outboundEmails.createdAt))
      .limit(20),
    getDb().select({ total: sql<number>`count(*)::int` }).from(schema.outboundEmails).where(where),
  ]);
  return { rows, total };
}

/** The filesystem that holds PARLEY_DATA_DIR (the embedded database, local files, backups). */
async function diskUse() {
  const dir = getConfig().dataDir;
  try {
    const s = await fs.promises.statfs(dir);
    const total = s.blocks * s.bsize;
    const free = s.bavail * s.bsize;
    return { path: dir, totalBytes: total, freeBytes: free, usedBytes: total - s.bfree * s.bsize, error: null as string | null };
  } catch (err) {
    return { path: dir, totalBytes: 0, freeBytes: 0, usedBytes: 0, error: (err as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
}
