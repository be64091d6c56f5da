import { runScript } from '../helpers/process';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runningEmbeddedUrl } from '../../db/embedded';

/**
 * The start-up guarantees of `npm start`, on the real server process with no DATABASE_URL: the embedded
 * PostgreSQL is created under PARLEY_DATA_DIR, survives a killed server, is stopped by a clean shutdown,
 * and is shared with the command-line tools.
 */

// The embedded PostgreSQL runs as the OS user `postgres` when we are root: it must be able to enter the directory.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-boot-'));
fs.chmodSync(dataDir, 0o755);
const clusterDir = path.join(dataDir, 'pg');
const running: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function serverEnv(extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', PARLEY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', SMTP_URL: '', ...extra };
  // This worker's DATABASE_URL points at the test database: the server must find its own, and make its own secret.
  delete env.DATABASE_URL;
  delete env.SESSION_SECRET;
  return env;
}

type Started = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function startServer(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitHealthy(server: Started, port: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`Parley exited with ${server.child.exitCode}:\n${server.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) return (await res.json()) as { database: string; engine: string };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`Parley was not healthy within 60 s:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function outputContains(server: { output(): string }, text: string) {
  const deadline = Date.now() + 30_000;
  while (!server.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`"${text}" was not printed within 30 s:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The postgres processes whose data directory is ours. */
function postgresProcesses() {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(clusterDir) && /postgres/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function postmasterPid() {
  const file = path.join(clusterDir, 'postmaster.pid');
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function query<T extends object>(text: string) {
  const url = runningEmbeddedUrl(dataDir);
  if (!url) throw new Error('the embedded PostgreSQL is not running');
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return (await sql.unsafe(text)) as unknown as T[];
  } finally {
    await sql.end();
  }
}

function cli(...args: string[]) {
  return runScript('server/cli.ts', [...args], serverEnv());
}

beforeAll(() => {
  if (!fs.existsSync('build/index.js')) throw new Error('Run `npx remix build` before this test (npm test does).');
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  // Whatever happened above, leave no PostgreSQL behind.
  const pid = postmasterPid();
  if (pid && isAlive(pid)) {
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('start-up and shutdown with the embedded PostgreSQL', () => {
  test('survives a killed process, keeps its data, shares it with the CLI and stops cleanly', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const env = serverEnv({ PORT: String(port), APP_HOST: `localhost:${port}` });

    // First start: the cluster is created and migrated.
    const first = startServer(env);
    expect(await waitHealthy(first, port)).toMatchObject({ database: 'up', engine: 'up' });
    expect(fs.existsSync(path.join(clusterDir, 'PG_VERSION'))).toBe(true);
    expect(fs.readFileSync(path.join(dataDir, 'session-secret'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    // The app answers before inbound mail has started (ADR 047); the line comes once everything runs.
    await outputContains(first, `Parley is running: open http://localhost:${port}/`);
    // Production without SMTP: start-up says loudly that mail cannot be delivered. On a local trial (APP_HOST is
    // localhost) the development mailbox answers this machine's own sockets, so the README's first command still
    // lets its user sign up; with any other APP_HOST it is off (mail.server.test.ts).
    expect(first.output()).toContain('SMTP_URL is not set: Parley CANNOT DELIVER MAIL');
    expect(first.output()).toContain('the development mailbox answers requests from this machine only');
    expect((await fetch(`http://127.0.0.1:${port}/dev/mailbox`, { headers: { host: `localhost:${port}` } })).status).toBe(200);
    // A forwarded header does not make a request local, nor does it hide a local one: only the socket counts.
    expect((await fetch(`http://127.0.0.1:${port}/dev/mailbox`, { headers: { host: `localhost:${port}`, 'x-forwarded-for': '203.0.113.9' } })).status).toBe(200);
    await query(`insert into accounts (domain, name, plan_id) select 'bootcheck', 'Boot Check', id from plans where key = 'trial'`);

    // A killed server leaves its PostgreSQL running...
    const stalePid = postmasterPid()!;
    first.child.kill('SIGKILL');
    await first.exited;
    expect(isAlive(stalePid)).toBe(true);

    // ...which the next start detects, stops and replaces; the data is still there.
    const second = startServer(env);
    await waitHealthy(second, port);
    expect(isAlive(stalePid)).toBe(false);
    expect(postmasterPid()).not.toBe(stalePid);
    expect(await query<{ name: string }>(`select name from accounts where domain = 'bootcheck'`)).toEqual([{ name: 'Boot Check' }]);

    // The CLI uses the running server's database and leaves it running.
    const listed = await cli('account', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^bootcheck\s+Boot Check\s+trial\s+trialing/m);
    expect(listed.stderr).toContain('using the embedded PostgreSQL of the running Parley');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    // SIGTERM: a clean exit within 30 s, and its PostgreSQL is gone with it.
    const termAt = Date.now();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(Date.now() - termAt).toBeLessThan(30_000);
    expect(postgresProcesses()).toEqual([]);
    expect(postmasterPid()).toBeUndefined();

    // With Parley stopped, the CLI starts the embedded server itself and stops it afterwards.
    const offline = await cli('plan', 'set', 'bootcheck', 'starter', '--status', 'active');
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('bootcheck is now on the Starter plan (starter), subscription active');
    expect(postgresProcesses()).toEqual([]);
  });

  test('an invalid PORT stops the start with exit code 1 and says which variable is wrong', async () => {
    const server = startServer(serverEnv({ PORT: 'not-a-port' }));
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('PORT');
    expect(server.output()).toContain('PORT must be a number');
  });
});
