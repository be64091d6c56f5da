/**
 * Issue 16's email campaign targets: a campaign to a dynamic segment of 100,000 contacts into a local SMTP sink.
 * The sink is bench/fast-sink.ts (a minimal pipelining SMTP server on `net`, BENCH_SINK_WORKERS processes on one
 * port, 2 by default), far above the target. Prints the sink's own ceiling (a raw pipelining client → sink, same run), the audience freeze time, the
 * sustained send rate, the engine's memory over the send, and, after a SIGKILL of the engine half-way and a
 * restart, how many emails the sink got in all and how many recipients got more than one.
 * Run: npm run bench:campaigns   (BENCH_CONTACTS=20000 for a quick run; BENCH_NO_KILL=1 to skip the crash)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fastCeiling, startFastSink } from './fast-sink';
import { bulkStatsFile, windowReport } from './smtp-sink';
import { benchDatabase } from './support';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
/**
 * Lanes (concurrent sends, one SMTP connection each) of a campaign: PARLEY_CAMPAIGN_SEND_LANES, 8 in production by
 * default (ADR 084 addendum 3; the campaign sender never read PARLEY_BULK_SMTP_CONNECTIONS, which is the surveys').
 */
const LANES = process.env.PARLEY_CAMPAIGN_SEND_LANES ?? '8';
const statsFile = bulkStatsFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number) {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** CPU milliseconds (user + system) a process has used so far. */
function cpuMs(pid: number) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function startEngine(smtpUrl: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts'], {
    env: { ...process.env, PARLEY_CAMPAIGN_SEND_LANES: LANES, PARLEY_BULK_STATS_FILE: statsFile, SMTP_URL: smtpUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function main() {
  console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${LANES} campaign lanes (PARLEY_CAMPAIGN_SEND_LANES)`);
  const server = await benchDatabase('campaigns');
  const sink = await startFastSink({ workers: Number(process.env.BENCH_SINK_WORKERS ?? 2) });
  const smtpUrl = sink.url;

  // The ceiling: prepared bytes of the same size from a raw pipelining client (8 connections) into the sink, this run.
  const rawCeiling = await fastCeiling(sink, 20_000);
  console.log(`SMTP sink ceiling (its own raw throughput, ${sink.workers} processes, 8 pipelining connections, 20,000 mails, same run): ${rawCeiling.toFixed(0)} emails/s`);

  const { and, eq, sql } = await import('drizzle-orm');
  const { closeDb, getDb, schema } = await import('../db/client');
  const { startBoss, stopBoss } = await import('../app/utils/jobs.server');
  const { createTestAccount } = await import('../tests/factories');
  const { createEmailInbox } = await import('../app/models/email/email-inboxes.server');
  const { createSegment } = await import('../app/models/crm/segments.server');
  const { createEmailCampaign, scheduleCampaign } = await import('../app/models/campaigns/campaigns.server');
  const db = getDb();
  await startBoss();
  const { account, owner } = await createTestAccount({ domain: 'benchcampaign' });
  const who = { accountId: account.id, actorId: owner.id };
  const inbox = await createEmailInbox({ ...who, name: 'News', email: 'news@bench-campaign.test', mode: 'forwarding' });
  await db.execute(sql`
    insert into contacts (account_id, first_name, last_name, email, country)
    select ${account.id}, 'First' || g, 'Last' || g, 'person' || g || '@example.test', case when g % 10 = 0 then 'DE' else 'FR' end
    from generate_series(1, ${Math.round(CONTACTS / 0.9)}) g`);
  await db.execute(sql`analyze contacts`);
  const segment = await createSegment({ ...who, kind: 'contact', name: 'France', isStatic: false, conditions: { country: 'FR' }, memberIds: [] });
  const campaign = await createEmailCampaign({
    ...who,
    name: 'Bench news',
    segmentId: segment.id,
    inboxId: inbox.id,
    subject: 'News for {{firstName}}',
    bodyHtml: `<p>Hello {{firstName}} {{lastName}},</p>${'<p>This is the monthly news, with <a href="https://example.com/a">a link</a>.</p>'.repeat(10)}`,
    trackOpens: true,
    trackClicks: true,
  });
  const audience = Number(
    (await db.execute<{ n: number }>(sql`select count(*)::int as n from contacts where account_id = ${account.id} and country = 'FR'`))[0].n,
  );
  console.log(`${audience} contacts in the dynamic segment`);

  const read = async () => (await db.select().from(schema.campaigns).where(and(eq(schema.campaigns.accountId, account.id), eq(schema.campaigns.id, campaign.id))))[0];
  let engine = startEngine(smtpUrl);
  await sleep(3000);
  const t0 = Date.now();
  await scheduleCampaign({ ...who, id: campaign.id });
  let row = await read();
  while (!row.startedAt || row.recipientCount === 0) {
    await sleep(50);
    row = await read();
  }
  const frozenMs = row.startedAt.getTime() - t0 + 0;
  const frozenSeen = Date.now() - t0;
  console.log(`audience frozen: ${row.recipientCount} recipients, seen ${(frozenSeen / 1000).toFixed(1)} s after "send now" (target < 10 s)`);
  void frozenMs;

  const rss: number[] = [];
  const sendStart = Date.now();
  const startTotal = sink.total();
  const kill = !process.env.BENCH_NO_KILL;
  let killedAt = 0;
  let killRate = 0;
  let killTime = 0;
  let engineCpu = 0;
  const cpuAtStart = cpuMs(engine.pid!);
  for (;;) {
    await sleep(1000);
    rss.push(rssMb(engine.pid!));
    if (kill && !killedAt && sink.total() >= audience / 2) {
      engineCpu += cpuMs(engine.pid!) - cpuAtStart;
      engine.kill('SIGKILL');
      killTime = Date.now();
      await new Promise((r) => engine.once('exit', r));
      killedAt = sink.total();
      const rate = ((killedAt - startTotal) * 1000) / (Date.now() - sendStart);
      killRate = rate;
      console.log(`SIGKILL at ${killedAt} emails, after ${((Date.now() - sendStart) / 1000).toFixed(1)} s: ${rate.toFixed(0)} emails/s sustained until then`);
      engine = startEngine(smtpUrl);
      console.log('engine restarted (the killed job comes back after its 120 s expiry; claims older than 2 minutes are taken again)');
    }
    row = await read();
    if (row.status === 'sent') break;
  }
  const seconds = (Date.now() - sendStart) / 1000;
  let duplicates = 0;
  for (const n of sink.ids.values()) if (n > 1) duplicates += n - 1;
  console.log(
    `done in ${seconds.toFixed(1)} s${kill ? ' (including the restart wait)' : ` → ${(sink.total() / seconds).toFixed(0)} emails/s`}: sink got ${sink.total()} emails, ${sink.ids.size} distinct recipients, ${duplicates} duplicates, ${audience - sink.ids.size} never received (target exactly ${audience})`,
  );
  // Each repeat's history: when its copies arrived against the kill, and its row now (which sender, what state).
  for (const { id, at } of sink.repeats()) {
    const recipientId = Number(/^<campaign\.\d+\.(\d+)\./.exec(id)?.[1] ?? 0);
    const [rec] = await db.execute(sql`select status, claimed_at, sent_at from campaign_recipients where account_id = ${account.id} and id = ${recipientId}`);
    console.log(
      `  twice: ${id} arrived at ${at.map((t) => `${((t - killTime) / 1000).toFixed(2)} s`).join(', ')} from the kill; row now ${JSON.stringify(rec)}`,
    );
  }
  console.log(windowReport(statsFile));
  engineCpu += cpuMs(engine.pid!) - (killedAt ? 0 : cpuAtStart);
  console.log(
    `engine CPU over the send: ${(engineCpu / 1000).toFixed(1)} s, ${(engineCpu / Math.max(1, sink.total())).toFixed(2)} ms a mail (rate cap PARLEY_CAMPAIGN_EMAILS_PER_SECOND=${process.env.PARLEY_CAMPAIGN_EMAILS_PER_SECOND ?? 1000})`,
  );
  console.log(`engine RSS during the send (MB, every ~10 s): ${rss.filter((_, i) => i % 10 === 0).join(' ')}`);
  console.log(`SMTP sink ceiling in this run: ${rawCeiling.toFixed(0)} emails/s (raw pipelining client)`);
  if (killedAt) console.log(`sustained send rate before the kill: ${killRate.toFixed(0)} emails/s against the sink's ${rawCeiling.toFixed(0)} emails/s`);
  console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  engine.kill('SIGTERM');
  await new Promise((r) => engine.once('exit', r));
  await sink.close();
  await stopBoss();
  fs.rmSync(statsFile, { force: true });
  await closeDb();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
