import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumPath } from './chromium';
import { freePort } from '../../db/embedded';
import { cloneDatabase, createTemplate, startTestServer } from '../setup/test-database';

/**
 * Starts Parley as `npm start` would (built app, inline engine) on a fresh database and a free port.
 * Tests reach accounts at http://{domain}.localhost:{port}; Chromium resolves *.localhost to loopback.
 */
const E2E_SECRET_KEY = 'e2e0000000000000000000000000000000000000000000000000000000000e2e';

export default async function globalSetup() {
  chromiumPath();
  if (!fs.existsSync('build/index.js') || !fs.existsSync('build/server/index.js')) throw new Error('Run `npm run build` before the browser tests (npm test does).');
  const db = await startTestServer();
  const template = `parley_e2e_template_${process.pid}`;
  await createTemplate(db.adminUrl, template);
  const databaseUrl = await cloneDatabase(db.adminUrl, template, `parley_e2e_${crypto.randomBytes(4).toString('hex')}`);
  const port = await freePort();
  // The inbound mail server of this run (forwarded mail reaches Parley here); never the fixed default port.
  const smtpInboundPort = await freePort();
  // Twilio's API in the browser tests: a stand-in the SMS spec starts on this port (tests/helpers/stand-ins/twilio.ts).
  const twilioPort = await freePort();
  // Meta's Graph API and X's API: stand-ins the social spec starts on these ports (settings are tried when saved).
  const metaPort = await freePort();
  const xPort = await freePort();
  // Google's OAuth and Calendar API: a stand-in the meetings spec starts on this port (tests/helpers/stand-ins/google-calendar.ts).
  const googlePort = await freePort();
  // Shopify and GitHub: stand-ins the integrations spec starts on these ports (tests/helpers/*-standin.ts).
  const shopifyPort = await freePort();
  const githubPort = await freePort();
  const asanaPort = await freePort();
  const clickupPort = await freePort();
  const bigcommercePort = await freePort();
  const hubspotPort = await freePort();
  const pipedrivePort = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-'));
  const env = {
    ...process.env,
    NODE_ENV: 'production' as const,
    PORT: String(port),
    APP_HOST: `localhost:${port}`,
    // Help centres on {slug}.help.localhost (ADR 056); Chromium resolves *.localhost to this machine.
    HELP_HOST: `help.localhost:${port}`,
    DATABASE_URL: databaseUrl,
    PARLEY_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    SMTP_URL: '',
    SMTP_INBOUND_PORT: String(smtpInboundPort),
    INBOUND_EMAIL_DOMAIN: 'inbound.parley.test',
    TWILIO_API_BASE: `http://127.0.0.1:${twilioPort}`,
    META_GRAPH_API_BASE: `http://127.0.0.1:${metaPort}`,
    TWITTER_API_BASE: `http://127.0.0.1:${xPort}`,
    GOOGLE_CLIENT_ID: 'parley-e2e.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: 'e2e-secret',
    GOOGLE_ACCOUNTS_BASE: `http://127.0.0.1:${googlePort}`,
    GOOGLE_OAUTH_BASE: `http://127.0.0.1:${googlePort}`,
    GOOGLE_API_BASE: `http://127.0.0.1:${googlePort}`,
    SHOPIFY_CLIENT_ID: 'e2e-shopify-client',
    SHOPIFY_CLIENT_SECRET: 'e2e-shopify-secret',
    SHOPIFY_API_BASE: `http://127.0.0.1:${shopifyPort}`,
    GITHUB_CLIENT_ID: 'Iv1.e2eclient',
    GITHUB_CLIENT_SECRET: 'e2e-github-secret',
    GITHUB_OAUTH_BASE: `http://127.0.0.1:${githubPort}`,
    GITHUB_API_BASE: `http://127.0.0.1:${githubPort}`,
    ASANA_CLIENT_ID: 'e2e-asana-client',
    ASANA_CLIENT_SECRET: 'e2e-asana-secret',
    ASANA_OAUTH_BASE: `http://127.0.0.1:${asanaPort}`,
    ASANA_API_BASE: `http://127.0.0.1:${asanaPort}/api/1.0`,
    CLICKUP_CLIENT_ID: 'e2e-clickup-client',
    CLICKUP_CLIENT_SECRET: 'e2e-clickup-secret',
    CLICKUP_OAUTH_BASE: `http://127.0.0.1:${clickupPort}`,
    CLICKUP_API_BASE: `http://127.0.0.1:${clickupPort}/api/v2`,
    BIGCOMMERCE_API_BASE: `http://127.0.0.1:${bigcommercePort}`,
    PIPEDRIVE_CLIENT_ID: 'e2e-pipedrive-client',
    PIPEDRIVE_CLIENT_SECRET: 'e2e-pipedrive-secret',
    PIPEDRIVE_OAUTH_BASE: `http://127.0.0.1:${pipedrivePort}`,
    PIPEDRIVE_API_BASE: `http://127.0.0.1:${pipedrivePort}`,
    HUBSPOT_CLIENT_ID: 'e2e-hubspot-client',
    HUBSPOT_CLIENT_SECRET: 'e2e-hubspot-secret',
    HUBSPOT_OAUTH_BASE: `http://127.0.0.1:${hubspotPort}`,
    HUBSPOT_API_BASE: `http://127.0.0.1:${hubspotPort}`,
    // Stand-ins listen on loopback, which the outbound guard refuses unless the installation allows it (ADR 021).
    PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    // One sealing key for the server and the specs' process, so that secrets a spec stores (a review source's token)
    // open in the server (ADR 096).
    PARLEY_SECRET_KEY: E2E_SECRET_KEY,
    // The specs read sign-up codes from the development mailbox of this production-mode server (ADR 007).
    PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION: 'true',
  };
  const server: ChildProcess = spawn(process.execPath, ['--enable-source-maps', 'build/server/index.js'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`Parley exited with ${server.exitCode} before it was healthy`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('Parley did not become healthy within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  process.env.E2E_PORT = String(port);
  process.env.E2E_APP_HOST = `localhost:${port}`;
  process.env.E2E_SMTP_INBOUND_PORT = String(smtpInboundPort);
  process.env.E2E_TWILIO_PORT = String(twilioPort);
  process.env.E2E_META_PORT = String(metaPort);
  process.env.E2E_X_PORT = String(xPort);
  process.env.E2E_GOOGLE_PORT = String(googlePort);
  process.env.E2E_SHOPIFY_PORT = String(shopifyPort);
  process.env.E2E_GITHUB_PORT = String(githubPort);
  process.env.E2E_ASANA_PORT = String(asanaPort);
  process.env.E2E_CLICKUP_PORT = String(clickupPort);
  process.env.E2E_BIGCOMMERCE_PORT = String(bigcommercePort);
  process.env.E2E_HUBSPOT_PORT = String(hubspotPort);
  process.env.E2E_PIPEDRIVE_PORT = String(pipedrivePort);
  process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';
  process.env.DATABASE_URL = databaseUrl;
  // Specs that store files for their data (an account export's attachments) write where the server reads.
  process.env.PARLEY_DATA_DIR = dataDir;
  process.env.APP_HOST = `localhost:${port}`;
  process.env.SESSION_SECRET = 'unused-by-tests-but-required-000000000000';
  process.env.PARLEY_SECRET_KEY = E2E_SECRET_KEY;
  process.env.PARLEY_DATA_DIR = dataDir;
  process.env.LOG_LEVEL = 'silent';
  // Specs call domain functions in this process too, with stand-ins on loopback (ADR 021).
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await db.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
