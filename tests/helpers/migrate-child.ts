import { runMigrations } from '../../db/migrate';

/** One node's start-up migration, as its own process (tests/integration/upgrade.test.ts): prints what it applied. */
const result = await runMigrations(process.env.DATABASE_URL!, { log: (m) => console.error(m) });
console.log(JSON.stringify(result));
