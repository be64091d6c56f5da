import PgBoss from 'pg-boss';
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
// pg-boss builds parameters for the `pg` driver; pg's own serialiser turns them into text postgres.js can send.
import pgUtils from 'pg/lib/utils.js';
import { resetSingleton, singleton } from './singleton.server';
import type postgres from 'postgres';
import { getJobsSql, heldConnection, poolUse, rawClientOf, timedStatement, type Tx } from '../../db/client';
import { currentRequestId } from './correlation.server';
import { getConfig } from './env.server';

/** How long a backup may run before it counts as dead with its process (ADR 151). */
export const BACKUP_MAX_HOURS = 6;

/** Queue names, dotted by area. Each is created with retries, backoff and a dead-letter queue. */
export const QUEUES = {
  domainEvents: 'engine.domain-events',
  deadLetters: 'engine.dead-letters',
  /** Sends an outgoing message through its inbox's channel (email, SMS...). */
  channelDeliver: 'channel.deliver',
  /** Timers: reopens a snoozed conversation at its time. */
  snoozeWake: 'inbox.snooze-wake',
  /** Runs one uploaded contact import (CSV or Excel) in batches. */
  contactImport: 'crm.contact-import',
  /** Timers: resolves an SMS conversation after its inbox's auto-resolve days without a message. */
  channelAutoResolve: 'channel.auto-resolve',
  /** Timers: checks a conversation's SLA target at its due time. */
  slaBreachCheck: 'sla.breach-check',
  /** Timers: a web-chat reply whose visitor left goes by email after a short wait, unless they came back (ADR 033). */
  chatEmail: 'channel.chat-email',
  /** Timers: one email per user and conversation with what happened in the last minutes (ADR 034). */
  notificationEmail: 'notifications.email',
  /** Timers: tells the assignee a little before an SLA due time that it is near (ADR 034). */
  slaWarning: 'sla.warning',
  /** Sends one notification to the browsers its agent subscribed to desktop notifications (ADR 155). */
  notificationPush: 'notifications.push',
  /** Runs one knowledge-base import from another help centre's address (ADR 059). */
  kbImport: 'kb.import',
  /** Sends a campaign's frozen recipients a slice at a time, then queues itself again (ADR 064). */
  campaignSend: 'campaigns.send',
  /** Timers: a meeting reminder at its exact time before the booking (ADR 072). */
  meetingReminder: 'meetings.reminder',
  /** Timers: reads one external review source (Google, Trustpilot) and schedules its next read (ADR 068). */
  reviewsImport: 'reviews.import',
  /** Timers: one occurrence of an email survey's schedule, at its exact time (ADR 062). */
  surveyEmailOccurrence: 'survey.email-occurrence',
  /** Sends one occurrence of an email survey to its recipients, each claimed once (ADR 062). */
  surveyEmailSend: 'survey.email-send',
  /** One attempt of an outgoing webhook delivery; the next attempt is queued by the handler itself (ADR 077). */
  webhookDeliver: 'webhooks.deliver',
  /** Reads a store's past orders page by page and records them as sales (ADR 118). */
  integrationsOrderImport: 'integrations.order-import',
  /** Scheduled: registers the webhooks existing store connections are missing (ADR 118). */
  integrationsWebhookCheck: 'integrations.webhook-check',
  analyticsRollup: 'analytics.rollup',
  /** Scheduled (PARLEY_BACKUP_SCHEDULE): a backup of the whole installation, then the retention (ADR 151). */
  backupRun: 'operations.backup',
  /** Writes one account export's archive (ADR 153). */
  accountExport: 'operations.account-export',
  /** Scheduled: deletes the archives of account exports that expired or were downloaded (ADR 153). */
  accountExportCleanup: 'operations.account-export-cleanup',
} as const;

/**
 * Enqueuers NOTIFY this channel (delivered on commit) so that an idle engine, which does not poll (ADR 142), hears of
 * the job: the queue's name for a job to work now (its workers fetch at once), `queue@epochMs` for a job that becomes
 * due later (the engine's timer sleeps no later than that).
 */
export const JOBS_CHANNEL = 'parley_jobs';

/** The payload of a JOBS_CHANNEL notice: `at` (epoch ms) for a job that becomes due later. */
export function jobsNotice(queue: string, at?: number) {
  return at === undefined ? queue : `${queue}@${Math.round(at)}`;
}

/** Reads a JOBS_CHANNEL payload (a bare queue name from an older node means "now"). */
export function parseJobsNotice(payload: string): { queue: string; at?: number } {
  const sep = payload.lastIndexOf('@');
  const at = sep > 0 ? Number(payload.slice(sep + 1)) : NaN;
  return Number.isFinite(at) ? { queue: payload.slice(0, sep), at } : { queue: payload };
}

/** Queues whose jobs the engine works (everything but the dead letters). */
export const WORK_QUEUES = [
  QUEUES.domainEvents,
  QUEUES.channelDeliver,
  QUEUES.snoozeWake,
  QUEUES.contactImport,
  QUEUES.channelAutoResolve,
  QUEUES.slaBreachCheck,
  QUEUES.chatEmail,
  QUEUES.notificationEmail,
  QUEUES.slaWarning,
  QUEUES.notificationPush,
  QUEUES.kbImport,
  QUEUES.campaignSend,
  QUEUES.meetingReminder,
  QUEUES.reviewsImport,
  QUEUES.surveyEmailOccurrence,
  QUEUES.surveyEmailSend,
  QUEUES.webhookDeliver,
  QUEUES.integrationsOrderImport,
  QUEUES.integrationsWebhookCheck,
  QUEUES.analyticsRollup,
  QUEUES.backupRun,
  QUEUES.accountExport,
  QUEUES.accountExportCleanup,
] as const;

export function getBoss() {
  return singleton('boss', () => {
    // pg-boss runs its SQL on Parley's own postgres.js connections, which follow a failover (ADR 143).
    const boss = new PgBoss({
      db: poolExecutor(getJobsSql()),
      // pg-boss's own timers (ADR 142) run only where an engine runs: a web node with PARLEY_ENGINE=off has none.
      // Maintenance expires the jobs of a killed engine (see EXPIRE_SECONDS) into retries, archives and drops old
      // jobs; each run scans pgboss.job, so every 30 s (the engine that runs it then reads when the retries are due).
      supervise: timersRunHere(),
      maintenanceIntervalSeconds: 30,
      // Cron (the schedules of ensureQueues): a check every 30 s (pg-boss's default) queues a schedule's job, which
      // pg-boss's own worker then inserts; it polls every 15 s instead of 5 (minutes-apart schedules need no more).
      schedule: timersRunHere(),
      cronWorkerIntervalSeconds: 15,
    });
    boss.on('error', (err) => reportBossError(err));
    return boss;
  });
}

/**
 * pg-boss reports every failed poll: while Parley stops (the database going away under it is expected) those
 * are dropped, and otherwise one line per distinct message a minute, not a stack trace per poll (no error storm).
 */
const jobsState = singleton('jobs-errors', () => ({ stopping: false, lastSeen: new Map<string, number>(), engineHere: false }));
export function markJobsStopping() {
  jobsState.stopping = true;
}

/** An engine runs in this process (`npm run engine` sets it before starting pg-boss, whatever PARLEY_ENGINE says). */
export function markEngineProcess() {
  jobsState.engineHere = true;
}

/** Whether pg-boss's maintenance and cron run in this process: where an engine runs (inline by default, or marked). */
function timersRunHere() {
  return jobsState.engineHere || process.env.PARLEY_ENGINE !== 'off';
}
function reportBossError(err: Error) {
  if (jobsState.stopping) return;
  const now = Date.now();
  const key = err.message;
  if ((jobsState.lastSeen.get(key) ?? 0) > now - 60_000) return;
  jobsState.lastSeen.set(key, now);
  console.error(`pg-boss error: ${err.message}`);
}

/** Starts pg-boss once (installing its schema) and declares Parley's queues. */
export function startBoss(): Promise<PgBoss> {
  const state = singleton('boss-state', () => ({ started: undefined as Promise<PgBoss> | undefined }));
  state.started ??= (async () => {
    jobsState.stopping = false;
    const boss = getBoss();
    try {
      await boss.start();
      await ensureQueues(boss);
      return boss;
    } catch (err) {
      // The database away at start (ADR 143): the next call starts a new instance instead of this failure forever.
      state.started = undefined;
      resetSingleton('boss');
      await boss.stop({ graceful: false, wait: false }).catch(() => {});
      throw err;
    }
  })();
  return state.started;
}

/**
 * How long a fetched job may stay active before pg-boss counts it failed and retries it: this is what recovers
 * the jobs of an engine killed mid-batch. Short for quick jobs, long for imports.
 */
const EXPIRE_SECONDS: Partial<Record<(typeof WORK_QUEUES)[number], number>> = {
  [QUEUES.domainEvents]: 60,
  [QUEUES.snoozeWake]: 60,
  [QUEUES.slaBreachCheck]: 60,
  [QUEUES.contactImport]: 60 * 60,
  [QUEUES.kbImport]: 60 * 60,
  [QUEUES.campaignSend]: 120,
  [QUEUES.reviewsImport]: 10 * 60,
  [QUEUES.surveyEmailOccurrence]: 60,
  // A send of 100,000 mails takes minutes; a killed engine's send comes back after this (its claimed rows are kept).
  [QUEUES.surveyEmailSend]: 60,
  [QUEUES.webhookDeliver]: 60,
  // A few browsers, 15 s each at worst.
  [QUEUES.notificationPush]: 120,
  [QUEUES.integrationsOrderImport]: 60 * 60,
  // A backup of a large installation takes long; one whose engine died is recorded as interrupted by the next run.
  [QUEUES.backupRun]: BACKUP_MAX_HOURS * 60 * 60,
  // A large account's archive takes a while; a killed engine's export is claimed again after this (ADR 153).
  [QUEUES.accountExport]: 2 * 60 * 60,
};

const SHORT_POLICY_QUEUES = new Set<string>([QUEUES.notificationEmail, QUEUES.reviewsImport]);

export async function ensureQueues(boss: PgBoss) {
  await boss.createQueue(QUEUES.deadLetters, {
    name: QUEUES.deadLetters,
    retentionDays: 30,
  } as PgBoss.Queue);
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  for (const name of WORK_QUEUES) {
    const policy = {
      name,
      // One waiting job per key (ADR 034: the notification email of a user and conversation gathers what follows).
      ...(SHORT_POLICY_QUEUES.has(name) ? { policy: 'short' } : {}),
      retryLimit: 6,
      retryDelay: 2,
      retryBackoff: true,
      deadLetter: QUEUES.deadLetters,
      expireInSeconds: EXPIRE_SECONDS[name] ?? 300,
    };
    if (existing.has(name)) await boss.updateQueue(name, policy as PgBoss.Queue);
    else await boss.createQueue(name, policy as PgBoss.Queue);
  }
  // Store connections get the webhooks they are missing (ADR 118): every hour, and once soon after a start.
  await boss.schedule(QUEUES.integrationsWebhookCheck, '41 * * * *');
  const soon = await boss.send(QUEUES.integrationsWebhookCheck, {}, { singletonKey: 'start', singletonSeconds: 600, startAfter: 30 });
  if (soon) await boss.getDb().executeSql('select pg_notify($1, $2)', [JOBS_CHANNEL, jobsNotice(QUEUES.integrationsWebhookCheck, Date.now() + 30_000)]);
  // The analytics day roll-up (ADR 125): every 5 minutes; a run after downtime catches every missed day up.
  await boss.schedule(QUEUES.analyticsRollup, '*/5 * * * *');
  // Backups of the whole installation (ADR 151): pg-boss's cron queues one job per tick for the whole cluster.
  const backupSchedule = getConfig().backup.schedule;
  if (backupSchedule) await boss.schedule(QUEUES.backupRun, backupSchedule, {}, { tz: 'UTC' });
  else await boss.unschedule(QUEUES.backupRun);
  // Account export archives past their expiry, or downloaded but not yet removed, are deleted (ADR 153).
  await boss.schedule(QUEUES.accountExportCleanup, '17 * * * *');
}

export async function stopBoss() {
  const state = singleton('boss-state', () => ({ started: undefined as Promise<PgBoss> | undefined }));
  if (!state.started) return;
  markJobsStopping();
  const boss = await state.started;
  await boss.stop({ graceful: true, wait: true, timeout: 15_000 });
  state.started = undefined;
  resetSingleton('boss');
}

/**
 * The `insert into pgboss.job` of one engine job per row of `events` (a query returning `id, type` of domain
 * events), for a statement that writes the events itself (a CTE, ADR 123): what `boss.send(QUEUES.domainEvents,
 * { eventId, type })` inserts, without its own round trip. It mirrors pg-boss 10's insertJob for a job with no
 * options of its own on a queue that has its settings (ensureQueues sets them); tests/integration/forms-submit.test.ts
 * compares the row with one boss.send makes. The caller NOTIFYs JOBS_CHANNEL when a job was inserted.
 */
export function domainEventJobInsert(events: SQL) {
  const requestId = currentRequestId();
  const data = requestId ? sql`jsonb_build_object('eventId', e.id, 'type', e.type, 'requestId', ${requestId}::text)` : sql`jsonb_build_object('eventId', e.id, 'type', e.type)`;
  return sql`insert into pgboss.job (id, name, data, priority, start_after, singleton_key, singleton_on, dead_letter, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy)
    select gen_random_uuid(), q.name, ${data}, 0, now(), null, null, q.dead_letter,
           case when q.expire_seconds is not null then q.expire_seconds * interval '1s' else interval '15 minutes' end,
           now() + cast(coalesce((q.retention_minutes * 60)::text, '14 days') as interval),
           coalesce(q.retry_limit, 2),
           case when coalesce(q.retry_backoff, false) then greatest(q.retry_delay, 1) else coalesce(q.retry_delay, 0) end,
           coalesce(q.retry_backoff, false), q.policy
      from (${events}) e join pgboss.queue q on q.name = ${QUEUES.domainEvents}
    on conflict do nothing
    returning id`;
}

/**
 * A job's data with the correlation id of the request or job that queues it (ADR 150): the engine works the job under
 * the same id, so its log lines are found with the request's. Data that names its own `requestId` keeps it.
 */
function withRequestId(data: object): object {
  const requestId = currentRequestId();
  return requestId && !('requestId' in data) ? { ...data, requestId } : data;
}

/** Enqueues a job inside the caller's transaction, so the job exists if and only if the change committed. */
export async function enqueueInTx(tx: Tx, queue: string, data: object, options: { startAfter?: Date; singletonKey?: string } = {}) {
  const boss = await startBoss();
  const db = txExecutor(tx);
  const id = await boss.send(queue, withRequestId(data), { ...options, db } as PgBoss.SendOptions);
  if (!id) throw new Error(`queue ${queue} does not exist`);
  await notifyOnce(tx, queue, options.startAfter);
  return id;
}

/**
 * Enqueues a keyed job inside the caller's transaction unless one of that key is already waiting (a `short`
 * policy queue answers null then): the waiting job will do the work. Returns the new job's id or null.
 */
export async function enqueueOnceInTx(tx: Tx, queue: string, data: object, options: { startAfter?: Date; singletonKey: string }) {
  const boss = await startBoss();
  const id = await boss.send(queue, withRequestId(data), { ...options, db: txExecutor(tx) } as PgBoss.SendOptions);
  if (id) await notifyOnce(tx, queue, options.startAfter);
  return id;
}

/** Per transaction: the queues told of a job to work now, and per queue the earliest due time told of a later one. */
const notified = new WeakMap<Tx, { now: Set<string>; later: Map<string, number> }>();

/**
 * The NOTIFY that wakes an idle engine (ADR 142): once per queue and transaction for jobs to work now (PostgreSQL would
 * fold the repeats anyway; this saves the round trips), and for a delayed job its due time, unless the transaction
 * already told an earlier one of that queue (the engine's timer reads every due time once it wakes).
 */
async function notifyOnce(tx: Tx, queue: string, startAfter?: Date) {
  let told = notified.get(tx);
  if (!told) notified.set(tx, (told = { now: new Set(), later: new Map() }));
  const at = startAfter && startAfter.getTime() > Date.now() ? startAfter.getTime() : undefined;
  if (at === undefined) {
    if (told.now.has(queue)) return;
    told.now.add(queue);
  } else {
    if ((told.later.get(queue) ?? Infinity) <= at) return;
    told.later.set(queue, at);
  }
  await txExecutor(tx).executeSql('select pg_notify($1, $2)', [JOBS_CHANNEL, jobsNotice(queue, at)]);
}

/**
 * pg-boss's `db` option over a postgres.js pool: pg's parameters serialised by pg's own rules, as for a transaction.
 * pg-boss sends some work as one text that opens and commits its own transaction (`BEGIN; … COMMIT;`): that text runs
 * on a connection reserved for it, as postgres.js requires of a pool.
 */
function poolExecutor(client: postgres.Sql) {
  // Timed and counted into the 'jobs' pool's metrics like drizzle's statements into 'app' (ADR 150).
  const use = poolUse('jobs');
  return {
    executeSql: async (text: string, values: unknown[] = []) => {
      const params = values.map(toParam) as never[];
      if (!OPENS_TRANSACTION.test(text)) return { rows: await timedStatement(client.unsafe(text, params), use, true) };
      return heldConnection(use, async () => {
        const reserved = await client.reserve();
        try {
          return { rows: await timedStatement(reserved.unsafe(text, params), use, false) };
        } finally {
          reserved.release();
        }
      });
    },
  };
}
const OPENS_TRANSACTION = /^\s*BEGIN\b/im;

/**
 * One of pg-boss's parameters for postgres.js: serialised by pg's own rules (arrays, objects, dates), except booleans,
 * which stay booleans: postgres.js's boolean serialiser reads only `true` (pg's text "true" became false, and with it
 * every queue's retryBackoff).
 */
const toParam = (v: unknown) => (typeof v === 'boolean' ? v : pgUtils.prepareValue(v));

/** pg-boss's `db` option over the caller's drizzle transaction (its connection is already its own). */
function txExecutor(tx: Tx) {
  const client = rawClientOf(tx);
  return { executeSql: async (text: string, values: unknown[] = []) => ({ rows: await client.unsafe(text, values.map(toParam) as never[]) }) };
}

/** Enqueues many jobs of one queue with a single statement, inside the caller's transaction (bulk writers such as imports). */
export async function enqueueManyInTx(tx: Tx, queue: string, datas: object[]) {
  if (datas.length === 0) return;
  const boss = await startBoss();
  await boss.insert(
    datas.map((data) => ({ name: queue, data: withRequestId(data) })),
    { db: txExecutor(tx) } as PgBoss.InsertOptions,
  );
  await notifyOnce(tx, queue);
}

/**
 * Which runs of a long import job may be claimed: a queued one, or a running one whose worker died (its job expired
 * after an hour). The job's claim is one UPDATE … WHERE this … RETURNING, so a second worker or a retry finds nothing.
 */
export function claimableRun(t: { status: AnyColumn; createdAt: AnyColumn }) {
  return sql`(${t.status} = 'queued' or (${t.status} = 'running' and ${t.createdAt} < now() - interval '1 hour'))`;
}
