import { defineConfig } from 'vitest/config';

/** The cluster drills (`npm run test:cluster`): real PostgreSQL primary and standby, PgBouncer, HAProxy, Parley nodes. */
export default defineConfig({
  test: {
    include: ['tests/cluster/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
