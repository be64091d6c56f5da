import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { Header, x as extractTar } from 'tar';
import { migrationsFolder, runMigrations } from '../../../db/migrate';
import type { Config } from '../../utils/env.server';
import type { FileStorage } from '../storage/files.server';
import { isStorageKey } from '../storage/keys.server';

/**
 * A whole installation in one .tar.gz (ADR 151): every table's rows as PostgreSQL COPY text taken in one snapshot,
 * the sequences, every stored file, and manifest.json (last) with the size and SHA-256 of each entry. The schema is
 * not in the archive: it is this build's migrations up to the one the manifest names, replayed on restore, after
 * which the build's newer migrations run. No pg_dump is needed (the embedded PostgreSQL ships none, and a client
 * older than the server refuses to dump it), so the same command works on the embedded database, an external one and
 * in the Docker image.
 */

export const ARCHIVE_FORMAT = 'parley-backup';
export const ARCHIVE_FORMAT_VERSION = 1;

/** pg-boss keeps its queue definitions (rebuilt by this build at start) beside the jobs: only the jobs are data. */
const PGBOSS_TABLES = new Set(['job']);

export type ArchiveEntry = { entry: string; bytes: number; sha256: string };
export type TableEntry = ArchiveEntry & { schema: string; name: string; columns: string[]; rows: number };
export type FileEntry = ArchiveEntry & { key: string };
export type BackupManifest = {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  parleyVersion: string;
  createdAt: string;
  /** The newest migration applied to the database when it was read: the restore replays the schema up to it. */
  migration: { tag: string; when: number };
  postgres: { serverVersion: string };
  database: { tables: TableEntry[]; sequences: ArchiveEntry; bytes: number };
  files: FileEntry[];
  /**
   * The generated session secret of PARLEY_DATA_DIR, when the installation uses it (no SESSION_SECRET): the key that
   * seals integration tokens and mailbox passwords is derived from it unless PARLEY_SECRET_KEY is set. keyCheck tells a
   * restore whether its key opens what the archive holds, without revealing the key.
   */
  secrets: { sessionSecret: ArchiveEntry | null; keyCheck: string };
  totals: { tables: number; rows: number; databaseBytes: number; files: number; fileBytes: number };
};

/** A problem with the archive or the target that the operator can fix; nothing was written when it is thrown before a restore begins. */
export class BackupError extends Error {}

export type BackupResult = { path: string; sizeBytes: number; manifest: BackupManifest; seconds: number };

/** Parley's version, from the package.json above this module (the checkout's, or the image's /app). */
export function parleyVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'parley' && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

type Journal = { entries: { idx: number; tag: string; when: number }[] };
function readJournal(): Journal {
  return JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/** A hash of the sealing key, so two installations can tell whether they share it without either revealing it. */
export function keyCheck(secretKey: Buffer) {
  return crypto.createHmac('sha256', secretKey).update('parley-backup-key-check').digest('hex').slice(0, 24);
}

const sha256Hex = () => crypto.createHash('sha256');

/** The SHA-256 of a stream's bytes, read to its end. */
export async function sha256Of(stream: Readable) {
  const hash = sha256Hex();
  for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** A default archive name: parley-backup-2026-12-03T07-45-00Z.tar.gz. */
export function archiveName(at = new Date()) {
  return `parley-backup-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.tar.gz`;
}

/**
 * Writes one archive of the database (a consistent snapshot) and every stored file to `out` (a file path; a
 * directory gets a dated name). The tables are spooled beside the output first (a tar entry's size comes before its
 * bytes), then everything streams through gzip: memory stays flat whatever the size. The file appears under its
 * name only once complete (written as .partial, then renamed).
 */
export async function createBackup(opts: {
  databaseUrl: string;
  storage: FileStorage;
  config: Pick<Config, 'dataDir' | 'sessionSecret' | 'secretKey'>;
  out: string;
  log?: (msg: string) => void;
}): Promise<BackupResult> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const target = resolveOutput(opts.out);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.parley-backup-'));
  const partial = `${target}.partial`;
  try {
    const db = await dumpDatabase({ databaseUrl: opts.databaseUrl, staging, log });
    log(`database read: ${db.tables.length} tables, ${db.totals.rows} rows (${db.totals.bytes} bytes)`);

    // After the snapshot: a file written since is an orphan the restore carries harmlessly; a file a row of the
    // snapshot names was written before its row committed, so it is in the listing.
    const objects: { key: string; size: number }[] = [];
    for await (const o of opts.storage.list('')) objects.push(o);
    objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    const out = fs.createWriteStream(partial, { mode: 0o600 });
    const gzip = zlib.createGzip({ level: 6 });
    const piped = pipeline(gzip, out);
    const writer = new TarWriter(gzip);

    const tables: TableEntry[] = [];
    for (const t of db.tables) {
      await writer.addFile(t.entry, t.bytes, fs.createReadStream(path.join(staging, t.entry)));
      tables.push(t);
    }
    const sequencesEntry = await writer.addFile(db.sequences.entry, db.sequences.bytes, fs.createReadStream(path.join(staging, db.sequences.entry)));

    const files: FileEntry[] = [];
    let fileBytes = 0;
    for (const o of objects) {
      const stream = await opts.storage.getStream(o.key);
      if (!stream) continue; // removed since the listing: its row went with it
      const written = await writer.addFile(`files/${o.key}`, o.size, stream);
      files.push({ key: o.key, ...written });
      fileBytes += o.size;
    }
    log(`files read: ${files.length} (${fileBytes} bytes)`);

    let sessionSecret: ArchiveEntry | null = null;
    const secretFile = path.join(opts.config.dataDir, 'session-secret');
    if (fs.existsSync(secretFile) && fs.readFileSync(secretFile, 'utf8').trim() === opts.config.sessionSecret) {
      const bytes = fs.readFileSync(secretFile);
      sessionSecret = await writer.addBuffer('secrets/session-secret', bytes);
    }

    const manifest: BackupManifest = {
      format: ARCHIVE_FORMAT,
      formatVersion: ARCHIVE_FORMAT_VERSION,
      parleyVersion: parleyVersion(),
      createdAt: new Date().toISOString(),
      migration: db.migration,
      postgres: { serverVersion: db.serverVersion },
      database: { tables, sequences: sequencesEntry, bytes: db.totals.bytes },
      files,
      secrets: { sessionSecret, keyCheck: keyCheck(opts.config.secretKey) },
      totals: { tables: tables.length, rows: db.totals.rows, databaseBytes: db.totals.bytes, files: files.length, fileBytes },
    };
    await writer.addBuffer('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    await writer.end();
    await piped;
    await fsyncFile(partial);
    fs.renameSync(partial, target);
    const sizeBytes = fs.statSync(target).size;
    return { path: target, sizeBytes, manifest, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

function resolveOutput(out: string) {
  const resolved = path.resolve(out);
  const isDir = out.endsWith('/') || (fs.existsSync(resolved) && fs.statSync(resolved).isDirectory());
  return isDir ? path.join(resolved, archiveName()) : resolved;
}

async function fsyncFile(file: string) {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The tables of the archive: Parley's own (public) and pg-boss's jobs, never a partition or an extension's table. */
async function listTables(sql: postgres.Sql | postgres.TransactionSql) {
  const rows = await sql<{ schema: string; name: string; columns: string[] }[]>`
    select n.nspname as schema, c.relname as name,
           array(select a.attname::text from pg_attribute a
                  where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                  order by a.attnum) as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and not c.relispartition and n.nspname in ('public', 'pgboss')
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
     order by n.nspname desc, c.relname`;
  return rows.filter((r) => r.schema === 'public' || PGBOSS_TABLES.has(r.name));
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const qualified = (t: { schema: string; name: string }) => `${ident(t.schema)}.${ident(t.name)}`;

/** The migration of this build's journal whose `when` is the database's newest applied one. */
async function databaseMigration(sql: postgres.Sql | postgres.TransactionSql) {
  const [exists] = await sql<{ t: string | null }[]>`select to_regclass('drizzle.__drizzle_migrations')::text as t`;
  if (!exists?.t) throw new BackupError('The database has no Parley schema (no migration was ever applied): there is nothing to back up.');
  const [row] = await sql<{ at: string | null }[]>`select max(created_at)::text as at from drizzle.__drizzle_migrations`;
  const when = Number(row?.at);
  const entry = readJournal().entries.find((e) => e.when === when);
  if (!entry) {
    throw new BackupError(
      `The database's newest migration (from ${new Date(when).toISOString()}) is not one this version of Parley knows: back it up with the version that runs it.`,
    );
  }
  return { tag: entry.tag, when: entry.when };
}

/** Every table's rows in one repeatable-read snapshot, spooled as COPY text files under `staging`. */
async function dumpDatabase(opts: { databaseUrl: string; staging: string; log: (msg: string) => void }) {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'parley-backup' } });
  try {
    return await sql.begin('isolation level repeatable read read only', async (tx) => {
      const migration = await databaseMigration(tx);
      const [{ version }] = await tx<{ version: string }[]>`select current_setting('server_version') as version`;
      const tables: TableEntry[] = [];
      let rows = 0;
      let bytes = 0;
      fs.mkdirSync(path.join(opts.staging, 'database'), { recursive: true });
      for (const t of await listTables(tx)) {
        const entry = `database/${t.schema}.${t.name}.copy`;
        const select = `select ${t.columns.map(ident).join(', ')} from ${qualified(t)}`;
        const source = await tx.unsafe(`copy (${select}) to stdout`).readable();
        const hash = sha256Hex();
        let size = 0;
        let lines = 0;
        // COPY's text format escapes newlines inside values: each row is exactly one line.
        const meter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            size += chunk.length;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
            done(null, chunk);
          },
        });
        try {
          await pipeline(source, meter, fs.createWriteStream(path.join(opts.staging, entry)));
        } finally {
          // postgres.js pauses its socket when a COPY stream's buffer is full and resumes it only from the stream's
          // read(); when the end of the COPY arrives while paused, nothing reads again and the connection hangs on the
          // next query. Asking once more after the end resumes the socket.
          (source as unknown as { _read: (n: number) => void })._read(0);
        }
        tables.push({ schema: t.schema, name: t.name, columns: t.columns, rows: lines, entry, bytes: size, sha256: hash.digest('hex') });
        rows += lines;
        bytes += size;
      }
      // Read inside the snapshot; a sequence moves outside transactions, so a value read here is never behind its rows.
      const sequences = await tx<{ name: string; lastValue: string | null }[]>`
        select quote_ident(schemaname) || '.' || quote_ident(sequencename) as name, last_value::text as "lastValue"
          from pg_sequences where schemaname = 'public' order by 1`;
      const seqBytes = Buffer.from(`${JSON.stringify(sequences)}\n`);
      const seqEntry = 'database/sequences.json';
      fs.writeFileSync(path.join(opts.staging, seqEntry), seqBytes);
      return {
        migration,
        serverVersion: version,
        tables,
        sequences: { entry: seqEntry, bytes: seqBytes.length, sha256: sha256Hex().update(seqBytes).digest('hex') },
        totals: { rows, bytes },
      };
    });
  } finally {
    await sql.end();
  }
}

/**
 * A ustar writer over a stream (node-tar's Header encodes each header): entries of known size go in one after
 * another, each hashed on the way, with backpressure, so neither a table nor a file is ever held whole.
 */
class TarWriter {
  constructor(private readonly out: NodeJS.WritableStream) {}

  private async write(chunk: Buffer) {
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  private header(entry: string, size: number) {
    if (Buffer.byteLength(entry) > 100) throw new Error(`archive entry name too long: ${entry}`);
    const header = new Header({ path: entry, mode: 0o600, size, mtime: new Date(), type: 'File', uid: 0, gid: 0, uname: '', gname: '' });
    header.encode();
    return header.block!;
  }

  async addFile(entry: string, size: number, source: Readable): Promise<ArchiveEntry> {
    await this.write(this.header(entry, size));
    const hash = sha256Hex();
    let written = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        written += chunk.length;
        if (written > size) throw new BackupError(`${entry} grew while it was read (more than its ${size} bytes)`);
        hash.update(chunk);
        await this.write(chunk);
      }
    } finally {
      source.destroy();
    }
    if (written !== size) throw new BackupError(`${entry} changed while it was read (${written} bytes instead of ${size})`);
    await this.pad(size);
    return { entry, bytes: size, sha256: hash.digest('hex') };
  }

  async addBuffer(entry: string, bytes: Buffer): Promise<ArchiveEntry> {
    await this.write(this.header(entry, bytes.length));
    await this.write(bytes);
    await this.pad(bytes.length);
    return { entry, bytes: bytes.length, sha256: sha256Hex().update(bytes).digest('hex') };
  }

  private async pad(size: number) {
    const rest = size % 512;
    if (rest) await this.write(Buffer.alloc(512 - rest));
  }

  async end() {
    await this.write(Buffer.alloc(1024)); // two zero blocks close a tar
    this.out.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Restore

export type RestoreResult = {
  manifest: BackupManifest;
  /** Migrations this build applied after the archive's rows were in. */
  migrationsApplied: string[];
  rows: number;
  files: number;
  /** Jobs of queues this build no longer has (left out). */
  droppedJobs: number;
  seconds: number;
};

/**
 * Brings an archive into an empty installation: the archive is unpacked to a staging directory and every entry
 * checked against the manifest before anything is touched; then the schema is rebuilt by this build's migrations up
 * to the archive's, the rows go in (one transaction), the newer migrations run, and every file is written through the
 * storage interface and read back. A target that holds accounts or stored files is refused unless `force`.
 */
export async function restoreBackup(opts: {
  archive: string;
  databaseUrl: string;
  storage: FileStorage;
  config: Pick<Config, 'dataDir' | 'secretKey'>;
  /** Reads the configuration again after the session secret was put back (the sealing key may derive from it). */
  reloadSecretKey: () => Buffer;
  force?: boolean;
  log?: (msg: string) => void;
}): Promise<RestoreResult> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const archive = path.resolve(opts.archive);
  if (!fs.existsSync(archive) || !fs.statSync(archive).isFile()) throw new BackupError(`No archive at ${archive}.`);
  fs.mkdirSync(opts.config.dataDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(opts.config.dataDir, '.restore-'));
  try {
    log(`checking ${archive}`);
    const manifest = await unpackAndVerify(archive, staging);
    log(
      `archive of Parley ${manifest.parleyVersion} made ${manifest.createdAt}: ${manifest.totals.rows} rows in ${manifest.totals.tables} tables, ${manifest.totals.files} files, migration ${manifest.migration.tag}`,
    );
    const journal = readJournal();
    const level = journal.entries.findIndex((e) => e.tag === manifest.migration.tag && e.when === manifest.migration.when);
    if (level === -1) {
      const newest = journal.entries.at(-1)!;
      throw new BackupError(
        manifest.migration.when > newest.when
          ? `The archive was made by a newer Parley (${manifest.parleyVersion}, migration ${manifest.migration.tag}) than this one (newest migration ${newest.tag}): restore it with that version or a later one.`
          : `The archive's migration ${manifest.migration.tag} is not one this version of Parley knows.`,
      );
    }
    for (const f of manifest.files) if (!isStorageKey(f.key)) throw new BackupError(`The archive names a stored file outside Parley's key layout: ${f.key}`);

    await refuseNonEmptyTarget({ databaseUrl: opts.databaseUrl, storage: opts.storage, force: opts.force === true });
    const putBackSecret = restoreSessionSecret({ manifest, staging, dataDir: opts.config.dataDir, log });
    const key = putBackSecret ? opts.reloadSecretKey() : opts.config.secretKey;
    if (keyCheck(key) !== manifest.secrets.keyCheck && !opts.force) {
      putBackSecret?.undo();
      throw new BackupError(
        'The key that seals integration tokens and mailbox passwords here is not the one of the backed-up installation: ' +
          'set PARLEY_SECRET_KEY (or SESSION_SECRET, if that is where it came from) to the values the backed-up installation used, ' +
          'or pass --force to restore anyway (those secrets will then have to be entered again).',
      );
    }

    // From here the target is written. Every step says where it failed; the target was empty, so a rerun with
    // --force starts over from a clean schema.
    const migrationsAfter = journal.entries.slice(level + 1).map((e) => e.tag);
    log(`rebuilding the schema up to ${manifest.migration.tag}`);
    await resetSchema(opts.databaseUrl);
    await migrateUpTo(opts.databaseUrl, manifest.migration.tag);
    await installJobQueues(opts.databaseUrl);
    log('loading the rows');
    const { rows, droppedJobs } = await loadRows({ databaseUrl: opts.databaseUrl, staging, manifest });
    if (migrationsAfter.length) log(`applying this version's newer migrations: ${migrationsAfter.join(', ')}`);
    await runMigrations(opts.databaseUrl);
    await settleArchivedRun({ databaseUrl: opts.databaseUrl, manifest, archive });
    log(`writing ${manifest.files.length} files`);
    await writeFiles({ storage: opts.storage, staging, files: manifest.files });
    return { manifest, migrationsApplied: migrationsAfter, rows, files: manifest.files.length, droppedJobs, seconds: (performance.now() - started) / 1000 };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Unpacks the archive and checks every entry's size and SHA-256 against the manifest: a damaged archive fails here. */
async function unpackAndVerify(archive: string, staging: string): Promise<BackupManifest> {
  const seen = new Set<string>();
  try {
    await extractTar({
      file: archive,
      cwd: staging,
      strict: true,
      // Only plain files; tar's own checks keep every path inside the staging directory.
      filter: (p, entry) => {
        if ('type' in entry && entry.type !== 'File') return false;
        seen.add(p);
        return true;
      },
    });
  } catch (err) {
    throw new BackupError(`The archive cannot be read (${(err as Error).message}): it is damaged or not a Parley backup.`);
  }
  const manifestPath = path.join(staging, 'manifest.json');
  if (!fs.existsSync(manifestPath)) throw new BackupError('The archive has no manifest.json: it is not a Parley backup, or it was cut short.');
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError("The archive's manifest.json is not valid JSON.");
  }
  if (manifest.format !== ARCHIVE_FORMAT) throw new BackupError('The archive is not a Parley backup (its manifest says otherwise).');
  if (manifest.formatVersion > ARCHIVE_FORMAT_VERSION) throw new BackupError(`The archive's format (${manifest.formatVersion}) is newer than this version of Parley reads: restore it with a newer Parley.`);
  const entries: ArchiveEntry[] = [...manifest.database.tables, manifest.database.sequences, ...manifest.files, ...(manifest.secrets.sessionSecret ? [manifest.secrets.sessionSecret] : [])];
  const listed = new Set(entries.map((e) => e.entry));
  const bad: string[] = [];
  for (const e of entries) {
    const file = path.join(staging, e.entry);
    if (!path.resolve(file).startsWith(staging + path.sep) || !fs.existsSync(file)) {
      bad.push(`${e.entry}: missing`);
      continue;
    }
    const size = fs.statSync(file).size;
    if (size !== e.bytes) {
      bad.push(`${e.entry}: ${size} bytes, the manifest says ${e.bytes}`);
      continue;
    }
    if ((await sha256Of(fs.createReadStream(file))) !== e.sha256) bad.push(`${e.entry}: checksum mismatch`);
  }
  for (const p of seen) if (p !== 'manifest.json' && !listed.has(p)) bad.push(`${p}: not in the manifest`);
  if (bad.length) {
    const shown = bad.slice(0, 10).map((b) => `  - ${b}`).join('\n');
    throw new BackupError(`The archive is damaged: ${bad.length} ${bad.length === 1 ? 'entry does' : 'entries do'} not match the manifest. Nothing was restored.\n${shown}${bad.length > 10 ? '\n  ...' : ''}`);
  }
  return manifest;
}

/** An installation with accounts or stored files is not empty: a restore would replace them. */
async function refuseNonEmptyTarget(opts: { databaseUrl: string; storage: FileStorage; force: boolean }) {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const others = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid() and application_name like 'parley%'`;
    if (others[0].n > 0) throw new BackupError(`Parley is running on this database (${others[0].n} connections): stop every node (web and engine) before restoring.`);
    if (opts.force) return;
    const [t] = await sql<{ t: string | null }[]>`select to_regclass('public.accounts')::text as t`;
    if (t?.t) {
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from accounts`;
      if (n > 0) {
        throw new BackupError(
          `This installation already holds ${n} ${n === 1 ? 'account' : 'accounts'}: a restore goes into an empty one. ` +
            'Point DATABASE_URL (or PARLEY_DATA_DIR) at a new database, or pass --force to replace everything here with the archive.',
        );
      }
    }
  } finally {
    await sql.end();
  }
  for await (const o of opts.storage.list('')) {
    throw new BackupError(
      `The file storage already holds files (${o.key}...): a restore goes into an empty one. Use a new PARLEY_DATA_DIR or bucket prefix, or pass --force to write over it.`,
    );
  }
}

/** Puts the archive's session secret in PARLEY_DATA_DIR when this installation uses a generated one too. */
function restoreSessionSecret(opts: { manifest: BackupManifest; staging: string; dataDir: string; log: (m: string) => void }) {
  const entry = opts.manifest.secrets.sessionSecret;
  if (!entry || process.env.SESSION_SECRET) return undefined;
  const file = path.join(opts.dataDir, 'session-secret');
  const before = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  fs.writeFileSync(file, fs.readFileSync(path.join(opts.staging, entry.entry)), { mode: 0o600 });
  opts.log('the session secret of the backed-up installation was put in PARLEY_DATA_DIR');
  return {
    undo: () => {
      if (before) fs.writeFileSync(file, before, { mode: 0o600 });
      else fs.rmSync(file, { force: true });
    },
  };
}

/**
 * Removes Parley's schema (its tables, sequences, functions and types, the migration log, pg-boss's schema) so the
 * archive's can be rebuilt. Only reached for an empty installation or with --force. Extensions stay.
 */
async function resetSchema(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`drop schema if exists pgboss cascade`;
      await tx`drop schema if exists drizzle cascade`;
      const notExtension = (catalog: string, oid: string) =>
        `not exists (select 1 from pg_depend d where d.classid = '${catalog}'::regclass and d.objid = ${oid} and d.deptype = 'e')`;
      const relations = await tx.unsafe<{ name: string; kind: string }[]>(
        `select quote_ident(c.relname) as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition and ${notExtension('pg_class', 'c.oid')}`,
      );
      const dropKind: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view', f: 'foreign table' };
      for (const r of relations) await tx.unsafe(`drop ${dropKind[r.kind]} if exists public.${r.name} cascade`);
      const sequences = await tx.unsafe<{ name: string }[]>(
        `select quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind = 'S' and ${notExtension('pg_class', 'c.oid')}`,
      );
      for (const s of sequences) await tx.unsafe(`drop sequence if exists public.${s.name} cascade`);
      const functions = await tx.unsafe<{ sig: string }[]>(
        `select p.oid::regprocedure::text as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname = 'public' and ${notExtension('pg_proc', 'p.oid')}`,
      );
      for (const f of functions) await tx.unsafe(`drop routine if exists ${f.sig} cascade`);
      const types = await tx.unsafe<{ name: string }[]>(
        `select quote_ident(t.typname) as name from pg_type t join pg_namespace n on n.oid = t.typnamespace
          where n.nspname = 'public' and t.typtype in ('e', 'd', 'c') and (t.typtype <> 'c' or (select relkind from pg_class where oid = t.typrelid) = 'c')
            and ${notExtension('pg_type', 't.oid')}`,
      );
      for (const t of types) await tx.unsafe(`drop type if exists public.${t.name} cascade`);
    });
  } finally {
    await sql.end();
  }
}

/**
 * Applies this build's migrations up to and including `tag`, no further: drizzle's migrator over a copy of the
 * journal cut after that entry. The rest are applied by runMigrations once the rows are in.
 */
export async function migrateUpTo(databaseUrl: string, tag: string) {
  const journal = readJournal();
  const idx = journal.entries.findIndex((e) => e.tag === tag);
  if (idx === -1) throw new BackupError(`No migration ${tag} in this build.`);
  const folder = fs.mkdtempSync(path.join(path.dirname(migrationsFolder), '.migrations-upto-'));
  try {
    fs.mkdirSync(path.join(folder, 'meta'));
    const entries = journal.entries.slice(0, idx + 1);
    fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const e of entries) fs.copyFileSync(path.join(migrationsFolder, `${e.tag}.sql`), path.join(folder, `${e.tag}.sql`));
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(sql), { migrationsFolder: folder });
    } finally {
      await sql.end();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** pg-boss's schema and this build's queues, as the server's start installs them, so that the jobs have their partitions. */
async function installJobQueues(databaseUrl: string) {
  const { default: PgBoss } = await import('pg-boss');
  const { ensureQueues } = await import('../../utils/jobs.server');
  const boss = new PgBoss({ connectionString: databaseUrl, max: 2, supervise: false, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  try {
    await ensureQueues(boss);
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

/**
 * The archive's rows in one transaction: tables in foreign-key order, user triggers off while they load (the
 * conversation counters are rows of the archive themselves), each table's count checked, then the sequences.
 */
async function loadRows(opts: { databaseUrl: string; staging: string; manifest: BackupManifest }) {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'parley-restore' } });
  try {
    return await sql.begin(async (tx) => {
      const present = new Map((await listTables(tx)).map((t) => [`${t.schema}.${t.name}`, t]));
      const problems: string[] = [];
      for (const t of opts.manifest.database.tables) {
        const here = present.get(`${t.schema}.${t.name}`);
        if (!here) problems.push(`table ${t.schema}.${t.name} does not exist here`);
        else for (const c of t.columns) if (!here.columns.includes(c)) problems.push(`column ${t.schema}.${t.name}.${c} does not exist here`);
      }
      if (problems.length) {
        throw new BackupError(
          `The archive's tables do not match the schema of its migration (${opts.manifest.migration.tag}) in this build: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; ...' : ''}. ` +
            'Was the backed-up database changed by hand?',
        );
      }
      const order = await foreignKeyOrder(tx, opts.manifest.database.tables);
      const withTriggers = await tx<{ name: string }[]>`
        select distinct quote_ident(c.relname) as name from pg_trigger g join pg_class c on c.oid = g.tgrelid
          join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not g.tgisinternal`;
      for (const t of withTriggers) await tx.unsafe(`alter table public.${t.name} disable trigger user`);
      const queues = (await tx<{ name: string }[]>`select name from pgboss.queue`).map((q) => q.name);
      // The jobs this build's queue set-up queued just now (a start-up check) would collide with the archive's own.
      await tx`delete from pgboss.job`;
      let rows = 0;
      let droppedJobs = 0;
      for (const t of order) {
        if (t.rows === 0) continue;
        const columns = t.columns.map(ident).join(', ');
        // A job of a queue this build no longer declares would have no partition to go to: left out, and counted.
        const where = t.schema === 'pgboss' ? ` where name = any(${literalArray(queues)})` : '';
        const count = async () => (await tx.unsafe<{ n: number }[]>(`select count(*)::int as n from ${qualified(t)}`))[0].n;
        const before = t.schema === 'pgboss' ? await count() : 0;
        const target = await tx.unsafe(`copy ${qualified(t)} (${columns}) from stdin${where}`).writable();
        await pipeline(fs.createReadStream(path.join(opts.staging, t.entry)), target);
        const n = (await count()) - before;
        if (t.schema === 'pgboss') droppedJobs = t.rows - n;
        else if (n !== t.rows) throw new BackupError(`${t.schema}.${t.name}: ${n} rows loaded, the archive holds ${t.rows}.`);
        rows += n;
      }
      for (const t of withTriggers) await tx.unsafe(`alter table public.${t.name} enable trigger user`);
      const sequences = JSON.parse(fs.readFileSync(path.join(opts.staging, opts.manifest.database.sequences.entry), 'utf8')) as { name: string; lastValue: string | null }[];
      for (const s of sequences) {
        if (s.lastValue === null) continue;
        const [exists] = await tx<{ t: string | null }[]>`select to_regclass(${s.name})::text as t`;
        if (exists?.t) await tx`select setval(${s.name}::regclass, ${s.lastValue}::bigint, true)`;
      }
      return { rows, droppedJobs };
    });
  } finally {
    await sql.end();
  }
}

/**
 * The backup that made the archive was recorded as running in its own snapshot: it succeeded (here is its archive),
 * so its row says so instead of showing a backup running forever.
 */
async function settleArchivedRun(opts: { databaseUrl: string; manifest: BackupManifest; archive: string }) {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`update backup_runs set status = 'succeeded', finished_at = ${new Date(opts.manifest.createdAt)}, path = coalesce(path, ${opts.archive})
               where status = 'running'`;
  } finally {
    await sql.end();
  }
}

const literalArray = (values: string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]::text[]`;

/** The tables ordered so that each comes after the tables its foreign keys point at (self-references aside). */
async function foreignKeyOrder(tx: postgres.TransactionSql, tables: TableEntry[]) {
  const edges = await tx<{ child: string; parent: string }[]>`
    select cn.nspname || '.' || c.relname as child, pn.nspname || '.' || p.relname as parent
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid join pg_namespace cn on cn.oid = c.relnamespace
      join pg_class p on p.oid = k.confrelid join pg_namespace pn on pn.oid = p.relnamespace
     where k.contype = 'f' and not k.condeferrable and k.conrelid <> k.confrelid and cn.nspname = 'public'`;
  const byName = new Map(tables.map((t) => [`${t.schema}.${t.name}`, t]));
  const parents = new Map<string, Set<string>>();
  for (const e of edges) if (byName.has(e.child) && byName.has(e.parent)) (parents.get(e.child) ?? parents.set(e.child, new Set()).get(e.child)!).add(e.parent);
  const order: TableEntry[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new BackupError(`The tables' foreign keys form a cycle (${[...trail, name].join(' -> ')}): this archive cannot be loaded in order.`);
    state.set(name, 'visiting');
    for (const p of parents.get(name) ?? []) visit(p, [...trail, name]);
    state.set(name, 'done');
    order.push(byName.get(name)!);
  };
  for (const name of byName.keys()) visit(name, []);
  return order;
}

/** Every file back through the storage interface, then read back and its SHA-256 compared; a few at a time. */
async function writeFiles(opts: { storage: FileStorage; staging: string; files: FileEntry[] }) {
  const failures: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < opts.files.length) {
      const f = opts.files[next++];
      try {
        await opts.storage.put(f.key, await fs.promises.readFile(path.join(opts.staging, f.entry)));
        const back = await opts.storage.getStream(f.key);
        if (!back) throw new Error('not found after writing');
        if ((await sha256Of(back)) !== f.sha256) throw new Error('reads back different bytes');
      } catch (err) {
        failures.push(`${f.key}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, lane));
  if (failures.length) {
    throw new BackupError(
      `The database was restored but ${failures.length} of ${opts.files.length} files could not be written to the storage:\n${failures
        .slice(0, 10)
        .map((f) => `  - ${f}`)
        .join('\n')}\nFix the storage and run the restore again with --force.`,
    );
  }
}
