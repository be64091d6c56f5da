import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { appliedMigration, expectedMigration, MIGRATION_LOCK, parleyVersion, runMigrations, schemaState } from '../../db/migrate';
import { pgBin } from '../../scripts/cluster';
import { dropDatabase, withDatabase } from '../setup/test-database';
import { runScript } from '../helpers/process';

/**
 * Upgrades without surprises (ADR 154), on real parts: the previous release's seeded database (made by that release's
 * own code, tests/fixtures/upgrade, scripts/make-upgrade-fixture.ts) upgraded by this build and used through the built
 * server; two nodes migrating at once; a build refusing a database newer than itself.
 */

const fixtureDir = path.resolve('tests/fixtures/upgrade');
const previous = JSON.parse(fs.readFileSync(path.join(fixtureDir, 'previous.json'), 'utf8')) as {
  commit: string;
  parleyVersion: string;
  newestMigration: string;
  newestMigrationWhen: number;
  demo: { domain: string; email: string; password: string };
  counts: { accounts: number; users: number; conversations: number; messages: number; contacts: number };
};
const adminUrl = inject('adminUrl');
const made: string[] = [];
const running: ChildProcess[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-upgrade-test-'));

async function freshDatabase(label: string) {
  const name = `parley_upgrade_${label}_${crypto.randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  made.push(name);
  return withDatabase(adminUrl, name);
}

async function query<T>(url: string, run: (sql: postgres.Sql) => Promise<T>) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}

type Server = { port: number; child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** The built server (`npm run serve`'s command) on a database, as an operator runs it after `npm run build`. */
async function startBuilt(entry: 'index' | 'engine', databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    APP_HOST: `localhost:${port}`,
    DATABASE_URL: databaseUrl,
    PARLEY_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SMTP_URL: '',
    SMTP_INBOUND_PORT: String(await freePort()),
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--enable-source-maps', `build/server/${entry}.js`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { port, child, output: () => output, exited };
}

type Res = { status: number; headers: http.IncomingHttpHeaders; text: string };
function request(port: number, pathname: string, opts: { host?: string; form?: Record<string, string>; cookie?: string } = {}): Promise<Res> {
  const host = opts.host ?? `localhost:${port}`;
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { host };
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${host}` });
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: body !== undefined ? 'POST' : 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

async function waitReady(server: Server) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`Parley exited with ${server.child.exitCode}:\n${server.output()}`);
    const res = await request(server.port, '/readyz').catch(() => undefined);
    if (res?.status === 200) return JSON.parse(res.text) as { ready: boolean; migration: string };
    if (Date.now() > deadline) throw new Error(`Parley was not ready within 90 s:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(server: Server) {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
}

/** A future release's migration, as it would be recorded in a database it migrated. */
async function addFutureMigration(url: string) {
  const when = expectedMigration().when + 86_400_000;
  await query(url, async (sql) => {
    await sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('a-future-release', ${when})`;
    await sql`insert into schema_upgrades (parley_version, migration, migration_created_at, migrations_applied, host)
              values ('9.9.9', '0099_from_the_future', ${when}, 1, 'node-of-the-future')`;
  });
}

beforeAll(() => {
  if (!fs.existsSync('build/server/index.js') || !fs.existsSync('build/server/engine.js'))
    throw new Error('Run `npm run build` before this test (npm test does).');
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const name of made) await dropDatabase(adminUrl, name).catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function waitForOutput(server: Server, text: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!server.output().includes(text)) {
    if (server.child.exitCode !== null) throw new Error(`exited with ${server.child.exitCode} before "${text}":\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`"${text}" not printed within ${ms} ms:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('upgrading from the previous release', () => {
  let upgraded: string;

  it(`restores the previous release's seeded database (${previous.newestMigration}) and migrates it to this build's`, async () => {
    upgraded = await freshDatabase('from_previous');
    const restore = spawnSync(
      pgBin('pg_restore'),
      ['--no-owner', '--no-privileges', '--exit-on-error', '-d', upgraded, path.join(fixtureDir, 'previous.dump')],
      { encoding: 'utf8' },
    );
    expect(restore.status, restore.stderr).toBe(0);
    const before = await query(upgraded, (sql) => appliedMigration(sql));
    expect(before).toBe(previous.newestMigrationWhen);
    expect(schemaState(before)).toBe('behind');

    const run = await runMigrations(upgraded);
    const current = expectedMigration();
    expect(run.applied.length).toBeGreaterThan(0);
    expect(run.applied).not.toContain(previous.newestMigration);
    expect(run.applied.at(-1)).toBe(current.tag);
    const after = await query(upgraded, async (sql) => ({
      applied: await appliedMigration(sql),
      upgrades: await sql<
        { parley_version: string; migration: string; migrations_applied: number }[]
      >`select parley_version, migration, migrations_applied from schema_upgrades`,
      counts: (
        await sql<(typeof previous.counts)[]>`
          select (select count(*)::int from accounts) as accounts, (select count(*)::int from users) as users,
                 (select count(*)::int from conversations) as conversations, (select count(*)::int from messages) as messages,
                 (select count(*)::int from contacts) as contacts`
      )[0],
    }));
    expect(schemaState(after.applied)).toBe('current');
    expect(after.upgrades).toEqual([{ parley_version: parleyVersion(), migration: current.tag, migrations_applied: run.applied.length }]);
    // The upgrade kept every row of the seeded installation.
    expect(after.counts).toEqual(previous.counts);

    // Running again (the next start) finds nothing to do and records nothing.
    expect((await runMigrations(upgraded)).applied).toEqual([]);
    expect(await query(upgraded, (sql) => sql`select count(*)::int as n from schema_upgrades`)).toEqual([{ n: 1 }]);
  }, 120_000);

  it('the built server serves the upgraded installation: sign in, inbox, a conversation, a reply', async () => {
    const server = await startBuilt('index', upgraded);
    try {
      expect(await waitReady(server)).toMatchObject({ ready: true, migration: 'current' });
      const host = `${previous.demo.domain}.localhost:${server.port}`;

      const signin = await request(server.port, '/signin', { host, form: { email: previous.demo.email, password: previous.demo.password } });
      expect(signin.status, signin.text.slice(0, 500)).toBe(302);
      const cookie = ([] as string[])
        .concat(signin.headers['set-cookie'] ?? [])
        .find((c) => c.startsWith('__parley_session='))!
        .split(';')[0];
      expect(cookie).toBeTruthy();

      const inbox = await request(server.port, '/inbox', { host, cookie });
      expect(inbox.status).toBe(200);
      const ids = [...inbox.text.matchAll(/href="\/inbox\/(\d+)[?"]/g)].map((m) => Number(m[1]));
      expect(ids.length, 'the inbox lists the seeded conversations').toBeGreaterThan(0);

      const [seeded] = await query(
        upgraded,
        (sql) => sql<{ id: number; subject: string | null }[]>`select id, subject from conversations where id = ${ids[0]!}`,
      );
      const page = await request(server.port, `/inbox/${seeded!.id}`, { host, cookie });
      expect(page.status).toBe(200);
      if (seeded!.subject)
        expect(page.text).toContain(seeded!.subject.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;'));

      const text = `Upgrade check ${crypto.randomBytes(4).toString('hex')}: still here after the upgrade.`;
      const reply = await request(server.port, `/inbox/${seeded!.id}`, { host, cookie, form: { intent: 'reply', text } });
      expect(reply.status, reply.text.slice(0, 500)).toBe(302);
      const shown = await request(server.port, `/inbox/${seeded!.id}`, { host, cookie });
      expect(shown.text).toContain(text);
      const stored = await query(
        upgraded,
        (sql) => sql`select kind from messages where conversation_id = ${seeded!.id} and text like ${`%${text.slice(0, 24)}%`}`,
      );
      expect(stored).toHaveLength(1);

      // A newer node migrating while this one runs (a rolling upgrade): this node keeps serving, its readiness says so.
      await addFutureMigration(upgraded);
      const deadline = Date.now() + 10_000;
      let readiness: { ready: boolean; migration: string } | undefined;
      while (Date.now() < deadline) {
        const res = await request(server.port, '/readyz');
        readiness = JSON.parse(res.text) as { ready: boolean; migration: string };
        if (readiness.migration === 'ahead') {
          expect(res.status).toBe(200);
          break;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(readiness).toMatchObject({ ready: true, migration: 'ahead' });
      expect((await request(server.port, `/inbox/${seeded!.id}`, { host, cookie })).status).toBe(200);
    } finally {
      await stop(server);
    }
  }, 180_000);

  it('a build older than the database refuses to start, web and engine, naming both versions and changing nothing', async () => {
    // `upgraded` now holds a migration of "Parley 9.9.9" (the test above).
    const before = await query(
      upgraded,
      (sql) => sql`select (select count(*)::int from drizzle.__drizzle_migrations) as m, (select count(*)::int from schema_upgrades) as u`,
    );
    for (const entry of ['index', 'engine'] as const) {
      const server = await startBuilt(entry, upgraded);
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 60_000);
      const code = await server.exited;
      clearTimeout(timer);
      expect(code, `${entry}:\n${server.output()}`).toBe(1);
      const out = server.output();
      expect(out).toContain("This database's schema is newer than this version of Parley");
      expect(out).toContain(`Parley ${parleyVersion()}, newest migration ${expectedMigration().tag}`);
      expect(out).toContain('Parley 9.9.9 migrated it to 0099_from_the_future');
      expect(out).toContain('docs/upgrading.md');
      expect(out).not.toMatch(/listening/i);
    }
    expect(
      await query(
        upgraded,
        (sql) => sql`select (select count(*)::int from drizzle.__drizzle_migrations) as m, (select count(*)::int from schema_upgrades) as u`,
      ),
    ).toEqual(before);
  }, 150_000);
});

/**
 * Two migrating processes released at the same moment: both must succeed, one applying every migration and the other
 * nothing. The test holds the lock first so that both are certainly waiting inside runMigrations, then lets them race.
 */
async function migrateTwiceAtOnce(directUrl: string, nodeUrl: string) {
  const holder = postgres(directUrl, { max: 1, onnotice: () => {} });
  try {
    await holder`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const env = { ...process.env, DATABASE_URL: nodeUrl };
    const both = [runScript('tests/helpers/migrate-child.ts', [], env), runScript('tests/helpers/migrate-child.ts', [], env)];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [{ waiting }] = await holder<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_locks
        where locktype = 'advisory' and not granted and objid = ${
          MIGRATION_LOCK % 2 ** 32
        } and database = (select oid from pg_database where datname = current_database())`;
      if (waiting === 2) break;
      if (Date.now() > deadline) throw new Error(`both processes did not wait on the migration lock (waiting: ${waiting})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await holder`select pg_advisory_unlock(${MIGRATION_LOCK})`;
    const results = await Promise.all(
      both.map((p) =>
        Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('a migrating process did not finish within 60 s')), 60_000))]),
      ),
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const runs = results.map((r) => JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { applied: string[]; waitedForLock: boolean });
    const journalSize = (JSON.parse(fs.readFileSync('db/migrations/meta/_journal.json', 'utf8')) as { entries: unknown[] }).entries.length;
    expect(runs.map((r) => r.applied.length).sort((a, b) => a - b)).toEqual([0, journalSize]);
    expect(runs.every((r) => r.waitedForLock)).toBe(true);
    for (const r of results) expect(r.stderr).toContain('another Parley process is migrating this database');
    const [counts] = await holder<{ migrations: number; upgrades: number }[]>`
      select (select count(*)::int from drizzle.__drizzle_migrations) as migrations, (select count(*)::int from schema_upgrades) as upgrades`;
    expect(counts).toEqual({ migrations: journalSize, upgrades: 1 });
    expect(schemaState(await appliedMigration(holder))).toBe('current');
  } finally {
    await holder.end();
  }
}

/** PgBouncer (Debian's) in TRANSACTION mode in front of the test server: each transaction may get another server connection. */
async function startTransactionPooler(directUrl: string) {
  const u = new URL(directUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-upgrade-bouncer-'));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const dbname = u.pathname.slice(1);
  const ini = [
    '[databases]',
    `${dbname} = host=${u.hostname} port=${u.port} dbname=${dbname} user=${decodeURIComponent(u.username)} password=${decodeURIComponent(u.password)}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'auth_type = any',
    'pool_mode = transaction',
    'default_pool_size = 4',
    // TCP only: no socket file to place where the OS user postgres may write.
    'unix_socket_dir =',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`);
  // PgBouncer refuses to run as root: as root it runs as the OS user postgres, as in scripts/cluster.ts.
  const asPg =
    process.getuid?.() === 0
      ? { uid: Number(spawnSync('id', ['-u', 'postgres']).stdout.toString()), gid: Number(spawnSync('id', ['-g', 'postgres']).stdout.toString()) }
      : {};
  const child = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], { ...asPg, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stderr!.on('data', (c) => (output += c));
  const url = `postgres://parley@127.0.0.1:${port}/${dbname}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await query(url, (sql) => sql`select 1`);
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PgBouncer did not start: ${(err as Error).message}\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the engine during an upgrade', () => {
  it('an engine of this version started before any web node migrated waits, then starts once one has', async () => {
    const url = await freshDatabase('engine_waits');
    const restore = spawnSync(pgBin('pg_restore'), ['--no-owner', '--no-privileges', '--exit-on-error', '-d', url, path.join(fixtureDir, 'previous.dump')], {
      encoding: 'utf8',
    });
    expect(restore.status, restore.stderr).toBe(0);
    const engine = await startBuilt('engine', url, { LOG_LEVEL: 'info' });
    try {
      await waitForOutput(engine, 'the database is not migrated to this version yet');
      expect(engine.output()).not.toContain('engine started');
      await runMigrations(url); // a web node of this version starting
      await waitForOutput(engine, 'engine started');
      expect(engine.child.exitCode).toBeNull();
    } finally {
      await stop(engine);
    }
  }, 150_000);
});

describe('two nodes starting at once', () => {
  it('both succeed and the migrations are applied once: the second waits for the lock, then finds nothing to do', async () => {
    const url = await freshDatabase('concurrent');
    await migrateTwiceAtOnce(url, url);
  }, 120_000);

  it('the same through PgBouncer in transaction mode (the lock is transaction-scoped, the run one transaction)', async () => {
    const url = await freshDatabase('bouncer');
    const bouncer = await startTransactionPooler(url);
    try {
      await migrateTwiceAtOnce(url, bouncer.url);
    } finally {
      await bouncer.stop();
    }
  }, 120_000);
});
