import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../scripts/cluster';
import type { Fixture, Traffic as TrafficType } from './traffic';
import { appendMail, startImapServer, type ImapServer } from '../helpers/imap-server';

/**
 * Failure drills on the real topology (ADR 143): Debian's PostgreSQL primary and synchronous standby, a PgBouncer in
 * front of each, HAProxy in front of three web nodes, two engine nodes. Each drill runs under traffic (tests/cluster/
 * traffic.ts: mail over SMTP through the proxy, widget chats, 50 agent sockets and page loads, 20 workflows on every new
 * conversation: 1,000 mails over the five drills), prints its figures and fails on any loss or double.
 */
let c: Cluster;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A GET with the Host a browser on APP_HOST sends (a node answers other hosts with 418). */
function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { host: c.appHost }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
  });
}

/** Seconds until `probe` holds, checked every 250 ms, or throws after `limitS`. */
async function secondsUntil(limitS: number, probe: () => Promise<boolean>) {
  const t0 = Date.now();
  while (Date.now() - t0 < limitS * 1000) {
    if (await probe().catch(() => false)) return (Date.now() - t0) / 1000;
    await sleep(250);
  }
  throw new Error(`not within ${limitS} s`);
}

let traffic: typeof import('./traffic');
let f: Fixture;
/** An IMAP mailbox (hoodiecrow, in this process) that one inbox of the drills' account reads: one connection across the cluster. */
let imap: ImapServer;
let imapInboxId: number;

beforeAll(async () => {
  c = await startCluster({ log: (l) => console.log(`  cluster: ${l}`) });
  // This process makes the drills' account with Parley's own models, on the cluster's database.
  Object.assign(process.env, c.clientEnv());
  traffic = await import('./traffic');
  f = await traffic.prepareAccount(c);
  imap = await startImapServer();
  imapInboxId = await traffic.prepareImapInbox(c, f, imap.port);
});
afterAll(async () => {
  await imap?.close();
  if (process.env.PARLEY_KEEP_CLUSTER) console.log(`  cluster kept in ${c?.dir}`);
  else await c?.stop();
  const { closeDb } = await import('../../db/client');
  await closeDb().catch(() => {});
});

const SOCKETS = 50;

/** A drill's traffic, the fault in its middle, then the count: printed, and nothing lost or doubled. */
async function underTraffic(
  name: string,
  load: { mails: number; mailRate: number; chats: number; chatRate: number },
  fault: (t: TrafficType) => Promise<Record<string, unknown>>,
  opts: { drainS?: number } = {},
) {
  const t = new traffic.Traffic(c, f, name);
  await t.start({ ...load, sockets: SOCKETS });
  const faultFigures = await fault(t);
  const figures = await t.stop();
  const stored = await traffic.countStored(c, f, t, opts.drainS ?? 120);
  console.log(
    [
      `  drill ${name}: ${JSON.stringify(faultFigures)}`,
      `    mails   sent ${stored.mails.acknowledged}, stored ${stored.mails.stored}, lost ${stored.mails.lost}, doubled ${stored.mails.doubled} (${figures.mails.refusedThenRetried} refused or cut and sent again)`,
      `    chats   sent ${stored.chats.acknowledged}, stored ${stored.chats.stored}, lost ${stored.chats.lost}, doubled ${stored.chats.doubled} (${figures.chats.retried} sends retried by the client)`,
      `    actions expected ${stored.actions.expected} (${stored.actions.conversations} conversations x 20 workflows), done ${stored.actions.done}, doubled ${stored.actions.doubled}; drained ${stored.actions.drainedS.toFixed(1)} s after the last client`,
      `    agents  ${figures.sockets.connected} sockets, ${figures.sockets.closes} closed, longest reconnect ${figures.sockets.maxReconnectS.toFixed(1)} s; page loads ${JSON.stringify(figures.pages.statuses)}; new chat on every socket p95 ${figures.liveP95Ms ?? '-'} ms`,
    ].join('\n'),
  );
  expect(stored.mails.lost).toBe(0);
  expect(stored.mails.doubled).toBe(0);
  expect(stored.chats.lost).toBe(0);
  expect(stored.chats.doubled).toBe(0);
  expect(stored.actions.doubled).toBe(0);
  expect(stored.actions.done).toBe(stored.actions.expected);
  return { figures, stored };
}

async function nodeReadySeconds(limitS: number) {
  let last = '';
  try {
    return await secondsUntil(limitS, async () => {
      const statuses = await Promise.all(c.webNodes().map((n) => get(`http://127.0.0.1:${n.port}/readyz`)));
      last = statuses.map((s) => `${s.status} ${s.body}`).join(' | ');
      return statuses.every((s) => s.status === 200);
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; last readiness answers: ${last}`);
  }
}

/** The node holding the inbox's IMAP lease now (its name: the lease names `<node>#<process>`), or null. */
async function imapHolder(): Promise<string | null> {
  const rows = await c.query<{ holder: string }>(`select holder from cluster_leases where key = 'imap:${imapInboxId}' and expires_at > now()`);
  return rows[0]?.holder.split('#')[0] ?? null;
}

/** A mail put into the IMAP mailbox now: seconds until its conversation exists (IDLE on the lease holder's connection). */
async function imapMailSeconds(limitS: number) {
  const id = `imap-${Date.now()}-${Math.random().toString(16).slice(2)}@drills.test`;
  await appendMail(imap.port, `From: Ida <ida@example.test>\r\nTo: mailbox@drills.test\r\nSubject: Through IMAP\r\nMessage-ID: <${id}>\r\n\r\nHello over IMAP\r\n`);
  return secondsUntil(limitS, async () => (await c.query<{ n: number }>(`select count(*)::int as n from messages where email_message_id = '<${id}>'`))[0].n === 1);
}

describe('the clustered topology', () => {
  it('answers liveness and readiness apart, on every node and through the proxy', async () => {
    for (const n of c.webNodes()) {
      expect((await get(`http://127.0.0.1:${n.port}/livez`)).status).toBe(200);
      expect((await get(`http://127.0.0.1:${n.port}/readyz`)).status).toBe(200);
    }
    expect((await get(`${c.proxyUrl}/readyz`)).status).toBe(200);
  });

  it('holds exactly one IMAP connection per inbox across the three web nodes, under a lease', async () => {
    await secondsUntil(30, async () => (await imapHolder()) !== null && imap.connections() === 1);
    // The first connection starts at the end of the mailbox (what was there before is not imported): its position is
    // stored once it has read the mailbox; mail after that arrives.
    await secondsUntil(30, async () => (await c.query<{ uid: string | null }>(`select settings->'imap'->>'lastUid' as uid from inboxes where id = ${imapInboxId}`))[0].uid !== null);
    const seconds = await imapMailSeconds(10);
    await sleep(12_000);
    // Still one, after the other nodes' lease rounds (every 10 s).
    expect(imap.connections()).toBe(1);
    console.log(`  imap: one connection, held by ${await imapHolder()}; a new mail in ${seconds.toFixed(1)} s`);
  });

  it('drill 1: SIGKILL a web node under traffic; the proxy routes around it, sockets reconnect within 5 s', async () => {
    // The node killed is the one holding the IMAP lease: another takes the mailbox over within 30 s.
    const victim = (await imapHolder()) ?? 'web-1';
    let takeover = 0;
    const { figures } = await underTraffic('web-kill', { mails: 200, mailRate: 8, chats: 40, chatRate: 2 }, async () => {
      await sleep(8_000);
      await c.killNode(victim);
      const killedAt = Date.now();
      await secondsUntil(40, async () => {
        const holder = await imapHolder();
        return holder !== null && holder !== victim && imap.connections() === 1;
      });
      takeover = (Date.now() - killedAt) / 1000;
      const mail = await imapMailSeconds(10);
      return { killed: victim, imapTakenOverS: Number(takeover.toFixed(1)), imapMailAfterS: Number(mail.toFixed(1)) };
    });
    expect(figures.sockets.reconnectsOver5s).toBe(0);
    expect(Object.keys(figures.pages.statuses)).toEqual(['200']);
    expect(takeover).toBeLessThan(30);
    await c.startNode(victim);
  });

  it('drill 2: SIGKILL an engine node under traffic; its jobs are taken over, every workflow action happens once', async () => {
    await underTraffic(
      'engine-kill',
      { mails: 200, mailRate: 8, chats: 40, chatRate: 2 },
      async () => {
        await sleep(8_000);
        const active = await c.query<{ n: number }>(`select count(*)::int as n from pgboss.job where state = 'active'`);
        await c.killNode('engine-1');
        return { killed: 'engine-1', jobsActiveAtKill: active[0].n };
      },
      // A killed engine's jobs come back when they expire (60 s for events) and maintenance (every 30 s) retries them.
      { drainS: 150 },
    );
    await c.startNode('engine-1');
  });

  it('drill 3: a rolling restart of every node under traffic fails no request the proxy could not retry', async () => {
    const { figures } = await underTraffic('rolling', { mails: 250, mailRate: 5, chats: 50, chatRate: 1 }, async () => {
      const took: Record<string, number> = {};
      for (const n of [...c.webNodes(), ...c.engineNodes()]) {
        const t0 = Date.now();
        await c.restartNode(n.name);
        took[n.name] = Number(((Date.now() - t0) / 1000).toFixed(1));
      }
      return { restartedS: took };
    });
    expect(Object.keys(figures.pages.statuses)).toEqual(['200']);
  });

  it('drill 4: PostgreSQL stops for 60 s under traffic; 503 with Retry-After, SMTP 451, everything resumes within 10 s', async () => {
    const node = c.webNodes()[1];
    await underTraffic('database-stop', { mails: 200, mailRate: 4, chats: 30, chatRate: 0.5 }, async () => {
      await sleep(5_000);
      c.stopServer('primary');
      const statuses = new Map<number, number>();
      let withoutRetryAfter = 0;
      const t0 = Date.now();
      while (Date.now() - t0 < 60_000) {
        for (const url of [`http://127.0.0.1:${node.port}/signin`, `${c.proxyUrl}/signin`]) {
          const res = await get(url);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 503 && !res.headers['retry-after']) withoutRetryAfter++;
        }
        await sleep(500);
      }
      const smtp451 = await smtpAnswer(c.ports.proxySmtp);
      c.startServer('primary');
      const startedAt = new Date();
      const ready = await nodeReadySeconds(30);
      // The IMAP lease held again and a mail read through it.
      const imapBack = await secondsUntil(30, async () => (await imapHolder()) !== null && imap.connections() === 1);
      const imapMail = await imapMailSeconds(15);
      // The engines resumed: a workflow acted after the database came back.
      const engine = await secondsUntil(30, async () => {
        const rows = await c.query<{ n: number }>(`select count(*)::int as n from automation_run_log where created_at > '${startedAt.toISOString()}'`);
        return rows[0].n > 0;
      });
      expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).toEqual([]);
      expect(withoutRetryAfter).toBe(0);
      expect(smtp451).toMatch(/^4/);
      expect(ready).toBeLessThan(10);
      expect(engine).toBeLessThan(10);
      expect(imapBack + ready).toBeLessThan(10);
      return { answersWhileDown: Object.fromEntries(statuses), smtpWhileDown: smtp451.trim(), webReadyS: Number(ready.toFixed(1)), engineActingS: Number(engine.toFixed(1)), imapLeaseHeldS: Number((ready + imapBack).toFixed(1)), imapMailAfterS: Number(imapMail.toFixed(1)) };
    });
  });

  it('drill 5: kill the primary and promote the standby under traffic; Parley reaches it within 30 s, no acknowledged write lost', async () => {
    await underTraffic('failover', { mails: 150, mailRate: 6, chats: 30, chatRate: 1 }, async () => {
      await sleep(6_000);
      c.killServer('primary');
      c.promoteStandby();
      const seconds = await nodeReadySeconds(30);
      return { webReadyOnNewPrimaryS: Number(seconds.toFixed(1)) };
    });
    expect((await get(`${c.proxyUrl}/signin`)).status).toBe(200);
  });
});

/** What the proxy's SMTP port answers to a RCPT while the database is away (the first digit: 4 means "try later"). */
async function smtpAnswer(port: number): Promise<string> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const steps = ['EHLO drills.test', 'MAIL FROM:<probe@example.test>', `RCPT TO:<${f.mailTo}>`, 'DATA'];
    let buffer = '';
    let last = '';
    socket.setTimeout(15_000, () => {
      socket.destroy();
      resolve(last || 'timeout');
    });
    socket.on('data', (d) => {
      buffer += d.toString();
      const lines = buffer.split('\r\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (/^\d{3} /.test(line)) {
          last = line;
          if (/^[45]/.test(line)) {
            socket.end('QUIT\r\n');
            resolve(line);
            return;
          }
          const next = steps.shift();
          if (next) socket.write(`${next}\r\n`);
          else {
            socket.end('QUIT\r\n');
            resolve(line);
          }
        }
      }
    });
    socket.on('error', (err) => resolve(`error ${err.message}`));
  });
}
