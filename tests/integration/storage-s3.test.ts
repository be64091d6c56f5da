import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import ExcelJS from 'exceljs';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readAttachment, saveAttachment } from '../../app/models/inbox/attachments.server';
import { previewImportFile, readFileRows, removeImportFile, storeImportFile } from '../../app/models/crm/imports.server';
import { getFileStorage, InvalidStorageKeyError, readStoredFile, removeStoredFiles, type FileStorage } from '../../app/models/storage/files.server';
import { newStorageKey } from '../../app/models/storage/keys.server';
import { LocalFileStorage } from '../../app/models/storage/local-files.server';
import { migrateLocalFiles } from '../../app/models/storage/migrate.server';
import { S3FileStorage } from '../../app/models/storage/s3-files.server';
import { ConfigError, parseConfig, type S3Settings } from '../../app/utils/env.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { runScript } from '../helpers/process';

// A real S3-compatible server (s3rver: the S3 REST API, access keys checked (it does not verify SigV4 signatures
// themselves, so a wrong key id stands for wrong credentials), objects on disk) on a loopback
// port of its own, in a temporary directory of this file.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-storage-s3-'));
const ACCESS_KEY_ID = 'S3RVER';
const SECRET = 'S3RVER';
const BUCKET = 'parley-files';
const MIGRATE_BUCKET = 'parley-migrated';
let server: S3rver;
let endpoint: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = new S3rver({ address: '127.0.0.1', port: 0, directory: path.join(tmp, 's3'), silent: true, configureBuckets: [{ name: BUCKET }, { name: MIGRATE_BUCKET }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  process.env = savedEnv;
  resetSingleton('config');
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function settings(overrides: Partial<S3Settings> = {}): S3Settings {
  return { bucket: BUCKET, endpoint, region: 'us-east-1', credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET }, forcePathStyle: true, prefix: 'suite/', ...overrides };
}

function rawClient() {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET } });
}

async function keysIn(storage: FileStorage, prefix = '') {
  const found: { key: string; size: number }[] = [];
  for await (const o of storage.list(prefix)) found.push(o);
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

const md5 = (b: Uint8Array) => crypto.createHash('md5').update(b).digest('hex');
const hex = () => crypto.randomBytes(16).toString('hex');
const legacyImportKey = (accountId: number) => `imports/${accountId}/${crypto.randomUUID()}.csv`;

const backends: [string, () => FileStorage][] = [
  ['local', () => new LocalFileStorage(path.join(tmp, 'suite-data'))],
  // Pages of two keys: list() must follow the continuation tokens.
  ['s3', () => new S3FileStorage(settings(), { listPageSize: 2 })],
];

describe.each(backends)('the %s backend', (name, make) => {
  let storage: FileStorage;
  beforeAll(() => {
    storage = make();
  });
  afterAll(async () => {
    if (storage instanceof S3FileStorage) await storage.close();
  });

  test('put, get, exists, stat and delete', async () => {
    expect(storage.backend).toBe(name);
    const key = newStorageKey(101);
    expect(key).toMatch(/^101\/\d{4}-\d{2}\/[0-9a-f]{32}$/);
    const bytes = crypto.randomBytes(70_000);
    await storage.put(key, bytes);
    expect((await storage.get(key))?.equals(bytes)).toBe(true);
    expect(await storage.exists(key)).toBe(true);
    expect(await storage.stat(key)).toMatchObject({ size: 70_000 });
    // A second put under the same key replaces the bytes.
    await storage.put(key, Buffer.from('replaced'));
    expect((await storage.get(key))?.toString()).toBe('replaced');
    const other = newStorageKey(101, 'csv');
    await storage.put(other, Buffer.alloc(0));
    expect((await storage.get(other))?.byteLength).toBe(0);
    await storage.delete([key, other]);
    expect(await storage.get(key)).toBeUndefined();
    expect(await storage.exists(other)).toBe(false);
  });

  test('putFile streams a file of the disk into the store (an account export archive, ADR 153)', async () => {
    const key = newStorageKey(101, 'tgz');
    const bytes = crypto.randomBytes(300_000);
    const file = path.join(tmp, `putfile-${name}.bin`);
    fs.writeFileSync(file, bytes);
    await storage.putFile(key, file);
    expect(await storage.stat(key)).toMatchObject({ size: bytes.length });
    expect(md5((await storage.get(key))!)).toBe(md5(bytes));
    // The source stays where it was: the caller removes its work file.
    expect(fs.existsSync(file)).toBe(true);
    await expect(storage.putFile('../escape', file)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await storage.delete([key]);
    fs.rmSync(file);
  });

  test('a missing key is undefined (or false), and deleting it is no error', async () => {
    const key = newStorageKey(102);
    expect(await storage.get(key)).toBeUndefined();
    expect(await storage.getStream(key)).toBeUndefined();
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.stat(key)).toBeUndefined();
    await expect(storage.delete([key])).resolves.toBeUndefined();
  });

  test('keys outside the layout are refused before anything is touched', async () => {
    const good = newStorageKey(103);
    await storage.put(good, Buffer.from('kept'));
    const bad = [
      '../outside',
      `103/2026-11/../../../${hex()}`,
      `/etc/passwd`,
      'abc',
      '',
      `103/2026-13/${hex()}`,
      `0/2026-11/${hex()}`,
      `103/2026-11/${hex().toUpperCase()}`,
      `103/2026-11/${hex()}/..`,
      `103\\2026-11\\${hex()}`,
      'imports/103/../../session-secret',
      `imports/103/${crypto.randomUUID()}.exe`,
    ];
    for (const key of bad) {
      await expect(storage.put(key, Buffer.from('x')), key).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.get(key), key).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.getStream(key), key).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.exists(key), key).rejects.toBeInstanceOf(InvalidStorageKeyError);
    }
    // One bad key refuses the whole call: the good one is still there.
    await expect(storage.delete([good, '../outside'])).rejects.toBeInstanceOf(InvalidStorageKeyError);
    expect((await storage.get(good))?.toString()).toBe('kept');
    await expect(keysIn(storage, '../')).rejects.toBeInstanceOf(InvalidStorageKeyError);
  });

  test('list(prefix) gives the keys and sizes under the prefix, every page of them', async () => {
    const mine = await Promise.all(
      [1, 200, 3000, 5, 0].map(async (size) => {
        const key = newStorageKey(104);
        await storage.put(key, crypto.randomBytes(size));
        return { key, size };
      }),
    );
    const theirs = newStorageKey(1040);
    await storage.put(theirs, Buffer.from('another account'));
    expect(await keysIn(storage, '104/')).toEqual(mine.sort((a, b) => a.key.localeCompare(b.key)));
    const month = mine[0].key.split('/').slice(0, 2).join('/');
    expect(await keysIn(storage, `${month}/`)).toHaveLength(5);
    const all = await keysIn(storage);
    expect(all.map((o) => o.key)).toEqual(expect.arrayContaining([...mine.map((o) => o.key), theirs]));
    expect(await keysIn(storage, '999999/')).toEqual([]);
  });

  test('getStream gives the bytes as a stream', async () => {
    const key = newStorageKey(105);
    const bytes = crypto.randomBytes(600_000);
    await storage.put(key, bytes);
    const stream = await storage.getStream(key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream!) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  test('a contact import file written before ADR 141 (imports/<account>/<uuid>.csv) is still a key', async () => {
    const key = legacyImportKey(106);
    await storage.put(key, Buffer.from('email\nada@example.test\n'));
    expect((await storage.get(key))?.toString()).toBe('email\nada@example.test\n');
    expect((await keysIn(storage, 'imports/106/')).map((o) => o.key)).toEqual([key]);
    await storage.delete([key]);
    expect(await storage.exists(key)).toBe(false);
  });
});

describe('the local backend on disk', () => {
  test('files sit under PARLEY_DATA_DIR/attachments/<key>, readable by their owner only; legacy import files where they were', async () => {
    const dataDir = path.join(tmp, 'disk-data');
    const storage = new LocalFileStorage(dataDir);
    const key = newStorageKey(107);
    await storage.put(key, Buffer.from('on disk'));
    const file = path.join(dataDir, 'attachments', key);
    expect(fs.readFileSync(file, 'utf8')).toBe('on disk');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const legacy = legacyImportKey(107);
    fs.mkdirSync(path.join(dataDir, 'imports', '107'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, legacy), 'email\n');
    expect((await storage.get(legacy))?.toString()).toBe('email\n');
    // What is not a key (a stray file, a temporary upload) is not listed.
    fs.writeFileSync(path.join(dataDir, 'attachments', '107', 'notes.txt'), 'x');
    expect((await keysIn(storage)).map((o) => o.key).sort()).toEqual([key, legacy].sort());
  });
});

describe('the configuration', () => {
  const base = { PARLEY_DATA_DIR: path.join(tmp, 'config-data'), SESSION_SECRET: 's'.repeat(40) };
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig({ ...base, ...env });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  test('local by default; S3 settings from the environment', () => {
    expect(parseConfig(base).storage).toEqual({ backend: 'local', s3: null });
    expect(parseConfig({ ...base, PARLEY_STORAGE: 's3', S3_BUCKET: 'files', S3_ENDPOINT: 'http://minio.internal:9000/', S3_PREFIX: '/parley/prod/' }).storage).toEqual({
      backend: 's3',
      s3: { bucket: 'files', endpoint: 'http://minio.internal:9000', region: 'us-east-1', credentials: null, forcePathStyle: true, prefix: 'parley/prod/' },
    });
    // AWS itself: virtual-hosted addresses unless told otherwise; a bucket set while still local (to migrate into).
    const aws = parseConfig({ ...base, S3_BUCKET: 'files', S3_REGION: 'eu-west-3', S3_ACCESS_KEY_ID: 'AKIA1', S3_SECRET_ACCESS_KEY: 'shh' }).storage;
    expect(aws).toEqual({ backend: 'local', s3: { bucket: 'files', endpoint: null, region: 'eu-west-3', credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'shh' }, forcePathStyle: false, prefix: '' } });
    expect(parseConfig({ ...base, S3_BUCKET: 'files', S3_ENDPOINT: 'https://s3.example.com', S3_FORCE_PATH_STYLE: 'false' }).storage.s3?.forcePathStyle).toBe(false);
  });

  test('each bad variable has its own message, and no secret is in any', () => {
    expect(problems({ PARLEY_STORAGE: 's3' })).toEqual(['S3_BUCKET: S3_BUCKET must be set when PARLEY_STORAGE=s3']);
    expect(problems({ PARLEY_STORAGE: 'nfs' })[0]).toMatch(/^PARLEY_STORAGE: PARLEY_STORAGE must be "local"/);
    expect(problems({ S3_BUCKET: 'My_Bucket' })[0]).toMatch(/^S3_BUCKET: S3_BUCKET must be a bucket name/);
    expect(problems({ S3_BUCKET: 'files', S3_ENDPOINT: 'ftp://store' })[0]).toMatch(/^S3_ENDPOINT: S3_ENDPOINT must be an http\(s\) URL/);
    expect(problems({ S3_BUCKET: 'files', S3_FORCE_PATH_STYLE: 'maybe' })).toEqual(['S3_FORCE_PATH_STYLE: S3_FORCE_PATH_STYLE must be true or false']);
    expect(problems({ S3_BUCKET: 'files', S3_PREFIX: 'a/../b' })[0]).toMatch(/^S3_PREFIX: /);
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const both = problems({ PARLEY_STORAGE: 's3', S3_SECRET_ACCESS_KEY: secret, PORT: 'x' });
    expect(both).toEqual([
      'PORT: PORT must be a number',
      'S3_BUCKET: S3_BUCKET must be set when PARLEY_STORAGE=s3',
      'S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID must be set with S3_SECRET_ACCESS_KEY',
    ]);
    expect(both.join('\n')).not.toContain(secret);
    expect(problems({ S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'AKIA1' })).toEqual(['S3_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY must be set with S3_ACCESS_KEY_ID']);
  });
});

describe('Parley with PARLEY_STORAGE=s3', () => {
  const dataDir = path.join(tmp, 'app-data');
  beforeAll(() => {
    Object.assign(process.env, {
      PARLEY_DATA_DIR: dataDir,
      PARLEY_STORAGE: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: SECRET,
      S3_PREFIX: 'app',
    });
    resetSingleton('config');
  });
  afterAll(() => {
    for (const k of ['PARLEY_STORAGE', 'S3_BUCKET', 'S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PREFIX']) delete process.env[k];
    process.env.PARLEY_DATA_DIR = savedEnv.PARLEY_DATA_DIR;
    resetSingleton('config');
  });

  test('an attachment saved through saveAttachment is an object in the bucket, read back through readAttachment', async () => {
    const { account } = await createTestAccount();
    expect(getFileStorage().backend).toBe('s3');
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), crypto.randomBytes(50_000)]);
    const row = await saveAttachment({ accountId: account.id, messageId: null, filename: 'invoice.pdf', contentType: 'application/pdf', bytes });
    expect(row.storageKey.startsWith(`${account.id}/`)).toBe(true);
    const found = await readAttachment({ accountId: account.id, id: row.id });
    expect(found?.bytes.equals(bytes)).toBe(true);
    expect(found?.attachment).toMatchObject({ filename: 'invoice.pdf', size: bytes.byteLength, contentType: 'application/pdf' });
    // In the bucket, under S3_PREFIX; nothing on this machine's disk.
    const listed = await rawClient().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `app/${account.id}/` }));
    expect(listed.Contents?.map((o) => [o.Key, o.Size])).toEqual([[`app/${row.storageKey}`, bytes.byteLength]]);
    expect(fs.existsSync(path.join(dataDir, 'attachments', row.storageKey))).toBe(false);
    // Another account's id finds nothing; a removed file reads as gone.
    expect(await readAttachment({ accountId: account.id + 100000, id: row.id })).toBeUndefined();
    await removeStoredFiles([row.storageKey]);
    expect(await readAttachment({ accountId: account.id, id: row.id })).toBeUndefined();
    expect(await readStoredFile('../../etc/passwd')).toBeUndefined();
  });

  test('a file whose row cannot be written is removed from the bucket again', async () => {
    await expect(saveAttachment({ accountId: 2_000_000_000, messageId: null, filename: 'orphan.txt', bytes: Buffer.from('no account') })).rejects.toThrow();
    const listed = await rawClient().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'app/2000000000/' }));
    expect(listed.Contents ?? []).toEqual([]);
  });

  test('a contact import file (CSV or Excel) is kept in the bucket and read back a row at a time', async () => {
    const { account } = await createTestAccount();
    const csv = await storeImportFile({ accountId: account.id, kind: 'csv', bytes: Buffer.from('Email,First name\nada@example.test,Ada\nbob@example.test,Bob\n') });
    expect(csv).toMatchObject({ ok: true, total: 2 });
    if (!csv.ok) return;
    expect(csv.storageKey).toMatch(new RegExp(`^${account.id}/\\d{4}-\\d{2}/[0-9a-f]{32}\\.csv$`));
    expect(await getFileStorage().exists(csv.storageKey)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'imports'))).toBe(false);
    expect(await previewImportFile(csv.storageKey)).toMatchObject({ header: ['Email', 'First name'], guesses: ['email', 'firstName'] });
    const rows: string[][] = [];
    for await (const row of readFileRows(csv.storageKey)) rows.push(row);
    expect(rows).toEqual([['Email', 'First name'], ['ada@example.test', 'Ada'], ['bob@example.test', 'Bob']]);

    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contacts');
    sheet.addRow(['Email', 'Company']);
    for (let i = 0; i < 300; i++) sheet.addRow([`p${i}@example.test`, `Firm ${i}`]);
    const xlsx = await storeImportFile({ accountId: account.id, kind: 'xlsx', bytes: Buffer.from(await workbook.xlsx.writeBuffer()) });
    expect(xlsx).toMatchObject({ ok: true, total: 300 });
    if (!xlsx.ok) return;
    expect(xlsx.storageKey.endsWith('.xlsx')).toBe(true);
    let count = 0;
    let last: string[] = [];
    for await (const row of readFileRows(xlsx.storageKey)) {
      count += 1;
      last = row;
    }
    expect([count, last]).toEqual([301, ['p299@example.test', 'Firm 299']]);

    // A file without rows writes nothing; a removed one is gone for the job too.
    expect(await storeImportFile({ accountId: account.id, kind: 'csv', bytes: Buffer.from('Email\n') })).toMatchObject({ ok: false });
    await removeImportFile(csv.storageKey);
    expect(await getFileStorage().exists(csv.storageKey)).toBe(false);
    await expect(previewImportFile(csv.storageKey)).rejects.toThrow(/gone from the file storage/);
    expect((await keysIn(getFileStorage(), `${account.id}/`)).map((o) => o.key)).toEqual([xlsx.storageKey]);
  });
});

describe('npm run parley -- storage migrate', () => {
  const dataDir = path.join(tmp, 'migrate-data');
  const env = () => ({
    ...savedEnv,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_STORAGE: 'local',
    S3_BUCKET: MIGRATE_BUCKET,
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: SECRET,
    S3_PREFIX: 'migrated',
  });
  const migrate = (overrides: Record<string, string> = {}) => runScript('server/cli.ts', ['storage', 'migrate'], { ...env(), ...overrides });

  test('copies the local tree into the bucket, checks every copy, and a second run skips everything', async () => {
    const local = new LocalFileStorage(dataDir);
    const files = new Map<string, Buffer>();
    for (const [accountId, size] of [[1, 10], [1, 2_000_000], [2, 0], [3, 333_333], [3, 1]] as const) {
      const key = newStorageKey(accountId);
      const bytes = crypto.randomBytes(size);
      await local.put(key, bytes);
      files.set(key, bytes);
    }
    const legacy = legacyImportKey(2);
    fs.mkdirSync(path.join(dataDir, 'imports', '2'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, legacy), 'email\nada@example.test\n');
    files.set(legacy, Buffer.from('email\nada@example.test\n'));
    // Not stored files: the session secret, a temporary upload, a stray file.
    fs.writeFileSync(path.join(dataDir, 'session-secret'), 'x'.repeat(64));
    fs.mkdirSync(path.join(dataDir, 'tmp', 'kb-uploads'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'tmp', 'kb-uploads', `${crypto.randomUUID()}.upload`), 'spool');
    fs.writeFileSync(path.join(dataDir, 'attachments', '.DS_Store'), 'x');

    // Already in the bucket: one with the same size (skipped), one cut short by an earlier run (copied again).
    const bucket = new S3FileStorage(settings({ bucket: MIGRATE_BUCKET, prefix: 'migrated/' }));
    const [same, partial] = [...files.keys()].filter((k) => !k.startsWith('imports/') && files.get(k)!.byteLength > 5);
    await bucket.put(same, files.get(same)!);
    await bucket.put(partial, files.get(partial)!.subarray(0, 5));

    const first = await migrate();
    expect(first.stderr).not.toMatch(/failed:/);
    expect(first.code).toBe(0);
    const total = [...files.values()].reduce((n, b) => n + b.byteLength, 0) - files.get(same)!.byteLength;
    expect(first.stdout).toContain(`into the bucket "${MIGRATE_BUCKET}" at ${endpoint} under "migrated/"`);
    expect(first.stdout).toContain(`Copied 5 files (${(total / (1024 * 1024)).toFixed(1)} MB), skipped 1 already in the bucket, 0 failed.`);
    expect(first.stdout).toContain('The local files were left in place');

    // Every file is in the bucket with the same bytes, and still on disk.
    const inBucket = await keysIn(bucket);
    expect(inBucket.map((o) => o.key).sort()).toEqual([...files.keys()].sort());
    for (const [key, bytes] of files) {
      expect(md5((await bucket.get(key))!), key).toBe(md5(bytes));
      expect(md5((await local.get(key))!), key).toBe(md5(bytes));
    }

    const second = await migrate();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Copied 0 files (0 B), skipped 6 already in the bucket, 0 failed.');
    await bucket.close();
  });

  test('a copy that does not match is counted as failed; the command says what is wrong and exits non-zero', async () => {
    const source = new LocalFileStorage(path.join(tmp, 'verify-data'));
    const key = newStorageKey(9);
    await source.put(key, crypto.randomBytes(1000));
    const good = newStorageKey(9);
    await source.put(good, crypto.randomBytes(10));
    // A store that keeps something else than it was given (a broken proxy, a full disk).
    class Corrupting extends S3FileStorage {
      override async put(k: string, bytes: Uint8Array) {
        await super.put(k, k === key ? Buffer.from(bytes).fill(0, 0, 10) : bytes);
      }
    }
    const target = new Corrupting(settings({ bucket: MIGRATE_BUCKET, prefix: 'verify/' }));
    const report = await migrateLocalFiles({ source, target });
    expect(report).toMatchObject({ copied: 1, skipped: 0, failed: 1, bytes: 10, failures: [{ key, reason: 'the copy read back from the bucket differs from the file' }] });
    await target.close();

    const missingBucket = await migrate({ S3_BUCKET: 'no-such-bucket' });
    expect(missingBucket.code).toBe(1);
    expect(missingBucket.stderr).toContain(`The bucket "no-such-bucket" at ${endpoint} does not exist: create it first.`);
    const wrongKey = await migrate({ S3_ACCESS_KEY_ID: 'NOT-A-KEY', S3_SECRET_ACCESS_KEY: 'not-the-secret-123' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('refused these credentials');
    expect(`${wrongKey.stdout}${wrongKey.stderr}`).not.toContain('not-the-secret-123');
    const noBucket = await migrate({ S3_BUCKET: '' });
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr).toContain('Set S3_BUCKET');
    const usage = await runScript('server/cli.ts', ['storage', 'migrate', 'now'], env());
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('"storage migrate" takes no arguments');
  });
});
