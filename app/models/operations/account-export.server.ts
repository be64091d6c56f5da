import crypto from 'node:crypto';
import { EXPORT_TTL_DAYS } from './constants';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, desc, eq, inArray, isNotNull, lte, or, sql } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import { create as createTar } from 'tar';
import { getDb, getSql, schema } from '../../../db/client';
import type { AccountExportStatus } from '../../../db/schema/account-exports';
import { getConfig } from '../../utils/env.server';
import { claimableRun, enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { publishToAccount } from '../../utils/live.server';
import { getLogger } from '../../utils/logger.server';
import { getFileStorage, isStorageKey, removeStoredFiles } from '../storage/files.server';
import { newStorageKey } from '../storage/keys.server';

/**
 * Account export (ADR 153, docs/export-format.md): the whole account as a gzipped tar of JSON Lines files, one per
 * entity type, the stored files under files/, and manifest.json. Rows are read with a cursor and written as they come,
 * files are copied stream to stream: nothing holds the account in memory. Every query is scoped by the account.
 */

export const EXPORT_FORMAT_VERSION = 1;
/** Days a finished archive waits for its one download before the clean-up job deletes it (in constants.ts for the screen). */
export { EXPORT_TTL_DAYS };
const CURSOR_ROWS = 500;

export type AccountExport = typeof schema.accountExports.$inferSelect;

/** One JSONL file of the archive: the rows of one table that belong to the account. */
type Entity = {
  /** The file's name under data/, without `.jsonl`. */
  name: string;
  group: 'conversations' | 'contacts' | 'knowledge_base' | 'surveys' | 'forms' | 'reviews' | 'settings' | 'campaigns' | 'meetings';
  table: PgTable;
  /** How the table's rows are tied to the account when it has no account_id (the default is `account_id = $1`). */
  scope?: string;
  /** Columns left out beyond the secret ones every table loses (SECRET_COLUMN). */
  omit?: string[];
  /** JSON columns whose secret-looking keys are removed (inbox channel settings hold tokens). */
  scrubJson?: string[];
};

const s = schema;
/** The order of the archive: settings first (what the rest refers to), then the people, then their conversations. */
export const EXPORT_ENTITIES: Entity[] = [
  { name: 'account', group: 'settings', table: s.accounts, scope: 'id = $1', omit: ['plan_id', 'subscription_status', 'past_due_since', 'trial_ends_at'] },
  { name: 'users', group: 'settings', table: s.users, omit: ['avatar', 'totp_last_step'] },
  { name: 'roles', group: 'settings', table: s.roles },
  { name: 'teams', group: 'settings', table: s.teams },
  { name: 'team_members', group: 'settings', table: s.teamMembers, scope: 'team_id in (select id from teams where account_id = $1)' },
  { name: 'inboxes', group: 'settings', table: s.inboxes, scrubJson: ['settings'] },
  { name: 'tags', group: 'settings', table: s.tags },
  { name: 'business_hours', group: 'settings', table: s.businessHours },
  { name: 'sla_policies', group: 'settings', table: s.slaPolicies },
  { name: 'routing_rules', group: 'settings', table: s.routingRules },
  { name: 'automation_rules', group: 'settings', table: s.automationRules },
  { name: 'chatbots', group: 'settings', table: s.chatbots },
  { name: 'canned_responses', group: 'settings', table: s.cannedResponses },
  { name: 'email_templates', group: 'settings', table: s.emailTemplates },
  { name: 'trusted_domains', group: 'settings', table: s.trustedDomains },
  { name: 'contact_forms', group: 'settings', table: s.contactForms },
  { name: 'webhook_endpoints', group: 'settings', table: s.webhookEndpoints },
  { name: 'companies', group: 'contacts', table: s.companies },
  { name: 'company_tags', group: 'contacts', table: s.companyTags },
  { name: 'contacts', group: 'contacts', table: s.contacts },
  { name: 'contact_tags', group: 'contacts', table: s.contactTags },
  { name: 'contact_identities', group: 'contacts', table: s.contactIdentities },
  { name: 'crm_notes', group: 'contacts', table: s.crmNotes },
  { name: 'segments', group: 'contacts', table: s.segments },
  { name: 'conversations', group: 'conversations', table: s.conversations },
  { name: 'conversation_tags', group: 'conversations', table: s.conversationTags },
  { name: 'messages', group: 'conversations', table: s.messages },
  { name: 'attachments', group: 'conversations', table: s.attachments },
  { name: 'time_entries', group: 'conversations', table: s.timeEntries },
  { name: 'knowledge_bases', group: 'knowledge_base', table: s.knowledgeBases },
  { name: 'kb_categories', group: 'knowledge_base', table: s.kbCategories },
  { name: 'kb_articles', group: 'knowledge_base', table: s.kbArticles },
  { name: 'kb_article_versions', group: 'knowledge_base', table: s.kbArticleVersions },
  { name: 'kb_images', group: 'knowledge_base', table: s.kbImages },
  { name: 'survey_folders', group: 'surveys', table: s.surveyFolders },
  { name: 'surveys', group: 'surveys', table: s.surveys },
  { name: 'survey_versions', group: 'surveys', table: s.surveyVersions },
  { name: 'survey_responses', group: 'surveys', table: s.surveyResponses },
  { name: 'csat_surveys', group: 'surveys', table: s.csatSurveys },
  { name: 'csat_ratings', group: 'surveys', table: s.csatRatings },
  { name: 'forms', group: 'forms', table: s.forms },
  { name: 'form_responses', group: 'forms', table: s.formResponses },
  { name: 'review_sources', group: 'reviews', table: s.reviewSources, scrubJson: ['config'] },
  { name: 'reviews', group: 'reviews', table: s.reviews },
  { name: 'campaign_templates', group: 'campaigns', table: s.campaignTemplates },
  { name: 'campaigns', group: 'campaigns', table: s.campaigns },
  { name: 'meeting_types', group: 'meetings', table: s.meetingTypes },
  { name: 'meeting_bookings', group: 'meetings', table: s.meetingBookings },
];

/**
 * Columns no archive carries, whatever the table: password and token hashes, two-factor secrets, signing secrets,
 * sealed credentials, capability tokens (a CSAT rating link's) and the forwarding address's token.
 */
const SECRET_COLUMN = /^(secret|previous_secret|password_hash|token_hash|totp_secret|token|forwarding_token)$|_sealed$|_secret$/;
/** Keys of JSON settings that hold credentials (a Twilio auth token, an API key, a page access token...). */
const SECRET_KEY = /secret|token|password|passwd|api_?key|private|sealed|credential|auth/i;

function scrubSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubSecrets);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = scrubSecrets(v);
    return out;
  }
  return value;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The columns of an entity the archive carries, with the SQL that reads its rows in a stable order. */
function entityQuery(e: Entity) {
  const config = getTableConfig(e.table);
  const columns = config.columns.filter((c) => !SECRET_COLUMN.test(c.name) && !(e.omit ?? []).includes(c.name) && c.getSQLType() !== 'tsvector');
  const numeric = new Set(columns.filter((c) => c.dataType === 'number').map((c) => c.name));
  const hasId = config.columns.some((c) => c.name === 'id');
  const order = hasId ? 'id' : config.columns.slice(0, 2).map((c) => quote(c.name)).join(', ');
  const where = e.scope ?? 'account_id = $1';
  return {
    columns: columns.map((c) => c.name),
    numeric,
    select: `select ${columns.map((c) => quote(c.name)).join(', ')} from ${quote(config.name)} where ${where} order by ${order}`,
    count: `select count(*)::int as n from ${quote(config.name)} where ${where}`,
  };
}

/**
 * Every stored file of the account that the archive carries, one key a row: message attachments, knowledge-base
 * images, files uploaded through forms (kept in the response's answers).
 */
const FILE_KEYS_SQL = `
  select storage_key from attachments where account_id = $1
  union
  select storage_key from kb_images where account_id = $1
  union
  select a.value ->> 'storageKey' from form_responses r, jsonb_each(r.answers) a
   where r.account_id = $1 and jsonb_typeof(a.value) = 'object' and a.value ? 'storageKey'
  order by 1`;
const FILE_COUNT_SQL = `select count(*)::int as n from (${FILE_KEYS_SQL}) k`;

function jsonLine(row: Record<string, unknown>, q: ReturnType<typeof entityQuery>, e: Entity) {
  const out: Record<string, unknown> = {};
  for (const name of q.columns) {
    let v = row[name];
    // postgres.js reads bigint columns as strings; the schema keeps them as numbers (ids of messages, sizes).
    if (typeof v === 'string' && q.numeric.has(name)) v = Number(v);
    if (Buffer.isBuffer(v)) v = v.toString('base64');
    if (e.scrubJson?.includes(name)) v = scrubSecrets(v);
    out[name] = v;
  }
  return `${JSON.stringify(out)}\n`;
}

/** Writes a line to a file stream, waiting when its buffer is full (a large account must not pile up in memory). */
async function writeLine(out: fs.WriteStream, line: string) {
  if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', resolve));
}
async function closeStream(out: fs.WriteStream) {
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

type Progress = { total: (n: number) => Promise<void>; advance: (n: number) => Promise<void> };

export type ExportManifest = {
  format: 'parley-account-export';
  formatVersion: number;
  createdAt: string;
  account: { id: number; name: string; domain: string };
  files: Array<{ path: string; entity: string; group: Entity['group']; rows: number; fields: string[] }>;
  storedFiles: { index: string; count: number; missing: number; bytes: number };
};

/** Counts what the archive will hold: the rows of each entity and the stored files. */
async function countAccount(accountId: number) {
  const client = getSql();
  let total = 0;
  for (const e of EXPORT_ENTITIES) {
    const [row] = await client.unsafe(entityQuery(e).count, [accountId]);
    total += Number(row.n);
  }
  const [files] = await client.unsafe(FILE_COUNT_SQL, [accountId]);
  return total + Number(files.n);
}

/**
 * Writes the archive of an account to `archivePath` (a .tar.gz), through a work directory beside it that is removed
 * afterwards whatever happens. Returns its size and SHA-256.
 */
async function writeArchive(accountId: number, archivePath: string, progress?: Progress) {
  const client = getSql();
  const [account] = await client.unsafe('select id, name, domain from accounts where id = $1', [accountId]);
  if (!account) throw new Error(`account ${accountId} does not exist`);
  const work = `${archivePath}.work`;
  await fs.promises.rm(work, { recursive: true, force: true });
  await fs.promises.mkdir(path.join(work, 'data'), { recursive: true, mode: 0o700 });
  try {
    await progress?.total(await countAccount(accountId));
    const manifest: ExportManifest = {
      format: 'parley-account-export',
      formatVersion: EXPORT_FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      account: { id: Number(account.id), name: String(account.name), domain: String(account.domain) },
      files: [],
      storedFiles: { index: 'files.jsonl', count: 0, missing: 0, bytes: 0 },
    };
    for (const e of EXPORT_ENTITIES) {
      const q = entityQuery(e);
      const file = `data/${e.name}.jsonl`;
      const out = fs.createWriteStream(path.join(work, file), { mode: 0o600 });
      let rows = 0;
      try {
        for await (const batch of client.unsafe(q.select, [accountId]).cursor(CURSOR_ROWS)) {
          for (const row of batch) await writeLine(out, jsonLine(row, q, e));
          rows += batch.length;
          await progress?.advance(batch.length);
        }
      } finally {
        await closeStream(out);
      }
      manifest.files.push({ path: file, entity: e.name, group: e.group, rows, fields: q.columns });
    }

    // Stored files, each copied stream to stream under files/<storage key>, with its checksum in files.jsonl.
    const storage = getFileStorage();
    const index = fs.createWriteStream(path.join(work, 'files.jsonl'), { mode: 0o600 });
    try {
      for await (const batch of client.unsafe(FILE_KEYS_SQL, [accountId]).cursor(100)) {
        for (const { storage_key: key } of batch as unknown as Array<{ storage_key: string }>) {
          const entry = await copyStoredFile(storage, key, work);
          manifest.storedFiles.count += 1;
          if (entry.missing) manifest.storedFiles.missing += 1;
          else manifest.storedFiles.bytes += entry.size ?? 0;
          await writeLine(index, `${JSON.stringify(entry)}\n`);
        }
        await progress?.advance(batch.length);
      }
    } finally {
      await closeStream(index);
    }
    await fs.promises.writeFile(path.join(work, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const entries = ['manifest.json', 'files.jsonl', 'data', ...(fs.existsSync(path.join(work, 'files')) ? ['files'] : [])];
    await createTar({ gzip: true, file: archivePath, cwd: work, portable: true }, entries);
    await fs.promises.chmod(archivePath, 0o600);
    const sha = crypto.createHash('sha256');
    await pipeline(fs.createReadStream(archivePath), sha);
    const { size } = await fs.promises.stat(archivePath);
    return { sizeBytes: size, sha256: sha.digest('hex'), manifest };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

type FileEntry = { storage_key: string; path: string | null; size: number | null; sha256: string | null; missing: boolean };

async function copyStoredFile(storage: ReturnType<typeof getFileStorage>, key: string, work: string): Promise<FileEntry> {
  // A key outside the layout (a hand-edited row) is never followed to a path.
  const source = isStorageKey(key) ? await storage.getStream(key) : undefined;
  if (!source) return { storage_key: key, path: null, size: null, sha256: null, missing: true };
  const rel = `files/${key}`;
  const target = path.join(work, rel);
  await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const sha = crypto.createHash('sha256');
  let size = 0;
  source.on('data', (chunk: Buffer) => {
    sha.update(chunk);
    size += chunk.length;
  });
  await pipeline(source, fs.createWriteStream(target, { mode: 0o600 }));
  return { storage_key: key, path: rel, size, sha256: sha.digest('hex'), missing: false };
}

function exportsDir() {
  return path.join(getConfig().dataDir, 'exports');
}

/**
 * Writes the account's archive now, in this process, to PARLEY_DATA_DIR/exports/ and returns where: for the operator
 * who exports an account before deleting it (ADR 152/153). Nothing is recorded in account_exports.
 */
export async function exportAccountNow(opts: { accountId: number }): Promise<{ path: string; sizeBytes: number }> {
  const dir = exportsDir();
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const archivePath = path.join(dir, `account-${opts.accountId}-${stamp}.tar.gz`);
  try {
    const { sizeBytes } = await writeArchive(opts.accountId, archivePath);
    return { path: archivePath, sizeBytes };
  } catch (err) {
    await fs.promises.rm(archivePath, { force: true });
    throw err;
  }
}

/**
 * Queues an export of the account for the engine. One at a time per account: while one is queued or being made, its
 * id is answered (with `alreadyRunning`) instead of a second one.
 */
export async function requestAccountExport(opts: {
  accountId: number;
  requestedBy: { kind: 'user' | 'operator'; id: number };
}): Promise<{ exportId: number; alreadyRunning?: boolean }> {
  return getDb().transaction(async (tx) => {
    // Serialises two requests of the same account (a double click) without a table lock.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('account-export'), ${opts.accountId})`);
    const [running] = await tx
      .select({ id: schema.accountExports.id })
      .from(schema.accountExports)
      .where(and(eq(schema.accountExports.accountId, opts.accountId), inArray(schema.accountExports.status, ['queued', 'running'])));
    if (running) return { exportId: running.id, alreadyRunning: true };
    const [row] = await tx
      .insert(schema.accountExports)
      .values({ accountId: opts.accountId, requestedByKind: opts.requestedBy.kind, requestedById: opts.requestedBy.id })
      .returning({ id: schema.accountExports.id });
    await enqueueInTx(tx, QUEUES.accountExport, { accountId: opts.accountId, exportId: row.id });
    return { exportId: row.id };
  });
}

export async function listAccountExports(opts: { accountId: number; limit?: number }) {
  return getDb()
    .select()
    .from(schema.accountExports)
    .where(eq(schema.accountExports.accountId, opts.accountId))
    .orderBy(desc(schema.accountExports.createdAt), desc(schema.accountExports.id))
    .limit(opts.limit ?? 20);
}

export async function getAccountExport(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(schema.accountExports)
    .where(and(eq(schema.accountExports.accountId, opts.accountId), eq(schema.accountExports.id, opts.id)));
  return row;
}

const ax = schema.accountExports;

function progressMessage(row: Pick<AccountExport, 'id' | 'status' | 'totalRows' | 'doneRows'>) {
  return { type: 'export.progress', exportId: row.id, status: row.status, total: row.totalRows, done: row.doneRows };
}

async function setExport(accountId: number, id: number, values: Partial<typeof ax.$inferInsert>) {
  const [row] = await getDb()
    .update(ax)
    .set(values)
    .where(and(eq(ax.accountId, accountId), eq(ax.id, id)))
    .returning();
  if (row) await publishToAccount(accountId, progressMessage(row));
  return row;
}

/**
 * The engine's job: claims the export (a queued one, or a running one whose engine died), writes its archive to a work
 * file under PARLEY_DATA_DIR/exports, moves it into the file storage and marks it ready until it expires. A failure
 * is written on the row (the page says so); the owner asks again.
 */
export async function runAccountExport(opts: { accountId: number; exportId: number }) {
  const [claimed] = await getDb()
    .update(ax)
    .set({ status: 'running', startedAt: new Date(), doneRows: 0 })
    // A running export whose start is an hour old lost its engine (its job expired into a retry): claimed again.
    .where(and(eq(ax.accountId, opts.accountId), eq(ax.id, opts.exportId), claimableRun({ status: ax.status, createdAt: ax.startedAt })))
    .returning();
  if (!claimed) return { skipped: true };
  await publishToAccount(opts.accountId, progressMessage(claimed));
  const dir = path.join(exportsDir(), 'work');
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const archivePath = path.join(dir, `export-${opts.exportId}.tar.gz`);
  let done = 0;
  let total = 0;
  let lastWrite = 0;
  const progress: Progress = {
    total: async (n) => {
      total = n;
      await setExport(opts.accountId, opts.exportId, { totalRows: n });
    },
    advance: async (n) => {
      done += n;
      // A write a second at most: progress is for a person watching, not a ledger.
      if (Date.now() - lastWrite < 1000 && done < total) return;
      lastWrite = Date.now();
      await setExport(opts.accountId, opts.exportId, { doneRows: done });
    },
  };
  let storageKey: string | null = null;
  try {
    const { sizeBytes, sha256 } = await writeArchive(opts.accountId, archivePath, progress);
    storageKey = newStorageKey(opts.accountId, 'tgz');
    await getFileStorage().putFile(storageKey, archivePath);
    const row = await setExport(opts.accountId, opts.exportId, {
      status: 'ready',
      doneRows: done,
      storageKey,
      sizeBytes,
      sha256,
      finishedAt: new Date(),
      expiresAt: new Date(Date.now() + EXPORT_TTL_DAYS * 86_400_000),
    });
    // The account was deleted while its archive was being written: the archive goes with it.
    if (!row) await removeStoredFiles([storageKey]);
    return { sizeBytes };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    getLogger().error({ accountId: opts.accountId, exportId: opts.exportId, err: message }, 'account export failed');
    if (storageKey) await removeStoredFiles([storageKey]);
    await setExport(opts.accountId, opts.exportId, { status: 'failed', error: 'The archive could not be written. Please try again.', finishedAt: new Date() });
    return { failed: true };
  } finally {
    await fs.promises.rm(archivePath, { force: true });
  }
}

export type DownloadClaim =
  | { ok: true; storageKey: string; sizeBytes: number | null; filename: string }
  | { ok: false; status: AccountExportStatus | 'missing'; message: string };

export const DOWNLOAD_REFUSED: Record<AccountExportStatus | 'missing', string> = {
  downloaded: 'This export has already been downloaded. Each archive can be downloaded once: request a new export.',
  expired: 'This export has expired and its archive was deleted. Request a new export.',
  failed: 'This export failed. Request a new export.',
  queued: 'This export is not ready yet.',
  running: 'This export is not ready yet.',
  ready: '',
  missing: 'There is no such export.',
};

/**
 * Takes the one download of a ready archive: marks it downloaded in the same statement that checks it is ready and
 * unexpired, so two requests at once get it once. The caller streams the file and then calls finishExportDownload.
 */
export async function claimExportDownload(opts: { accountId: number; id: number }): Promise<DownloadClaim> {
  const [row] = await getDb()
    .update(ax)
    .set({ status: 'downloaded', downloadedAt: new Date() })
    .where(and(eq(ax.accountId, opts.accountId), eq(ax.id, opts.id), eq(ax.status, 'ready'), isNotNull(ax.storageKey), sql`${ax.expiresAt} > now()`))
    .returning();
  if (row?.storageKey) {
    await publishToAccount(opts.accountId, progressMessage(row));
    return { ok: true, storageKey: row.storageKey, sizeBytes: row.sizeBytes, filename: exportFilename(row) };
  }
  const current = await getAccountExport(opts);
  if (!current) return { ok: false, status: 'missing', message: DOWNLOAD_REFUSED.missing };
  // Ready but past its expiry (the clean-up job has not run yet): the same answer as once it has.
  const status: AccountExportStatus = current.status === 'ready' ? 'expired' : current.status;
  return { ok: false, status, message: DOWNLOAD_REFUSED[status] };
}

export function exportFilename(row: Pick<AccountExport, 'id' | 'accountId' | 'finishedAt'>) {
  const day = (row.finishedAt ?? new Date()).toISOString().slice(0, 10);
  return `parley-account-${row.accountId}-export-${row.id}-${day}.tar.gz`;
}

/** After the download (finished or broken off): the archive is deleted, and the row no longer names it. */
export async function finishExportDownload(opts: { accountId: number; id: number; storageKey: string }) {
  await removeStoredFiles([opts.storageKey]);
  await getDb()
    .update(ax)
    .set({ storageKey: null })
    .where(and(eq(ax.accountId, opts.accountId), eq(ax.id, opts.id), eq(ax.storageKey, opts.storageKey)));
}

/**
 * The scheduled clean-up, across accounts: ready archives past their expiry become expired and their files go; files
 * of downloaded exports that a broken-off download left behind go too. Returns how many archives were removed.
 */
export async function cleanUpAccountExports(opts: { now?: Date } = {}) {
  const now = opts.now ?? new Date();
  const rows = await getDb()
    .select({ id: ax.id, accountId: ax.accountId, status: ax.status, storageKey: ax.storageKey })
    .from(ax)
    .where(
      or(
        and(eq(ax.status, 'ready'), lte(ax.expiresAt, now)),
        and(inArray(ax.status, ['downloaded', 'expired', 'failed']), isNotNull(ax.storageKey), lte(ax.finishedAt, new Date(now.getTime() - 3_600_000))),
      ),
    )
    .limit(1000);
  for (const row of rows) {
    if (row.storageKey) await removeStoredFiles([row.storageKey]);
    await getDb()
      .update(ax)
      .set({ storageKey: null, ...(row.status === 'ready' ? { status: 'expired' as const } : {}) })
      .where(and(eq(ax.accountId, row.accountId), eq(ax.id, row.id)));
  }
  // Work files of an engine that died mid-archive: a day old is long past any running export.
  const work = path.join(exportsDir(), 'work');
  for (const name of await fs.promises.readdir(work).catch(() => [] as string[])) {
    const full = path.join(work, name);
    const st = await fs.promises.stat(full).catch(() => undefined);
    if (st && st.mtimeMs < now.getTime() - 86_400_000) await fs.promises.rm(full, { recursive: true, force: true });
  }
  return { removed: rows.length };
}
