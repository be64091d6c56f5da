import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { getConfigOrExit } from '../app/utils/env.server';
import { getLogger } from '../app/utils/logger.server';
import { ensurePlans } from '../app/models/accounts/accounts.server';
import { isDevMailboxEnabled, isLocalTrial } from '../app/models/mail/mail.server';
import { closeDb } from '../db/client';
import { markJobsStopping, startBoss, stopBoss } from '../app/utils/jobs.server';
import { startEngine } from '../engine/index';
import { startNodeHeartbeat } from '../app/models/cluster/heartbeat.server';
import { createApp } from './app';
import { keepRunningOnStrayRejections, prepareDatabase } from './boot';
import { startLiveServer } from './ws';
import { startWidgetSocket } from './widget-ws';
import { markDraining, shutdownDrainMs } from './health';
import { markProcessRole, startMetricsListener } from './metrics';

/**
 * What has started so far, stopped in reverse order by one shutdown: a signal during start-up (Ctrl-C a moment
 * after `npm start`) waits for the step under way, then stops what exists — the engine before pg-boss, pg-boss
 * before the database — instead of leaving them polling a database that is going away.
 */
const started: {
  embedded?: { stop: () => Promise<void> };
  boss?: boolean;
  engine?: { stop: () => Promise<void> };
  heartbeat?: { stop: () => Promise<void> };
  stopHttp?: () => Promise<void>;
} = {};
let stopping = false;
/** The start-up step under way: a shutdown waits for it (main, awaiting it first, records what it started). */
let current: Promise<unknown> = Promise.resolve();
/** How long each start-up step took, logged once listening (`bench:startup` reads it; ADR 047). */
const stepTimes: Record<string, number> = {};
function step<T>(p: Promise<T>, name?: string): Promise<T> {
  current = p;
  if (!name) return p;
  const t0 = performance.now();
  return p.finally(() => {
    stepTimes[name] = Math.round(performance.now() - t0);
  });
}

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const log = getLogger();
  log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  await current.catch(() => {});
  // Behind a proxy: "not ready" first, and a moment for the proxy to see it before the port closes (ADR 143).
  const drainMs = started.stopHttp ? shutdownDrainMs() : 0;
  if (drainMs) {
    markDraining();
    await new Promise((r) => setTimeout(r, drainMs));
  }
  markJobsStopping();
  await started.stopHttp?.().catch(() => {});
  await started.heartbeat?.stop().catch(() => {});
  await started.engine?.stop().catch((err) => log.warn({ err: (err as Error).message }, 'engine stop failed'));
  if (started.boss) await stopBoss().catch((err) => log.warn({ err: (err as Error).message }, 'job queue stop failed'));
  await closeDb().catch(() => {});
  if (started.embedded) await started.embedded.stop().catch(() => {});
  log.info('stopped');
  process.exit(0);
}

async function main() {
  const config = getConfigOrExit();
  const log = getLogger();
  // From the first moment: a signal during start-up stops cleanly too.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  keepRunningOnStrayRejections();
  // Start-up overlaps (ADR 047): the Remix build (the app's modules, ~1 s) loads while PostgreSQL starts and migrates.
  const root = process.cwd();
  const buildLoaded = import(pathToFileURL(path.join(root, 'build', 'index.js')).href) as Promise<ServerBuild>;
  buildLoaded.catch(() => {});
  const { embedded } = await step(prepareDatabase(), 'database');
  started.embedded = embedded;
  if (stopping) return;
  await step(ensurePlans(), 'plans');
  if (stopping) return;
  await step(startBoss(), 'jobQueue');
  started.boss = true;
  if (stopping) return;
  const engine = config.engine === 'inline' ? await step(startEngine({ mode: 'inline' }), 'engine') : undefined;
  started.engine = engine;
  if (stopping) return;
  if (!engine) {
    const { engineState } = await import('../engine/status');
    engineState().mode = 'external';
  }

  // The status page of the operator's console lists the nodes (ADR 152): one row a minute from each process.
  started.heartbeat = await step(startNodeHeartbeat({ role: engine ? 'web+engine' : 'web' }), 'nodeHeartbeat');
  if (stopping) return;

  const build = await step(buildLoaded, 'remixBuild');
  const app = await step(createApp({ build, publicDir: path.join(root, 'public') }), 'app');
  const server = http.createServer(app);
  const live = await step(startLiveServer(server), 'liveServer');
  const widgetSocket = await step(startWidgetSocket(server), 'widgetSocket');
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  // /metrics (ADR 150): this process's own, on METRICS_PORT when set (the main port serves it only with METRICS_TOKEN).
  markProcessRole(engine ? 'web+engine' : 'web');
  const metricsListener = await startMetricsListener();
  log.info({ port: config.port, startup: { ...stepTimes, sinceProcessStart: Math.round(performance.now()) } }, 'Parley is listening');
  // Inbound mail: the SMTP server for forwarded mail (SMTP_INBOUND_PORT, 0 = off) and the IMAP readers. Their
  // libraries (smtp-server, imapflow, mailparser) load only now, after the app answers (ADR 047).
  const [{ startInboundSmtp }, { startImapManager }] = await Promise.all([import('./smtp-inbound'), import('./imap-manager')]);
  const smtpInbound =
    config.smtpInboundPort > 0
      ? await startInboundSmtp({ port: config.smtpInboundPort }).catch((err: Error & { code?: string }) => {
          // The web app still serves everything else; forwarded mail waits in the sender's queue until this is fixed.
          log.error({ port: config.smtpInboundPort, err: err.message }, 'inbound mail server not started: is SMTP_INBOUND_PORT in use? (0 turns it off)');
          console.error(`  Inbound mail server NOT started on port ${config.smtpInboundPort}: ${err.code ?? err.message}. Set SMTP_INBOUND_PORT (0 = off).\n`);
          return undefined;
        })
      : undefined;
  const imap = await startImapManager();
  console.log(`\n  Parley is running: open http://${config.appHost}/ to sign up\n`);
  if (!config.smtpUrl) {
    if (isDevMailboxEnabled({ peerAddress: '127.0.0.1' })) {
      // Without SMTP the sign-up code is only readable there; anyone who reaches the server can read it too.
      console.log(`  SMTP_URL is not set: outgoing mail is kept at http://${config.appHost}/dev/mailbox (set SMTP_URL in production)\n`);
    }
    if (config.nodeEnv === 'production') {
      const mailbox = config.unsafeDevMailboxInProduction
        ? 'PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION is on: /dev/mailbox shows every sign-up code and reset link to anyone.'
        : isLocalTrial()
          ? 'For this local trial (APP_HOST is localhost) the development mailbox answers requests from this machine only.'
          : 'The development mailbox is off in production.';
      log.error('SMTP_URL is not set: Parley cannot deliver mail (sign-up codes, invitations, password resets, replies)');
      console.error(`\n  !!! SMTP_URL is not set: Parley CANNOT DELIVER MAIL. Sign-up codes, invitations, password resets and replies of\n  !!! inboxes without their own SMTP server are not sent. ${mailbox}\n  !!! Set SMTP_URL (see README, Configuration).\n`);
    }
  }

  started.stopHttp = async () => {
    // Stop taking requests, let in-flight ones finish, then the sockets and inbound mail.
    server.close();
    server.closeIdleConnections?.();
    await live.close().catch(() => {});
    await widgetSocket.close().catch(() => {});
    await smtpInbound?.close().catch(() => {});
    await imap.stop().catch(() => {});
    await metricsListener?.close().catch(() => {});
  };
  if (stopping) await started.stopHttp();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  if (process.env.LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
});
