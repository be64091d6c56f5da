/**
 * Makes the upgrade test's fixture (tests/integration/upgrade.test.ts, ADR 154): the database of the PREVIOUS release,
 * built by that release's own code, seeded with its demo, dumped with `pg_dump -Fc`.
 *
 *   npx tsx scripts/make-upgrade-fixture.ts --before-migration 0030
 *   npx tsx scripts/make-upgrade-fixture.ts --ref <commit>
 *
 * "Previous release" is the last commit before the one that added the given migration (its first parent): the newest
 * code whose newest migration is the one before. At each release, run it with the first migration of the release
 * being made, commit the two files it writes, and the upgrade test checks the way from the release before.
 *
 * How: a temporary git worktree of that commit (node_modules linked to this checkout's: the lockfiles of neighbouring
 * releases are close enough, and the script says so when the old code fails to load), a throwaway PostgreSQL cluster
 * from Debian's binaries (the same major version as the pg_dump that dumps it: pg_dump refuses a newer server, and
 * Debian 12 ships no client for the embedded PostgreSQL 18), the old code's `db/seed.ts` (which applies its migrations
 * first), then pg_dump. Everything temporary is removed at the end, also on failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort } from '../db/embedded';
import { pgBin } from './cluster';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'tests', 'fixtures', 'upgrade');

function usage(message?: string): never {
  if (message) console.error(message);
  console.error('usage: npx tsx scripts/make-upgrade-fixture.ts (--before-migration NNNN | --ref <commit>) [--name previous]');
  process.exit(2);
}

function git(...args: string[]) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

function parseArgs(argv: string[]) {
  const opts: { ref?: string; beforeMigration?: string; name: string } = { name: 'previous' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--ref' && value) (opts.ref = value), i++;
    else if (flag === '--before-migration' && value && /^\d{4}$/.test(value)) (opts.beforeMigration = value), i++;
    else if (flag === '--name' && value && /^[a-z0-9-]+$/.test(value)) (opts.name = value), i++;
    else usage(`unknown or incomplete option: ${flag}`);
  }
  if (!opts.ref === !opts.beforeMigration) usage('give exactly one of --ref and --before-migration');
  return opts;
}

/** The first parent of the commit that added migration NNNN: the newest code of the release before it. */
function commitBeforeMigration(number: string) {
  const added = git('log', '--diff-filter=A', '--format=%H', '--', `db/migrations/${number}_*.sql`).split('\n').filter(Boolean);
  const first = added.at(-1);
  if (!first) usage(`no commit in this branch's history added db/migrations/${number}_*.sql`);
  return git('rev-parse', `${first}^`);
}

function newestMigrationAt(commit: string) {
  const journal = JSON.parse(git('show', `${commit}:db/migrations/meta/_journal.json`)) as { entries: { tag: string; when: number }[] };
  const last = journal.entries.at(-1);
  if (!last) throw new Error(`${commit} has no migrations`);
  return last;
}

/** PostgreSQL refuses to run as root: as root the throwaway cluster runs as the OS user `postgres`. */
function pgUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim());
  if (!uid) throw new Error('running as root needs the OS user postgres (Debian postgresql package creates it)');
  return { uid, gid };
}

function run(cmd: string, args: string[], opts: { asPg?: boolean; cwd?: string; env?: NodeJS.ProcessEnv; allowFail?: boolean } = {}) {
  const user = opts.asPg ? pgUser() : undefined;
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    uid: user?.uid,
    gid: user?.gid,
    env: opts.env ?? process.env,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr || r.stdout}`);
  return r;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const commit = opts.ref ? git('rev-parse', `${opts.ref}^{commit}`) : commitBeforeMigration(opts.beforeMigration!);
  const newest = newestMigrationAt(commit);
  const version = (JSON.parse(git('show', `${commit}:package.json`)) as { version: string }).version;
  console.error(`previous release: ${commit.slice(0, 12)} (Parley ${version}, newest migration ${newest.tag})`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-upgrade-fixture-'));
  fs.chmodSync(tmp, 0o755);
  const worktree = path.join(tmp, 'code');
  const pgData = path.join(tmp, 'pg');
  const port = await freePort();
  let started = false;
  let worktreeAdded = false;
  try {
    git('worktree', 'add', '--detach', worktree, commit);
    worktreeAdded = true;
    fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(worktree, 'node_modules'));

    const user = pgUser();
    fs.mkdirSync(pgData, { mode: 0o700 });
    if (user) fs.chownSync(pgData, user.uid, user.gid);
    run(pgBin('initdb'), ['-D', pgData, '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--auth=trust'], { asPg: true });
    // The socket goes in the data directory: /var/run/postgresql may not exist or belong to another server.
    run(
      pgBin('pg_ctl'),
      ['-D', pgData, '-l', path.join(pgData, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${pgData} -c listen_addresses=127.0.0.1`, 'start'],
      { asPg: true },
    );
    started = true;
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe('create database parley');
    await admin.end();
    const databaseUrl = `postgres://postgres@127.0.0.1:${port}/parley`;

    // The old code's own seed, which applies the old code's migrations first (its server/boot.ts).
    const dataDir = path.join(tmp, 'data');
    fs.mkdirSync(dataDir);
    const seedStarted = Date.now();
    const seed = run(process.execPath, ['--import', 'tsx', 'db/seed.ts'], {
      cwd: worktree,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: databaseUrl,
        PARLEY_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        SESSION_SECRET: crypto.randomBytes(24).toString('hex'),
        NODE_ENV: 'production',
      },
      allowFail: true,
    });
    if (seed.status !== 0) {
      throw new Error(
        `the previous release's seed failed (${seed.status}); if it is a module that does not load, its lockfile is too far from this checkout's node_modules:\n${seed.stderr}\n${seed.stdout}`,
      );
    }
    console.error(`seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const [counts] = await sql<{ accounts: number; users: number; conversations: number; messages: number; contacts: number }[]>`
      select (select count(*)::int from accounts) as accounts, (select count(*)::int from users) as users,
             (select count(*)::int from conversations) as conversations, (select count(*)::int from messages) as messages,
             (select count(*)::int from contacts) as contacts`;
    const [{ size }] = await sql<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
    await sql.end();

    fs.mkdirSync(outDir, { recursive: true });
    const dumpFile = path.join(outDir, `${opts.name}.dump`);
    // Without owners and grants: the test restores into whatever role its PostgreSQL gives it.
    run(pgBin('pg_dump'), ['-Fc', '-Z', '9', '--no-owner', '--no-privileges', '-d', databaseUrl, '-f', dumpFile]);
    const meta = {
      commit,
      parleyVersion: version,
      newestMigration: newest.tag,
      newestMigrationWhen: newest.when,
      madeAt: new Date().toISOString(),
      madeWith: `pg_dump ${run(pgBin('pg_dump'), ['--version'])
        .stdout.trim()
        .replace(/^pg_dump \(PostgreSQL\) /, '')}`,
      demo: { domain: 'demo', email: 'demo@parley.local', password: 'parley-demo' },
      counts,
    };
    fs.writeFileSync(path.join(outDir, `${opts.name}.json`), `${JSON.stringify(meta, null, 2)}\n`);
    console.error(
      `database ${size}; wrote ${path.relative(root, dumpFile)} (${(fs.statSync(dumpFile).size / 1024).toFixed(0)} KiB) and ${opts.name}.json: ${JSON.stringify(
        counts,
      )}`,
    );
  } finally {
    if (started) run(pgBin('pg_ctl'), ['-D', pgData, '-m', 'immediate', '-w', 'stop'], { asPg: true, allowFail: true });
    if (worktreeAdded) run('git', ['worktree', 'remove', '--force', worktree], { cwd: root, allowFail: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
