/**
 * The clustered topology without containers (ADR 143), from Debian's packages: a PostgreSQL primary, a hot standby made
 * with pg_basebackup and kept by synchronous streaming replication, one PgBouncer (session mode) in front of each
 * server, HAProxy in front of the web nodes (HTTP with readiness checks and websocket upgrades, and inbound SMTP over
 * TCP), N web nodes (PARLEY_ENGINE=off) and M engine nodes, all on loopback ports. Every process is recorded by its
 * process id in `<dir>/cluster.json` and stopped by it.
 *
 *   npx tsx scripts/cluster.ts start [--web 3] [--engines 2] [--dir /tmp/parley-cluster]   (then prints the addresses)
 *   npx tsx scripts/cluster.ts stop --dir /tmp/parley-cluster
 *
 * The drills (tests/cluster) and the cluster bench (bench/cluster.ts) use `startCluster` directly. `npm run build` first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type ClusterOptions = {
  web?: number;
  engines?: number;
  dir?: string;
  /** Extra environment for every Parley node. */
  env?: Record<string, string>;
  /** Synchronous replication to the standby (on by default). */
  synchronous?: boolean;
  /** Load pg_stat_statements into both servers (the coordination bench reads it). */
  pgStatements?: boolean;
  log?: (line: string) => void;
};

type NodeRecord = { name: string; kind: 'web' | 'engine'; pid?: number; port?: number; smtpPort?: number; child?: ChildProcess; exited?: Promise<void> };

export type Ports = {
  primary: number;
  standby: number;
  bouncerPrimary: number;
  bouncerStandby: number;
  proxy: number;
  proxySmtp: number;
};

const DB = { name: 'parley', user: 'parley', password: 'parley-cluster-password' };
const INBOUND_DOMAIN = 'inbound.cluster.test';

/** Debian's PostgreSQL binaries (the newest installed major version), or PARLEY_PG_BIN. */
export function pgBin(name: string) {
  const dirs = process.env.PARLEY_PG_BIN
    ? [process.env.PARLEY_PG_BIN]
    : fs.existsSync('/usr/lib/postgresql')
      ? fs
          .readdirSync('/usr/lib/postgresql')
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
  for (const d of dirs) if (fs.existsSync(path.join(d, name))) return path.join(d, name);
  throw new Error(`${name} not found: install Debian's postgresql package (apt-get install postgresql pgbouncer haproxy), or set PARLEY_PG_BIN`);
}

function which(cmd: string) {
  for (const d of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/sbin'])) {
    const p = path.join(d, cmd);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`${cmd} not found: apt-get install postgresql pgbouncer haproxy`);
}

/** PostgreSQL and PgBouncer refuse to run as root: as root they run as the OS user `postgres`. */
function pgUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim());
  if (!Number.isFinite(uid) || uid === 0 || !uid) throw new Error('running as root needs the OS user postgres (Debian postgresql package creates it)');
  return { uid, gid };
}

function run(cmd: string, args: string[], opts: { asPg?: boolean; env?: Record<string, string>; allowFail?: boolean } = {}) {
  const user = opts.asPg ? pgUser() : undefined;
  const r = spawnSync(cmd, args, { uid: user?.uid, gid: user?.gid, env: { ...process.env, ...opts.env }, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r;
}

/** Ports handed out in this process: a port is free again once its probe closes, so it is never handed out twice. */
const handedOut = new Set<number>();
async function freePort(): Promise<number> {
  for (;;) {
    const port = await probePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
function probePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v as T;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

function isAlive(pid: number | undefined) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function postmasterPid(dataDir: string) {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

export class Cluster {
  readonly nodes = new Map<string, NodeRecord>();
  private haproxyPid?: number;
  private bouncerPids: Record<'primary' | 'standby', number | undefined> = { primary: undefined, standby: undefined };
  readonly secret = crypto.randomBytes(32).toString('hex');
  readonly sessionSecret = crypto.randomBytes(24).toString('hex');
  /** Which server is the primary now (after a promotion: the standby). */
  primaryRole: 'primary' | 'standby' = 'primary';

  constructor(
    readonly dir: string,
    readonly ports: Ports,
    private readonly opts: ClusterOptions,
  ) {}

  get log() {
    return this.opts.log ?? (() => {});
  }
  get appHost() {
    return `localhost:${this.ports.proxy}`;
  }
  get proxyUrl() {
    return `http://127.0.0.1:${this.ports.proxy}`;
  }
  /** What every node is given: both PgBouncers, and the one that leads to a read-write server wins. */
  get databaseUrl() {
    return `postgres://${DB.user}:${DB.password}@127.0.0.1:${this.ports.bouncerPrimary},127.0.0.1:${this.ports.bouncerStandby}/${DB.name}?target_session_attrs=read-write`;
  }
  /** A direct URL to one PostgreSQL server (for the drills' own counting). */
  serverUrl(which: 'primary' | 'standby' = this.primaryRole) {
    return `postgres://${DB.user}:${DB.password}@127.0.0.1:${which === 'primary' ? this.ports.primary : this.ports.standby}/${DB.name}`;
  }
  dataDir(which: 'primary' | 'standby') {
    return path.join(this.dir, which);
  }

  /* ---------------------------------------------------------------- PostgreSQL */

  private pgFlags(which: 'primary' | 'standby') {
    const port = which === 'primary' ? this.ports.primary : this.ports.standby;
    const flags = [
      `-p ${port}`,
      `-k ${path.join(this.dir, 'sock')}`,
      `-c listen_addresses=127.0.0.1`,
      `-c max_connections=400`,
      `-c wal_level=replica`,
      `-c max_wal_senders=5`,
      `-c hot_standby=on`,
      `-c wal_keep_size=256MB`,
      `-c cluster_name=${which}`,
      `-c shared_buffers=128MB`,
      // A standby whose primary went away asks again every second, not every 5 s (the default): with synchronous
      // replication every commit on the returned primary waits until it is back (ADR 143, deploy/docker-compose.yml).
      `-c wal_retrieve_retry_interval=1s`,
      ...(this.opts.pgStatements ? [`-c shared_preload_libraries=pg_stat_statements,auto_explain`, `-c pg_stat_statements.track=all`, `-c auto_explain.log_min_duration=${process.env.PARLEY_CLUSTER_EXPLAIN_MS ?? -1}`, `-c auto_explain.log_analyze=on`, `-c auto_explain.log_timing=off`] : []),
    ];
    return flags.join(' ');
  }

  startServer(which: 'primary' | 'standby') {
    run(pgBin('pg_ctl'), ['-D', this.dataDir(which), '-l', path.join(this.dir, 'logs', `${which}.log`), '-w', '-t', '60', '-o', this.pgFlags(which), 'start'], { asPg: true });
  }
  /** A clean stop (fast mode: sessions are ended, the server shuts down at once). */
  stopServer(which: 'primary' | 'standby') {
    run(pgBin('pg_ctl'), ['-D', this.dataDir(which), '-m', 'fast', '-w', 'stop'], { asPg: true, allowFail: true });
  }
  /** SIGKILL the postmaster and every backend of the server: a machine that died. */
  killServer(which: 'primary' | 'standby') {
    const pid = postmasterPid(this.dataDir(which));
    if (!pid) return;
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
    for (const p of [pid, ...children]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
  }
  promoteStandby() {
    run(pgBin('pg_ctl'), ['-D', this.dataDir('standby'), '-w', 'promote'], { asPg: true });
    this.primaryRole = 'standby';
  }

  /** A statement on one server, as the superuser over its Unix socket (replication views, ALTER SYSTEM, counts). */
  async query<T extends Record<string, unknown>>(text: string, which: 'primary' | 'standby' = this.primaryRole): Promise<T[]> {
    const port = which === 'primary' ? this.ports.primary : this.ports.standby;
    const sql = postgres({
      path: path.join(this.dir, 'sock', `.s.PGSQL.${port}`),
      user: 'postgres',
      database: which === 'primary' && text.includes('pg_stat_replication') ? 'postgres' : DB.name,
      max: 1,
      onnotice: () => {},
      connect_timeout: 5,
    });
    try {
      return (await sql.unsafe(text)) as unknown as T[];
    } finally {
      await sql.end({ timeout: 2 });
    }
  }

  /* ---------------------------------------------------------------- Parley nodes */

  /** What a process outside the cluster needs to use Parley's own models on its database (the drills' set-up). */
  clientEnv(): Record<string, string> {
    return {
      DATABASE_URL: this.databaseUrl,
      APP_HOST: this.appHost,
      SESSION_SECRET: this.sessionSecret,
      PARLEY_SECRET_KEY: this.secret,
      PARLEY_DATA_DIR: path.join(this.dir, 'data'),
      INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN,
      // No engine (and no pg-boss maintenance) in that process: the engine nodes do the work.
      PARLEY_ENGINE: 'off',
      // Loopback servers of that process (the drills' IMAP mailbox) are fine destinations, as for the nodes.
      PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    };
  }

  nodeEnv(node: NodeRecord): Record<string, string> {
    return {
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.PARLEY_CLUSTER_LOG_LEVEL ?? 'warn',
      DATABASE_URL: this.databaseUrl,
      APP_HOST: this.appHost,
      SESSION_SECRET: this.sessionSecret,
      PARLEY_SECRET_KEY: this.secret,
      PARLEY_DATA_DIR: path.join(this.dir, 'data'),
      PARLEY_NODE_NAME: node.name,
      INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN,
      // "Not ready" for 3 s before a stopping node closes its port: HAProxy (checks every second, two failures, then
      // every 500 ms) has taken it out by then (ADR 143).
      PARLEY_SHUTDOWN_DRAIN_MS: '3000',
      TRUST_PROXY: 'loopback',
      PARLEY_DB_POOL: '10',
      PARLEY_JOBS_POOL: '3',
      PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION: 'true',
      ...(node.kind === 'web' ? { PORT: String(node.port), PARLEY_ENGINE: 'off', SMTP_INBOUND_PORT: String(node.smtpPort) } : {}),
      ...this.opts.env,
    };
  }

  async startNode(name: string, opts: { wait?: boolean } = {}) {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    if (isAlive(node.pid)) throw new Error(`${name} is running`);
    const script = node.kind === 'web' ? 'build/server/index.js' : 'build/server/engine.js';
    const out = fs.openSync(path.join(this.dir, 'logs', `${name}.log`), 'a');
    const child = spawn(process.execPath, ['--enable-source-maps', ...(node.kind === 'web' ? ['--max-semi-space-size=64'] : []), script], {
      cwd: root,
      env: { ...process.env, ...this.nodeEnv(node) },
      stdio: ['ignore', out, out],
      detached: true,
    });
    fs.closeSync(out);
    child.unref();
    node.child = child;
    node.pid = child.pid;
    node.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.save();
    if (opts.wait !== false) await this.waitReady(name);
  }

  async waitReady(name: string, timeoutMs = 90_000) {
    const node = this.nodes.get(name)!;
    if (node.kind === 'web') {
      await waitFor(`${name} ready`, async () => {
        if (!isAlive(node.pid)) throw new Error(`${name} exited (see ${path.join(this.dir, 'logs', `${name}.log`)})`);
        const res = await fetch(`http://127.0.0.1:${node.port}/readyz`).catch(() => undefined);
        return res?.status === 200;
      }, timeoutMs);
    } else {
      // An engine is ready once it beats: its row in engine_heartbeats names its node.
      await waitFor(`${name} consuming`, async () => {
        if (!isAlive(node.pid)) throw new Error(`${name} exited (see ${path.join(this.dir, 'logs', `${name}.log`)})`);
        const rows = await this.query<{ n: number }>(`select count(*)::int as n from engine_heartbeats where (id like '${name}#%' or id like '%:${node.pid}') and seen_at > now() - interval '1 minute'`);
        return rows[0]?.n > 0;
      }, timeoutMs, 500);
    }
  }

  /** SIGKILL: no goodbye, no released lease, sockets cut. */
  async killNode(name: string) {
    const node = this.nodes.get(name)!;
    if (node.pid && isAlive(node.pid)) process.kill(node.pid, 'SIGKILL');
    await node.exited;
    node.pid = undefined;
    this.save();
  }

  /** SIGTERM and wait for the graceful stop. */
  async stopNode(name: string) {
    const node = this.nodes.get(name)!;
    if (node.pid && isAlive(node.pid)) process.kill(node.pid, 'SIGTERM');
    await Promise.race([node.exited, sleep(40_000)]);
    if (isAlive(node.pid)) process.kill(node.pid!, 'SIGKILL');
    node.pid = undefined;
    this.save();
  }

  async restartNode(name: string) {
    await this.stopNode(name);
    await this.startNode(name);
  }

  webNodes() {
    return [...this.nodes.values()].filter((n) => n.kind === 'web');
  }
  engineNodes() {
    return [...this.nodes.values()].filter((n) => n.kind === 'engine');
  }

  /* ---------------------------------------------------------------- the rest */

  save() {
    const state = {
      dir: this.dir,
      ports: this.ports,
      databaseUrl: this.databaseUrl,
      proxy: this.proxyUrl,
      pids: {
        haproxy: this.haproxyPid,
        pgbouncerPrimary: this.bouncerPids.primary,
        pgbouncerStandby: this.bouncerPids.standby,
        primary: postmasterPid(this.dataDir('primary')),
        standby: postmasterPid(this.dataDir('standby')),
        ...Object.fromEntries([...this.nodes.values()].map((n) => [n.name, n.pid])),
      },
    };
    fs.writeFileSync(path.join(this.dir, 'cluster.json'), JSON.stringify(state, null, 2));
  }

  setHaproxyPid(pid: number) {
    this.haproxyPid = pid;
  }
  setBouncerPid(which: 'primary' | 'standby', pid: number) {
    this.bouncerPids[which] = pid;
  }

  async stop() {
    await Promise.all([...this.nodes.keys()].map((n) => this.stopNode(n).catch(() => {})));
    stopByPids(this.dir);
  }
}

/** Stops every process named in `<dir>/cluster.json` by its process id (the web and engine nodes first). */
export function stopByPids(dir: string) {
  const file = path.join(dir, 'cluster.json');
  if (!fs.existsSync(file)) return;
  const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { pids: Record<string, number | undefined> };
  const order = Object.keys(state.pids).sort((a, b) => rank(a) - rank(b));
  for (const name of order) {
    const pid = state.pids[name];
    if (!pid || !isAlive(pid)) continue;
    try {
      // PostgreSQL's fast shutdown is SIGINT; everything else stops on SIGTERM.
      process.kill(pid, name === 'primary' || name === 'standby' ? 'SIGINT' : 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 20_000;
  for (const name of order) {
    const pid = state.pids[name];
    while (pid && isAlive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.1']);
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}
function rank(name: string) {
  if (name.startsWith('web') || name.startsWith('engine')) return 0;
  if (name === 'haproxy') return 1;
  if (name.startsWith('pgbouncer')) return 2;
  return 3;
}

function writeHaproxyConfig(c: Cluster, web: NodeRecord[]) {
  const errorPage = path.join(c.dir, 'haproxy-503.http');
  fs.copyFileSync(path.join(root, 'deploy', 'haproxy-503.http'), errorPage);
  const cfg = fs
    .readFileSync(path.join(root, 'deploy', 'haproxy.cfg'), 'utf8')
    // The shipped file names the compose services; here every part is on loopback.
    .replace(/^(\s*)bind :80\b.*$/m, `$1bind 127.0.0.1:${c.ports.proxy}`)
    .replace(/^(\s*)bind :25\b.*$/m, `$1bind 127.0.0.1:${c.ports.proxySmtp}`)
    .replace(/^(\s*)errorfile 503 .*$/m, `$1errorfile 503 ${errorPage}`)
    .replace(/^\s*server web-\d+ web-\d+:3000.*\n/gm, '')
    .replace(/^\s*server smtp-\d+ web-\d+:2525.*\n/gm, '')
    .replace(/^(\s*)# web servers$/m, web.map((n) => `$1server ${n.name} 127.0.0.1:${n.port} check`).join('\n'))
    .replace(/^(\s*)# smtp servers$/m, web.map((n) => `$1server ${n.name} 127.0.0.1:${n.smtpPort} check`).join('\n'))
    .replace(/^\s*(user|group|chroot|stats socket|log) .*\n/gm, '');
  fs.writeFileSync(path.join(c.dir, 'haproxy.cfg'), cfg);
  return path.join(c.dir, 'haproxy.cfg');
}

function writeBouncerConfig(c: Cluster, which: 'primary' | 'standby') {
  const port = which === 'primary' ? c.ports.bouncerPrimary : c.ports.bouncerStandby;
  const server = which === 'primary' ? c.ports.primary : c.ports.standby;
  const dir = path.join(c.dir, `pgbouncer-${which}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${DB.user}" "${DB.password}"\n`);
  const ini = fs
    .readFileSync(path.join(root, 'deploy', 'pgbouncer.ini'), 'utf8')
    .replace(/^parley = .*$/m, `parley = host=127.0.0.1 port=${server} dbname=${DB.name}`)
    .replace(/^listen_addr = .*$/m, 'listen_addr = 127.0.0.1')
    .replace(/^listen_port = .*$/m, `listen_port = ${port}`)
    .replace(/^auth_file = .*$/m, `auth_file = ${path.join(dir, 'userlist.txt')}`)
    .replace(/^;?logfile = .*$/m, `logfile = ${path.join(c.dir, 'logs', `pgbouncer-${which}.log`)}`)
    .replace(/^;?pidfile = .*$/m, `pidfile = ${path.join(dir, 'pgbouncer.pid')}`)
    .replace(/^;?unix_socket_dir = .*$/m, 'unix_socket_dir =');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), ini);
  const user = pgUser();
  if (user) fs.chownSync(dir, user.uid, user.gid);
  return path.join(dir, 'pgbouncer.ini');
}

function startDaemon(cmd: string, args: string[], logName: string, dir: string, asPg = false) {
  const user = asPg ? pgUser() : undefined;
  const out = fs.openSync(path.join(dir, 'logs', logName), 'a');
  const child = spawn(cmd, args, { uid: user?.uid, gid: user?.gid, stdio: ['ignore', out, out], detached: true });
  fs.closeSync(out);
  child.unref();
  return child.pid!;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  if (!fs.existsSync(path.join(root, 'build', 'server', 'index.js'))) throw new Error('build/ is missing: run `npm run build` first');
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-'));
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'sock'), { recursive: true });
  fs.chmodSync(dir, 0o755);
  const user = pgUser();
  if (user) fs.chownSync(path.join(dir, 'sock'), user.uid, user.gid);
  fs.chmodSync(path.join(dir, 'logs'), 0o777);

  const ports: Ports = {
    primary: await freePort(),
    standby: await freePort(),
    bouncerPrimary: await freePort(),
    bouncerStandby: await freePort(),
    proxy: await freePort(),
    proxySmtp: await freePort(),
  };
  const c = new Cluster(dir, ports, opts);
  const log = c.log;
  try {
    // The primary.
    const primaryDir = c.dataDir('primary');
    fs.mkdirSync(primaryDir, { mode: 0o700 });
    if (user) fs.chownSync(primaryDir, user.uid, user.gid);
    run(pgBin('initdb'), ['-D', primaryDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--auth-local=trust', '--auth-host=scram-sha-256'], { asPg: true });
    fs.writeFileSync(
      path.join(primaryDir, 'pg_hba.conf'),
      ['local all all trust', 'host replication replicator 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 scram-sha-256', ''].join('\n'),
    );
    c.startServer('primary');
    run(pgBin('psql'), ['-h', path.join(dir, 'sock'), '-p', String(ports.primary), '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', `create role ${DB.user} login password '${DB.password}'`, '-c', 'create role replicator replication login', '-c', `create database ${DB.name} owner ${DB.user}`]);
    log(`primary on ${ports.primary}`);

    // The standby: a base backup of the primary, streaming from it (and acknowledging commits: synchronous).
    const standbyDir = c.dataDir('standby');
    fs.mkdirSync(standbyDir, { mode: 0o700 });
    if (user) fs.chownSync(standbyDir, user.uid, user.gid);
    run(pgBin('pg_basebackup'), ['-h', '127.0.0.1', '-p', String(ports.primary), '-U', 'replicator', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast'], { asPg: true });
    c.startServer('standby');
    await waitFor('the standby streaming', async () => {
      const rows = await c.query<{ state: string }>(`select state from pg_stat_replication where application_name = 'standby'`, 'primary').catch(() => []);
      return rows[0]?.state === 'streaming';
    });
    // Synchronous from now on (ALTER SYSTEM, so it outlives a restart of the primary): a commit is acknowledged once the
    // standby has it. Only on the primary: the promoted standby has no standby of its own to wait for.
    if (opts.synchronous !== false) {
      await c.query(`alter system set synchronous_standby_names = 'standby'`, 'primary');
      await c.query(`select pg_reload_conf()`, 'primary');
      await waitFor('synchronous replication', async () => {
        const rows = await c.query<{ sync_state: string }>(`select sync_state from pg_stat_replication where application_name = 'standby'`, 'primary');
        return rows[0]?.sync_state === 'sync';
      });
    }
    log(`standby on ${ports.standby}, streaming${opts.synchronous !== false ? ', synchronous' : ''}`);

    // One PgBouncer (session mode) in front of each server.
    for (const which of ['primary', 'standby'] as const) {
      const ini = writeBouncerConfig(c, which);
      c.setBouncerPid(which, startDaemon(which_('pgbouncer'), [ini], `pgbouncer-${which}.out`, dir, true));
    }
    await waitFor('PgBouncer', async () => {
      const sql = postgres(c.databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 2 });
      try {
        await sql`select 1`;
        return true;
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
    log(`pgbouncer on ${ports.bouncerPrimary} and ${ports.bouncerStandby}`);

    // The Parley nodes: web-1 first (it migrates the empty database), then the rest at once.
    const webCount = opts.web ?? 3;
    const engineCount = opts.engines ?? 2;
    for (let i = 1; i <= webCount; i++) c.nodes.set(`web-${i}`, { name: `web-${i}`, kind: 'web', port: await freePort(), smtpPort: await freePort() });
    for (let i = 1; i <= engineCount; i++) c.nodes.set(`engine-${i}`, { name: `engine-${i}`, kind: 'engine' });
    await c.startNode('web-1');
    await Promise.all([...c.nodes.keys()].filter((n) => n !== 'web-1').map((n) => c.startNode(n)));
    log(`web nodes ${c.webNodes().map((n) => `${n.name}:${n.port}`).join(' ')}; engines ${c.engineNodes().map((n) => n.name).join(' ')}`);

    // HAProxy in front of the web nodes.
    const cfg = writeHaproxyConfig(c, c.webNodes());
    run(which_('haproxy'), ['-c', '-q', '-f', cfg]);
    c.setHaproxyPid(startDaemon(which_('haproxy'), ['-db', '-f', cfg], 'haproxy.log', dir));
    await waitFor('the proxy', async () => (await fetch(`${c.proxyUrl}/readyz`).catch(() => undefined))?.status === 200);
    log(`proxy on ${ports.proxy} (http) and ${ports.proxySmtp} (smtp)`);
    c.save();
    return c;
  } catch (err) {
    c.save();
    await c.stop().catch(() => {});
    throw err;
  }
}

function which_(cmd: string) {
  return which(cmd);
}

async function cli() {
  const [command, ...rest] = process.argv.slice(2);
  const arg = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (command === 'start') {
    const dir = arg('dir');
    if (dir) fs.mkdirSync(dir, { recursive: true });
    const c = await startCluster({ web: Number(arg('web') ?? 3), engines: Number(arg('engines') ?? 2), dir, log: (l) => console.log(`  ${l}`) });
    console.log(`\n  Parley cluster running in ${c.dir}\n  open http://${c.appHost}/ ; DATABASE_URL=${c.databaseUrl}\n  stop: npx tsx scripts/cluster.ts stop --dir ${c.dir}\n`);
    process.exit(0);
  } else if (command === 'stop') {
    const dir = arg('dir');
    if (!dir) throw new Error('--dir is required');
    stopByPids(dir);
    console.log(`stopped every process of ${dir}`);
  } else {
    console.log('usage: tsx scripts/cluster.ts start [--web N] [--engines M] [--dir DIR] | stop --dir DIR');
    process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
