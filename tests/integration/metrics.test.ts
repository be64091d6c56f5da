import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { freePort } from '../../db/embedded';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { createTestAccount } from '../factories';
import { sessionCookie } from '../helpers/http';

/**
 * /metrics and correlation ids (ADR 150) on the BUILT server, started as `npm run serve` starts it, on this file's
 * database: /metrics is nowhere without METRICS_PORT or METRICS_TOKEN; with them it answers only the bearer; real
 * work (a page, an invitation the engine handles, a websocket, an inbound mail) moves the matching figures; and the
 * request's log lines and the engine's lines for the event it caused carry one id.
 */

const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
const TOKEN = crypto.randomBytes(18).toString('hex');
const running: ChildProcess[] = [];

type Server = { child: ChildProcess; port: number; metricsPort?: number; smtpPort?: number; stdout: () => string };

async function startServer(extra: Record<string, string>, ports: { metrics?: boolean; smtp?: boolean } = {}): Promise<Server> {
  const port = await freePort();
  const metricsPort = ports.metrics ? await freePort() : undefined;
  const smtpPort = ports.smtp ? await freePort() : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-metrics-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    APP_HOST,
    PARLEY_DATA_DIR: dataDir,
    SMTP_URL: '',
    SMTP_INBOUND_PORT: String(smtpPort ?? 0),
    LOG_LEVEL: 'warn',
    ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}),
    ...extra,
  };
  delete env.VITEST;
  if (!extra.METRICS_TOKEN) delete env.METRICS_TOKEN;
  if (!metricsPort) delete env.METRICS_PORT;
  const child = spawn(process.execPath, ['--enable-source-maps', 'build/server/index.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Parley exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`Parley was not ready within 60 s:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // The metrics listener and the inbound SMTP server start just after the main port.
  await waitFor(async () => !metricsPort || (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(() => true, () => false)), 'the metrics listener');
  await waitFor(() => !smtpPort || stdout.includes('inbound smtp listening'), 'the inbound SMTP server');
  return { child, port, metricsPort, smtpPort, stdout: () => stdout };
}

async function stopServer(s: Server) {
  if (s.child.exitCode !== null) return;
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A raw HTTP request (fetch cannot set Host): the account's host, its cookie, a form. */
function request(port: number, pathname: string, opts: { host?: string; cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const host = opts.host ?? APP_HOST;
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { host, ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers.origin = `http://${host}`;
  }
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

type Sample = { name: string; labels: Record<string, string>; value: number };

function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples of `name` whose labels include `labels` (0 when none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

beforeAll(() => {
  if (!fs.existsSync('build/index.js') || !fs.existsSync('build/server/index.js')) throw new Error('Run `npm run build` before this test (npm test does).');
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('/metrics is never public by default', () => {
  it('is a 404 on the main port with neither METRICS_PORT nor METRICS_TOKEN', async () => {
    const s = await startServer({ PARLEY_ENGINE: 'off' });
    try {
      const res = await request(s.port, '/metrics');
      expect(res.status).toBe(404);
      const authed = await request(s.port, '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(authed.status).toBe(404);
      expect(authed.text).not.toContain('parley_http_requests_total');
    } finally {
      await stopServer(s);
    }
  });
});

describe('with METRICS_PORT and METRICS_TOKEN, the engine inside', () => {
  let s: Server;
  let account: Awaited<ReturnType<typeof createTestAccount>>;
  let cookie: string;
  let host: string;

  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parseMetrics(await res.text());
  };
  const logLines = () =>
    s
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    account = await createTestAccount();
    cookie = await sessionCookie({ domain: account.domain, accountId: account.account.id, userId: account.owner.id });
    host = `${account.domain}.${APP_HOST}`;
    // debug: the engine's line per handled event ("event handled") is a debug line.
    s = await startServer({ METRICS_TOKEN: TOKEN, LOG_LEVEL: 'debug' }, { metrics: true, smtp: true });
  });
  afterAll(async () => {
    if (s) await stopServer(s);
  });

  it('answers only the bearer token, on the main port and on the listener', async () => {
    expect((await request(s.port, '/metrics')).status).toBe(401);
    const wrong = await request(s.port, '/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(wrong.text).not.toContain('parley_');
    const right = await request(s.port, '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.headers['content-type']).toMatch(/^text\/plain/);
    expect(value(parseMetrics(right.text), 'parley_process_info', { role: 'web+engine' })).toBe(1);
    // The listener asks for the token too when it is set.
    expect((await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`, { headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } })).status).toBe(401);
    const samples = await scrape();
    // collectDefaultMetrics: memory and the event loop's delay.
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.some((x) => x.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    // The queues, from pg-boss's job table (pg-boss's own internal queue left out).
    expect(samples.some((x) => x.name === 'parley_queue_jobs' && x.labels.queue === 'engine.domain-events' && x.labels.state === 'queued')).toBe(true);
    expect(samples.some((x) => x.name === 'parley_queue_jobs' && x.labels.queue.startsWith('__pgboss'))).toBe(false);
    expect(samples.some((x) => x.name === 'parley_db_pool_max_connections' && x.labels.pool === 'app')).toBe(true);
  });

  it('counts pages by route pattern, never by address; unmatched addresses share one label', async () => {
    const before = await scrape();
    const page = await request(s.port, '/signin');
    expect(page.status).toBe(200);
    const conversation = await request(s.port, '/inbox/999999', { host, cookie });
    expect([200, 404]).toContain(conversation.status);
    const missing = await request(s.port, `/no-such-page-${crypto.randomBytes(4).toString('hex')}`);
    expect(missing.status).toBe(404);
    const after = await scrape();
    const signin = { route: 'routes/_auth.signin', method: 'GET', status: '2xx' };
    expect(value(after, 'parley_http_requests_total', signin) - value(before, 'parley_http_requests_total', signin)).toBe(1);
    expect(value(after, 'parley_http_request_duration_seconds_count', signin) - value(before, 'parley_http_request_duration_seconds_count', signin)).toBe(1);
    expect(value(after, 'parley_http_request_duration_seconds_sum', signin)).toBeGreaterThan(value(before, 'parley_http_request_duration_seconds_sum', signin));
    const unmatched = { route: 'unmatched', method: 'GET', status: '4xx' };
    expect(value(after, 'parley_http_requests_total', unmatched) - value(before, 'parley_http_requests_total', unmatched)).toBe(1);
    const routes = new Set(after.filter((x) => x.name === 'parley_http_requests_total').map((x) => x.labels.route));
    expect([...routes].some((r) => r.startsWith('routes/_app.inbox'))).toBe(true);
    for (const r of routes) expect(r).not.toMatch(/999999|no-such-page/);
    // The pages' statements were timed.
    expect(value(after, 'parley_db_statement_duration_seconds_count', { pool: 'app' })).toBeGreaterThan(value(before, 'parley_db_statement_duration_seconds_count', { pool: 'app' }));
  });

  it('echoes a sane X-Request-Id and replaces one that is not', async () => {
    const sane = await request(s.port, '/signin', { headers: { 'x-request-id': 'edge-7f3a:42' } });
    expect(sane.headers['x-request-id']).toBe('edge-7f3a:42');
    const hostile = await request(s.port, '/signin', { headers: { 'x-request-id': 'a b"}<script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const long = await request(s.port, '/signin', { headers: { 'x-request-id': 'x'.repeat(65) } });
    expect(long.headers['x-request-id']).not.toBe('x'.repeat(65));
    await waitFor(() => logLines().some((l) => l.msg === 'request' && l.requestId === 'edge-7f3a:42'), 'the request line of the sane id');
    expect(s.stdout()).not.toContain('<script>');
  });

  it("gives a request's log lines and the engine's lines for the event it caused one correlation id", async () => {
    const [role] = await getDb()
      .select({ id: schema.roles.id })
      .from(schema.roles)
      .where(and(eq(schema.roles.accountId, account.account.id), eq(schema.roles.kind, 'agent')));
    const before = await scrape();
    const requestId = `test-${crypto.randomBytes(6).toString('hex')}`;
    const email = `invitee-${crypto.randomBytes(3).toString('hex')}@example.test`;
    const res = await request(s.port, '/settings/users?index', {
      host,
      cookie,
      headers: { 'x-request-id': requestId },
      form: { intent: 'invite', email, firstName: 'New', lastName: 'Person', roleId: String(role.id) },
    });
    expect(res.status).toBe(302);
    expect(res.headers['x-request-id']).toBe(requestId);
    // The job the request queued carries its id.
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.account.id), eq(schema.domainEvents.type, 'user_invited')));
    expect(event).toBeDefined();
    await waitFor(
      () => logLines().some((l) => l.msg === 'event handled' && l.eventId === event.id),
      'the engine handling the invitation',
    );
    const mine = logLines().filter((l) => l.requestId === requestId);
    const web = mine.find((l) => l.msg === 'request' && l.path === '/settings/users');
    const engine = mine.find((l) => l.msg === 'event handled' && l.eventId === event.id);
    expect(web).toMatchObject({ method: 'POST', status: 302 });
    expect(engine).toMatchObject({ type: 'user_invited', ran: ['invitation-email'] });
    expect(engine!.jobId).toMatch(/^[0-9a-f-]{36}$/);
    // No line of that event runs under another id.
    expect(logLines().filter((l) => l.eventId === event.id && l.requestId !== requestId)).toEqual([]);

    const after = await scrape();
    expect(value(after, 'parley_engine_event_lag_seconds_count')).toBeGreaterThan(value(before, 'parley_engine_event_lag_seconds_count'));
    const completed = { queue: 'engine.domain-events', result: 'completed' };
    expect(value(after, 'parley_engine_jobs_total', completed)).toBeGreaterThan(value(before, 'parley_engine_jobs_total', completed));
    // The invitation mail: no SMTP_URL here, so it is kept in the development mailbox ("stored").
    const stored = { kind: 'system', result: 'stored' };
    await waitFor(async () => value(await scrape(), 'parley_mail_outbound_total', stored) > value(before, 'parley_mail_outbound_total', stored), 'the invitation mail counted');
  });

  it('counts open websocket connections', async () => {
    const gauge = async () => value(await scrape(), 'parley_websocket_connections', { kind: 'agent' });
    const start = await gauge();
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/ws`, { headers: { host, cookie } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, r) => reject(new Error(`status ${r.statusCode}`)));
      ws.once('error', reject);
    });
    await waitFor(async () => (await gauge()) === start + 1, 'the open socket counted');
    ws.close();
    await waitFor(async () => (await gauge()) === start, 'the closed socket uncounted');
  });

  it('counts inbound mail accepted over SMTP', async () => {
    const inbox = await createEmailInbox({ accountId: account.account.id, actorId: account.owner.id, name: 'Support', email: `support@${account.domain}.test`, mode: 'forwarding' });
    const labels = { via: 'smtp', status: 'created' };
    const before = value(await scrape(), 'parley_mail_inbound_total', labels);
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: s.smtpPort, secure: false, ignoreTLS: true });
    await mailer.sendMail({ from: 'Carla Customer <carla@example.test>', to: forwardingAddress(inbox)!, subject: 'Where is my order?', text: 'It has been a week.' });
    expect(value(await scrape(), 'parley_mail_inbound_total', labels)).toBe(before + 1);
  });
});

describe('a web node with the engine off, and `npm run engine` beside it', () => {
  it('each serves its own metrics; the engine process works the request\'s event under the request\'s id', async () => {
    const account = await createTestAccount();
    const cookie = await sessionCookie({ domain: account.domain, accountId: account.account.id, userId: account.owner.id });
    const host = `${account.domain}.${APP_HOST}`;
    // Only METRICS_PORT: the listener serves without a token, the main port not at all.
    const web = await startServer({ PARLEY_ENGINE: 'off', LOG_LEVEL: 'info' }, { metrics: true });
    const enginePort = await freePort();
    const engineEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', APP_HOST, SMTP_URL: '', LOG_LEVEL: 'debug', METRICS_PORT: String(enginePort) };
    delete engineEnv.METRICS_TOKEN;
    const engine = spawn(process.execPath, ['--enable-source-maps', 'build/server/engine.js'], { env: engineEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(engine);
    let engineOut = '';
    engine.stdout!.on('data', (c) => (engineOut += c));
    engine.stderr!.on('data', (c) => (engineOut += c));
    try {
      await waitFor(() => engineOut.includes('engine started') && engineOut.includes('metrics listening'), 'the engine process');
      expect((await request(web.port, '/metrics')).status).toBe(404);
      const webRes = await fetch(`http://127.0.0.1:${web.metricsPort}/metrics`);
      expect(webRes.status).toBe(200);
      expect(webRes.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(value(parseMetrics(await webRes.text()), 'parley_process_info', { role: 'web' })).toBe(1);
      expect((await fetch(`http://127.0.0.1:${web.metricsPort}/`)).status).toBe(404);
      const engineMetrics = async () => parseMetrics(await (await fetch(`http://127.0.0.1:${enginePort}/metrics`)).text());
      const before = await engineMetrics();
      expect(value(before, 'parley_process_info', { role: 'engine' })).toBe(1);

      const [role] = await getDb()
        .select({ id: schema.roles.id })
        .from(schema.roles)
        .where(and(eq(schema.roles.accountId, account.account.id), eq(schema.roles.kind, 'agent')));
      const requestId = `two-${crypto.randomBytes(6).toString('hex')}`;
      const res = await request(web.port, '/settings/users?index', {
        host,
        cookie,
        headers: { 'x-request-id': requestId },
        form: { intent: 'invite', email: `far-${crypto.randomBytes(3).toString('hex')}@example.test`, firstName: 'Far', lastName: 'Away', roleId: String(role.id) },
      });
      expect(res.status).toBe(302);
      const lines = (out: string) =>
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      await waitFor(() => lines(engineOut).some((l) => l.msg === 'event handled' && l.requestId === requestId), "the engine process's line for the event");
      expect(lines(web.stdout()).find((l) => l.msg === 'request' && l.requestId === requestId)).toMatchObject({ method: 'POST', path: '/settings/users', status: 302 });
      expect(lines(engineOut).find((l) => l.msg === 'event handled' && l.requestId === requestId)).toMatchObject({ type: 'user_invited' });
      const after = await engineMetrics();
      expect(value(after, 'parley_engine_event_lag_seconds_count')).toBeGreaterThan(value(before, 'parley_engine_event_lag_seconds_count'));
    } finally {
      engine.kill('SIGTERM');
      if (engine.exitCode === null) await new Promise((r) => engine.once('exit', r));
      await stopServer(web);
    }
  });
});
