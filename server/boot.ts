import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded';
import { runMigrations } from '../db/migrate';
import { getConfig } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';

/**
 * Resolves the database: DATABASE_URL when set, otherwise the embedded PostgreSQL under PARLEY_DATA_DIR.
 * Applies migrations and leaves DATABASE_URL in the environment for every pool created afterwards.
 */
export async function prepareDatabase(): Promise<{ embedded?: EmbeddedDatabase }> {
  const config = getConfig();
  const log = getLogger();
  let embedded: EmbeddedDatabase | undefined;
  if (!config.databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log: (m) => log.info(m) });
    process.env.DATABASE_URL = embedded.url;
    log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  } else {
    process.env.DATABASE_URL = config.databaseUrl;
  }
  await runMigrations(process.env.DATABASE_URL!);
  return { embedded };
}
