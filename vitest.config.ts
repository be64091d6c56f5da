import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '~': path.resolve(__dirname, 'app') } },
  test: {
    include: ['app/**/*.test.{ts,tsx}', 'db/**/*.test.ts', 'engine/**/*.test.ts', 'server/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    globalSetup: ['tests/setup/global-db.ts'],
    setupFiles: ['tests/setup/worker-db.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      APP_HOST: 'localhost:3000',
      SESSION_SECRET: 'test-secret-test-secret-test-secret-0123456789',
      // Uploads, attachments and imports written by tests stay out of the checkout's ./.data.
      PARLEY_DATA_DIR: path.join(os.tmpdir(), 'parley-vitest-data'),
      // The stand-ins for SMS gateways, IMAP and SMTP servers listen on loopback, which the outbound guard refuses
      // by default (ADR 021): the suite turns the installation setting on; the guard's own tests turn it off.
      PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    },
  },
});
