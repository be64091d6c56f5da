import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { getConfigOrExit } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { ensurePlans } from '../app/models/accounts/accounts.server';
import { closeDb } from '../db/client';
import { startBoss, stopBoss } from '../app/utils/jobs.server';
import { startEngine } from '../engine/index';
import { createApp } from './app';
import { prepareDatabase } from './boot';
import { startLiveServer } from './ws';

async function main() {
  const config = getConfigOrExit();
  const log = getLogger();
  const { embedded } = await prepareDatabase();
  await ensurePlans();
  await startBoss();
  const engine = config.engine === 'inline' ? await startEngine({ mode: 'inline' }) : undefined;
  if (!engine) {
    const { engineState } = await import('../engine/status');
    engineState().mode = 'external';
  }

  const root = process.cwd();
  const buildPath = path.join(root, 'build', 'index.js');
  const build = (await import(pathToFileURL(buildPath).href)) as ServerBuild;
  const app = await createApp({ build, publicDir: path.join(root, 'public') });
  const server = http.createServer(app);
  const live = await startLiveServer(server);
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  log.info({ port: config.port }, 'Parley is listening');
  console.log(`\n  Parley is running: open http://${config.appHost}/ to sign up\n`);
  if (!config.smtpUrl) {
    // Without SMTP the sign-up code is only readable there; anyone who reaches the server can read it too.
    console.log(`  SMTP_URL is not set: outgoing mail is kept at http://${config.appHost}/dev/mailbox (set SMTP_URL in production)\n`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    // Stop taking requests, let in-flight ones and jobs finish, then stop the database.
    server.close();
    server.closeIdleConnections?.();
    await live.close().catch(() => {});
    await engine?.stop();
    await stopBoss().catch((err) => log.warn({ err: (err as Error).message }, 'job queue stop failed'));
    await closeDb().catch(() => {});
    if (embedded) await embedded.stop().catch(() => {});
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  if (process.env.LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
});
