import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, eq } from 'drizzle-orm';
import { extract } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, getSql, schema } from '../../db/client';
import {
  claimExportDownload,
  cleanUpAccountExports,
  EXPORT_ENTITIES,
  exportAccountNow,
  finishExportDownload,
  getAccountExport,
  requestAccountExport,
  runAccountExport,
  type ExportManifest,
} from '../../app/models/operations/account-export.server';
import { getFileStorage } from '../../app/models/storage/files.server';
import { createTestAccount, createTestUser } from '../factories';
import { seedAccountData } from '../helpers/account-data';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function unpack(archive: string) {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'parley-export-test-'));
  await extract({ file: archive, cwd: dir });
  return dir;
}
const readLines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('account export', () => {
  it('writes every entity of the account, and only of the account, with its files and checksums; downloads once', async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const seedA = await seedAccountData(a.account.id, a.owner.id, { label: 'alpha' });
    await seedAccountData(b.account.id, b.owner.id, { label: 'bravo' });

    const { exportId } = await requestAccountExport({ accountId: a.account.id, requestedBy: { kind: 'user', id: a.owner.id } });
    // The job was queued in the same transaction, for the engine.
    const jobs = await getSql()`select data from pgboss.job where name = 'operations.account-export' and data->>'exportId' = ${String(exportId)}`;
    expect(jobs).toHaveLength(1);
    // A second request while the first waits answers the first.
    expect(await requestAccountExport({ accountId: a.account.id, requestedBy: { kind: 'user', id: a.owner.id } })).toEqual({ exportId, alreadyRunning: true });

    await runAccountExport({ accountId: a.account.id, exportId });
    const row = await getAccountExport({ accountId: a.account.id, id: exportId });
    expect(row.status).toBe('ready');
    expect(row.totalRows).toBeGreaterThan(20);
    expect(row.doneRows).toBe(row.totalRows);
    expect(row.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(await getFileStorage().exists(row.storageKey!)).toBe(true);
    // Another account cannot claim it.
    expect((await claimExportDownload({ accountId: b.account.id, id: exportId })).ok).toBe(false);

    const claim = await claimExportDownload({ accountId: a.account.id, id: exportId });
    if (!claim.ok) throw new Error(claim.message);
    const local = path.join(os.tmpdir(), `parley-export-${exportId}-${Date.now()}.tar.gz`);
    await pipeline((await getFileStorage().getStream(claim.storageKey))!, fs.createWriteStream(local));
    await finishExportDownload({ accountId: a.account.id, id: exportId, storageKey: claim.storageKey });
    expect(sha256(local)).toBe(row.sha256);

    const dir = await unpack(local);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.format).toBe('parley-account-export');
    expect(manifest.account.id).toBe(a.account.id);
    expect(manifest.files.map((f) => f.entity)).toEqual(EXPORT_ENTITIES.map((e) => e.name));
    const rowsOf = (entity: string) => manifest.files.find((f) => f.entity === entity)!.rows;
    // Each listed file has the rows the manifest says, and the seeded account has these exactly.
    for (const f of manifest.files) expect(readLines(path.join(dir, f.path)).length, f.path).toBe(f.rows);
    const expected: Record<string, number> = {
      account: 1,
      conversations: 2,
      messages: 3,
      attachments: 1,
      conversation_tags: 1,
      contacts: 2,
      companies: 1,
      contact_tags: 1,
      crm_notes: 1,
      knowledge_bases: 1,
      kb_categories: 1,
      kb_articles: 1,
      kb_images: 1,
      survey_folders: 1,
      surveys: 1,
      survey_versions: 1,
      survey_responses: 1,
      forms: 1,
      form_responses: 1,
      inboxes: 1,
      teams: 1,
      team_members: 1,
      sla_policies: 1,
      automation_rules: 1,
      tags: 1,
    };
    for (const [entity, n] of Object.entries(expected)) expect(rowsOf(entity), entity).toBe(n);
    // Users and roles: the owner and the account's default roles, as the database has them.
    const [{ n: roles }] = await getSql()`select count(*)::int as n from roles where account_id = ${a.account.id}`;
    expect(rowsOf('roles')).toBe(roles);
    expect(rowsOf('users')).toBe(1);

    // Stored files: all three, each at its path with the checksum of the bytes written.
    const files = readLines(path.join(dir, 'files.jsonl'));
    expect(files).toHaveLength(3);
    expect(manifest.storedFiles).toMatchObject({ count: 3, missing: 0 });
    for (const seeded of seedA.files) {
      const entry = files.find((f) => f.storage_key === seeded.key)!;
      expect(entry, seeded.key).toBeTruthy();
      expect(entry.sha256).toBe(seeded.sha256);
      expect(sha256(path.join(dir, String(entry.path)))).toBe(seeded.sha256);
    }
    const attachment = readLines(path.join(dir, 'data/attachments.jsonl'))[0];
    expect(fs.existsSync(path.join(dir, 'files', String(attachment.storage_key)))).toBe(true);

    // Nothing of account b, no secrets, no password hashes.
    const everything = manifest.files.map((f) => fs.readFileSync(path.join(dir, f.path), 'utf8')).join('\n');
    expect(everything).toContain('alpha');
    expect(everything).not.toContain('bravo');
    expect(everything).not.toContain('inbox-secret-value');
    expect(everything).not.toContain('tok-secret');
    const user = readLines(path.join(dir, 'data/users.jsonl'))[0];
    expect(user).not.toHaveProperty('password_hash');
    expect(user).not.toHaveProperty('totp_secret');
    expect(user.email).toBe(a.email);
    expect(readLines(path.join(dir, 'data/inboxes.jsonl'))[0]).toMatchObject({ settings: { greeting: 'Hi' } });
    expect(readLines(path.join(dir, 'data/inboxes.jsonl'))[0]).not.toHaveProperty('secret');

    // Downloaded once: the file is gone, the row says so, and a second claim is refused with the reason.
    const after = await getAccountExport({ accountId: a.account.id, id: exportId });
    expect(after).toMatchObject({ status: 'downloaded', storageKey: null });
    expect(await getFileStorage().exists(claim.storageKey)).toBe(false);
    const again = await claimExportDownload({ accountId: a.account.id, id: exportId });
    expect(again).toMatchObject({ ok: false, status: 'downloaded' });
    if (!again.ok) expect(again.message).toMatch(/already been downloaded/);
    await fs.promises.rm(dir, { recursive: true, force: true });
    await fs.promises.rm(local, { force: true });
  });

  it('expires an archive nobody downloaded: the clean-up deletes its file and the download is refused', async () => {
    const a = await createTestAccount();
    await seedAccountData(a.account.id, a.owner.id);
    const { exportId } = await requestAccountExport({ accountId: a.account.id, requestedBy: { kind: 'user', id: a.owner.id } });
    await runAccountExport({ accountId: a.account.id, exportId });
    const ready = await getAccountExport({ accountId: a.account.id, id: exportId });
    expect(ready.status).toBe('ready');
    await getDb()
      .update(schema.accountExports)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(schema.accountExports.accountId, a.account.id), eq(schema.accountExports.id, exportId)));
    // Past its expiry but before the clean-up ran: already refused.
    expect(await claimExportDownload({ accountId: a.account.id, id: exportId })).toMatchObject({ ok: false, status: 'expired' });
    const { removed } = await cleanUpAccountExports();
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await getAccountExport({ accountId: a.account.id, id: exportId })).toMatchObject({ status: 'expired', storageKey: null });
    expect(await getFileStorage().exists(ready.storageKey!)).toBe(false);
  });

  it('exportAccountNow writes the archive synchronously and answers its path and size', async () => {
    const a = await createTestAccount();
    await seedAccountData(a.account.id, a.owner.id);
    const out = await exportAccountNow({ accountId: a.account.id });
    expect((await fs.promises.stat(out.path)).size).toBe(out.sizeBytes);
    const dir = await unpack(out.path);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.files.find((f) => f.entity === 'messages')!.rows).toBe(3);
    await fs.promises.rm(dir, { recursive: true, force: true });
    await fs.promises.rm(out.path, { force: true });
    // Nothing recorded as a user-facing export.
    const [{ n }] = await getSql()`select count(*)::int as n from account_exports where account_id = ${a.account.id}`;
    expect(n).toBe(0);
  });

  it('only the owner reaches the screen and its actions; the download is refused a second time with a clear message', async () => {
    const a = await createTestAccount();
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const admin = await createTestUser({ accountId: a.account.id, roleKind: 'admin' });
    const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    for (const userId of [agent.id, admin.id]) {
      const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId });
      const post = await app.request('/settings/data-export', { domain: a.domain, cookie, form: { intent: 'request' } });
      expect(post.status).toBe(403);
      const page = await app.request('/settings/data-export', { domain: a.domain, cookie, accept: 'text/html' });
      expect([302, 403]).toContain(page.status);
    }
    const [{ n: none }] = await getSql()`select count(*)::int as n from account_exports where account_id = ${a.account.id}`;
    expect(none).toBe(0);

    const empty = await app.request('/settings/data-export', { domain: a.domain, cookie: owner });
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No export yet');
    const posted = await app.request('/settings/data-export', { domain: a.domain, cookie: owner, form: { intent: 'request' } });
    expect(posted.status).toBe(302);
    const [row] = await getDb().select().from(schema.accountExports).where(eq(schema.accountExports.accountId, a.account.id));
    const running = await app.request('/settings/data-export', { domain: a.domain, cookie: owner });
    expect(running.text).toContain('http-equiv="refresh"');
    await runAccountExport({ accountId: a.account.id, exportId: row.id });
    const ready = await app.request('/settings/data-export', { domain: a.domain, cookie: owner });
    expect(ready.text).toContain('Ready to download');
    const first = await app.request(`/settings/data-export/${row.id}/download`, { domain: a.domain, cookie: owner });
    expect(first.status).toBe(200);
    expect(first.headers['content-disposition']).toContain('.tar.gz');
    const second = await app.request(`/settings/data-export/${row.id}/download`, { domain: a.domain, cookie: owner });
    expect(second.status).toBe(302);
    const page = await app.request('/settings/data-export', { domain: a.domain, cookie: owner + '; ' + (second.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ') });
    expect(page.text).toContain('already been downloaded');
    await expect.poll(async () => (await getAccountExport({ accountId: a.account.id, id: row.id })).storageKey).toBeNull();
    // Bad input: an unknown intent is a 400, a foreign or made-up id a 404.
    expect((await app.request('/settings/data-export', { domain: a.domain, cookie: owner, form: { intent: 'nope' } })).status).toBe(400);
    expect((await app.request('/settings/data-export/99999999/download', { domain: a.domain, cookie: owner })).status).toBe(404);
  });
});
