/**
 * Email surveys at scale (issue 15). Targets:
 *   - a survey to 100,000 recipients (contacts with a tag) into a local SMTP sink: the send starts within 5 s of its
 *     scheduled time, sustains >= 200 emails/s, the engine's memory does not grow with the list;
 *   - the engine killed with SIGKILL half way and started again: 100,000 distinct recipients mailed, none twice;
 *   - a scheduled time in a zone across a DST change gives the right instant (checked by the integration test; here
 *     the start latency of a real timer job is measured).
 * Run: npx tsx bench/survey-email.ts   (BENCH_RECIPIENTS=20000 for a quicker run)
 */
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { bulkStatsFile, startSink, sinkCeiling, windowReport } from './smtp-sink';
import { benchDatabase } from './support';

const N = Number(process.env.BENCH_RECIPIENTS ?? 100_000);
const statsFile = bulkStatsFile();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number) {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function main() {
  console.log(`load at the start: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  const server = await benchDatabase('surveyemail');
  const sink = await startSink();
  const smtpUrl = sink.url;
  const ceiling = await sinkCeiling(sink);
  const rawCeiling = await sinkCeiling(sink, 5000, true);
  console.log(`SMTP sink ceiling with prepared bytes (the sink's own limit, same run): ${rawCeiling.toFixed(0)} mails/s`);
  console.log(`SMTP sink ceiling (nodemailer pool of 8 → sink, 5000 mails, same run): ${ceiling.toFixed(0)} mails/s`);
  const ids = sink.ids;

  const { sql } = await import('drizzle-orm');
  const { getDb, closeDb } = await import('../db/client');
  const { startBoss, stopBoss } = await import('../app/utils/jobs.server');
  const { createTestAccount } = await import('../tests/factories');
  const { createTag } = await import('../app/models/productivity/tags.server');
  const { publishedSurvey } = await import('../tests/helpers/surveys');
  const { updateSurvey, publishSurvey } = await import('../app/models/surveys/surveys.server');
  const { saveEmailSchedule } = await import('../app/models/surveys/email-surveys.server');
  const db = getDb();
  await startBoss();

  const a = await createTestAccount({ domain: 'benchsurveyemail' });
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const tag = await createTag({ ...who, name: 'Customers', color: 'green' as never });
  const t0 = Date.now();
  await db.execute(sql`insert into contacts (account_id, first_name, email)
    select ${a.account.id}, 'Person ' || g, 'person' || g || '@bench.test' from generate_series(1, ${N}) g`);
  await db.execute(sql`insert into contact_tags (account_id, contact_id, tag_id) select account_id, id, ${tag.id} from contacts where account_id = ${a.account.id}`);
  console.log(`${N} tagged contacts made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const made = await publishedSurvey({ ...who, channel: 'email', subType: 'nps', types: ['text'], target: { tagIds: [tag.id] }, publish: false });
  await updateSurvey({ ...who, id: made.survey.id, patch: { design: { ...made.survey.design, sendFrom: 'survey@bench.test' } }, step: 'design' });
  // Scheduled 20 s ahead in Paris time, to the minute's second as the form gives it (HH:mm): the next whole minute at least 20 s away.
  const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const paris = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  await db.transaction((tx) =>
    saveEmailSchedule(tx, {
      accountId: a.account.id,
      surveyId: made.survey.id,
      schedule: { sendLater: true, sendAt: paris.replace(' ', 'T'), timezone: 'Europe/Paris', recurring: false, intervalDays: null },
    }),
  );
  await publishSurvey({ ...who, id: made.survey.id });
  await stopBoss();
  console.log(`scheduled for ${at.toISOString()} (${paris} Europe/Paris)`);

  const env = { ...process.env, PARLEY_BULK_STATS_FILE: statsFile, SMTP_URL: smtpUrl, LOG_LEVEL: 'warn', PARLEY_SURVEY_EMAIL_RATE: process.env.PARLEY_SURVEY_EMAIL_RATE ?? '2000' };
  const start = (): ChildProcess => spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  let engine = start();
  const rss: number[] = [];
  const sampler = setInterval(() => engine.pid && rss.push(rssMb(engine.pid)), 1000);

  while (sink.total() < N / 2) await sleep(50);
  const startLatency = (sink.firstAt() - at.getTime()) / 1000;
  const firstHalfSeconds = (Date.now() - sink.firstAt()) / 1000;
  const firstHalf = sink.total();
  engine.kill('SIGKILL');
  await new Promise((r) => engine.once('exit', r));
  const killedAt = Date.now();
  const atKill = sink.total();
  console.log(`SIGKILL after ${atKill} mails`);
  engine = start();
  const resumeAfter = Date.now();
  let resumedAt = 0;
  let last = sink.total();
  let still = 0;
  for (;;) {
    await sleep(500);
    if (!resumedAt && sink.total() > atKill) resumedAt = Date.now();
    const [{ waiting }] = await db.execute<{ waiting: number }>(
      sql`select count(*)::int as waiting from survey_email_recipients where survey_id = ${made.survey.id} and status in ('queued', 'sending')`,
    );
    const [{ rows }] = await db.execute<{ rows: number }>(sql`select count(*)::int as rows from survey_email_recipients where survey_id = ${made.survey.id}`);
    if (rows === N && waiting === 0) break;
    if (sink.total() === last) still++;
    else still = 0;
    last = sink.total();
    if (still > 600) throw new Error(`stalled at ${sink.total()} mails, ${waiting} waiting`);
  }
  const resumedSeconds = (Date.now() - resumedAt) / 1000;
  const secondHalf = sink.total() - atKill;
  clearInterval(sampler);
  engine.kill('SIGTERM');
  await new Promise((r) => engine.once('exit', r));
  const twice = [...ids.values()].filter((n) => n > 1).length;
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log('');
  console.log(`recipients: ${N}; load average at the end ${load}`);
  console.log(`start latency after the scheduled time: ${startLatency.toFixed(2)} s (target < 5 s)`);
  console.log(`rate before the kill: ${(firstHalf / firstHalfSeconds).toFixed(0)} mails/s (target >= 200)`);
  console.log(`rate after the restart: ${(secondHalf / resumedSeconds).toFixed(0)} mails/s; the restart waited ${((resumedAt - resumeAfter) / 1000).toFixed(1)} s for the killed job to expire (${((resumedAt - killedAt) / 1000).toFixed(1)} s from the kill)`);
  console.log(`SMTP sink ceiling in this run: ${ceiling.toFixed(0)} mails/s composed by nodemailer, ${rawCeiling.toFixed(0)} mails/s prepared bytes`);
  console.log(`mails received: ${sink.total()}; distinct recipients (Message-IDs): ${ids.size}; mailed twice: ${twice} (target ${N} and 0)`);
  const early = rss.slice(2, 12);
  console.log(windowReport(statsFile));
  console.log(`engine RSS: first 10 s ${Math.max(...early).toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB over ${rss.length} samples`);
  await closeDb();
  await sink.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
