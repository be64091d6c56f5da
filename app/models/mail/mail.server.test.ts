import { afterEach, describe, expect, test, vi } from 'vitest';
import { resetSingleton } from '../../utils/singleton.server';
import { isDevMailboxEnabled } from './mail.server';

/** The development mailbox's rule (ADR 007): which installations and which peers may read it. */
async function enabled(env: Record<string, string>, peerAddress?: string) {
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  resetSingleton('config');
  return isDevMailboxEnabled({ peerAddress });
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetSingleton('config');
});

describe('the development mailbox', () => {
  const production = { NODE_ENV: 'production', SMTP_URL: '', PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION: '' };
  test('is off as soon as SMTP_URL is set', async () => {
    expect(await enabled({ NODE_ENV: 'development', SMTP_URL: 'smtp://mail.example.test:587' }, '127.0.0.1')).toBe(false);
  });
  test('in production on a real host: off for everyone, unless the unsafe setting says so', async () => {
    expect(await enabled({ ...production, APP_HOST: 'parley.example.com' }, '127.0.0.1')).toBe(false);
    expect(await enabled({ ...production, APP_HOST: 'parley.example.com', PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION: 'true' }, '203.0.113.9')).toBe(true);
  });
  test('in production on a local trial (APP_HOST localhost): this machine only', async () => {
    expect(await enabled({ ...production, APP_HOST: 'localhost:3000' }, '127.0.0.1')).toBe(true);
    expect(await enabled({ ...production, APP_HOST: 'localhost:3000' }, '::ffff:127.0.0.1')).toBe(true);
    expect(await enabled({ ...production, APP_HOST: 'localhost:3000' }, '::1')).toBe(true);
    expect(await enabled({ ...production, APP_HOST: 'localhost:3000' }, '192.168.1.20')).toBe(false);
    expect(await enabled({ ...production, APP_HOST: 'localhost:3000' }, undefined)).toBe(false);
    expect(await enabled({ ...production, APP_HOST: 'localhost.example.com' }, '127.0.0.1')).toBe(false);
  });
});
