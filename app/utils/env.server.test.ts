import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, parseConfig } from './env.server';

const dirs: string[] = [];
function tempDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-env-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

// The environment as the process would see it: only the variables given (NODE_ENV included or not).
const parse = (env: Record<string, string>) => parseConfig(env as NodeJS.ProcessEnv);

function problemsOf(env: Record<string, string>) {
  try {
    parse(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  test('every bad variable gets its own line, all at once', () => {
    const err = problemsOf({
      PARLEY_DATA_DIR: tempDataDir(),
      PORT: 'eighty',
      APP_HOST: 'https://parley.example.com/',
      DATABASE_URL: 'mysql://localhost/parley',
      SESSION_SECRET: 'too-short',
      SMTP_URL: 'http://mail.example.com',
      LOG_LEVEL: 'loud',
    });
    expect(err.problems).toHaveLength(6);
    const byVariable = Object.fromEntries(err.problems.map((p) => [p.split(':')[0], p]));
    expect(Object.keys(byVariable).sort()).toEqual(['APP_HOST', 'DATABASE_URL', 'LOG_LEVEL', 'PORT', 'SESSION_SECRET', 'SMTP_URL']);
    expect(byVariable.PORT).toBe('PORT: PORT must be a number');
    expect(byVariable.APP_HOST).toContain('APP_HOST must be a host name with an optional port');
    expect(byVariable.DATABASE_URL).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(byVariable.SESSION_SECRET).toContain('SESSION_SECRET must be at least 32 characters long');
    expect(byVariable.SMTP_URL).toContain('SMTP_URL must be an smtp:// or smtps:// URL');
    expect(byVariable.LOG_LEVEL).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
    // The message printed at boot: a header, then one line per problem.
    expect(err.message.split('\n')).toHaveLength(7);
    expect(err.message).toMatch(/^Parley cannot start, the configuration is invalid:/);
  });

  test('a port out of range and a wrong engine mode are named', () => {
    expect(problemsOf({ PARLEY_DATA_DIR: tempDataDir(), PORT: '70000' }).problems).toEqual(['PORT: PORT must be between 1 and 65535']);
    expect(problemsOf({ PARLEY_DATA_DIR: tempDataDir(), PARLEY_ENGINE: 'sometimes' }).problems[0]).toMatch(/^PARLEY_ENGINE: /);
  });

  test('defaults: port 3000, APP_HOST localhost:$PORT, embedded database, inline engine', () => {
    const dataDir = tempDataDir();
    const config = parse({ PARLEY_DATA_DIR: dataDir });
    expect(config).toMatchObject({
      nodeEnv: 'production',
      port: 3000,
      appHost: 'localhost:3000',
      databaseUrl: undefined,
      dataDir,
      smtpUrl: undefined,
      mailFrom: 'Parley <no-reply@parley.local>',
      logLevel: 'info',
      engine: 'inline',
    });
    expect(parse({ PARLEY_DATA_DIR: dataDir, PORT: '4100' }).appHost).toBe('localhost:4100');
    expect(parse({ PARLEY_DATA_DIR: dataDir, PORT: '4100', APP_HOST: 'Parley.Example.com' }).appHost).toBe('parley.example.com');
    // An empty variable counts as unset (docker run -e FOO= and .env files write those).
    expect(parse({ PARLEY_DATA_DIR: dataDir, PORT: '', SMTP_URL: '' })).toMatchObject({ port: 3000, smtpUrl: undefined });
  });

  test('the data directory defaults to ./.data', () => {
    const cwd = process.cwd();
    const dir = tempDataDir();
    process.chdir(dir);
    try {
      expect(parse({ SESSION_SECRET: 'x'.repeat(32) }).dataDir).toBe(path.join(fs.realpathSync(dir), '.data'));
    } finally {
      process.chdir(cwd);
    }
  });

  test('without SESSION_SECRET a secret is generated once and kept in the data directory', () => {
    const dataDir = path.join(tempDataDir(), 'nested', 'data');
    const first = parse({ PARLEY_DATA_DIR: dataDir }).sessionSecret;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'session-secret');
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(first);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // A restart signs cookies with the same secret, so sessions survive it.
    expect(parse({ PARLEY_DATA_DIR: dataDir }).sessionSecret).toBe(first);
    // An explicit SESSION_SECRET wins over the stored one.
    expect(parse({ PARLEY_DATA_DIR: dataDir, SESSION_SECRET: 's'.repeat(40) }).sessionSecret).toBe('s'.repeat(40));
  });

  test('metrics: off by default, a listener on 127.0.0.1 unless told, and a token long enough to guess at no more', () => {
    const dataDir = tempDataDir();
    expect(parse({ PARLEY_DATA_DIR: dataDir }).metrics).toEqual({ port: null, host: '127.0.0.1', token: null });
    expect(parse({ PARLEY_DATA_DIR: dataDir, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 'a'.repeat(32) }).metrics).toEqual({
      port: 9464,
      host: '0.0.0.0',
      token: 'a'.repeat(32),
    });
    const err = problemsOf({ PARLEY_DATA_DIR: dataDir, METRICS_PORT: '99999', METRICS_HOST: 'http://x/', METRICS_TOKEN: 'short' });
    expect(err.problems).toEqual([
      'METRICS_PORT: METRICS_PORT must be between 1 and 65535',
      'METRICS_HOST: METRICS_HOST must be an address to bind the metrics listener to, e.g. 127.0.0.1 (default), 0.0.0.0 or ::',
      'METRICS_TOKEN: METRICS_TOKEN must be 16 to 200 printable characters without spaces (e.g. openssl rand -hex 24)',
    ]);
  });
  test('mail over OAuth (ADR 158): its own Google client, else the Calendar one; Microsoft only with both halves; a bad tenant is named', () => {
    const base = { PARLEY_DATA_DIR: tempDataDir(), SESSION_SECRET: 'x'.repeat(40) };
    expect(parse(base).mailOAuth).toEqual({ google: null, microsoft: null });
    expect(parse({ ...base, GOOGLE_CLIENT_ID: 'cal', GOOGLE_CLIENT_SECRET: 'cal-secret' }).mailOAuth.google).toMatchObject({
      clientId: 'cal',
      clientSecret: 'cal-secret',
    });
    const both = parse({
      ...base,
      GOOGLE_CLIENT_ID: 'cal',
      GOOGLE_CLIENT_SECRET: 'cal-secret',
      GOOGLE_OAUTH_CLIENT_ID: 'mail',
      GOOGLE_OAUTH_CLIENT_SECRET: 'mail-secret',
    });
    expect(both.mailOAuth.google).toMatchObject({ clientId: 'mail', clientSecret: 'mail-secret', accountsBase: 'https://accounts.google.com' });
    expect(parse({ ...base, MICROSOFT_OAUTH_CLIENT_ID: 'ms' }).mailOAuth.microsoft).toBeNull();
    expect(parse({ ...base, MICROSOFT_OAUTH_CLIENT_ID: 'ms', MICROSOFT_OAUTH_CLIENT_SECRET: 's' }).mailOAuth.microsoft).toEqual({
      clientId: 'ms',
      clientSecret: 's',
      tenant: 'organizations',
      loginBase: 'https://login.microsoftonline.com',
    });
    expect(problemsOf({ ...base, MICROSOFT_OAUTH_TENANT: 'not/a tenant' }).message).toContain('MICROSOFT_OAUTH_TENANT must be a tenant id');
  });
});
