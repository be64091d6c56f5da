import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { singleton } from './singleton.server';

/**
 * The process's Prometheus metrics (ADR 150, docs/operations/metrics.md). One registry per process, on globalThis
 * (the Remix build and the server bundle each import this module): the web process, the engine process, or the web
 * with the engine inside each expose their own at /metrics, and a cluster's Prometheus scrapes every node.
 *
 * Labels are bounded sets only (a route pattern, a queue, a state): never an address, an id or an account.
 */

/** Reads, at scrape time, figures kept elsewhere (websocket clients, IMAP workers, queue depths). */
type Source<T> = () => T;

function create() {
  const register = new Registry();
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 20 });
  const imapSources = new Set<Source<Record<string, number>>>();
  let queueSource: Source<Promise<Array<{ queue: string; queued: number; active: number; retrying: number; failed: number }>>> | undefined;
  let lagSource: Source<Promise<{ oldestUnhandledSeconds: number | null }>> | undefined;
  const poolSources = new Map<string, Source<{ max: number; busy: number; waiting: number }>>();

  const m = {
    register,
    imapSources,
    poolSources,
    setQueueSources(queues: typeof queueSource, lag: typeof lagSource) {
      queueSource = queues;
      lagSource = lag;
    },
    info: new Gauge({ name: 'parley_process_info', help: 'Always 1; says what this process runs (web, engine, or web with the engine inside).', labelNames: ['role'], registers: [register] }),
    httpRequests: new Counter({
      name: 'parley_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status class.',
      labelNames: ['route', 'method', 'status'],
      registers: [register],
    }),
    httpDuration: new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'Time from a request reaching Express to its last byte handed to the socket, by route pattern, method and status class.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [register],
    }),
    dbStatement: new Histogram({
      name: 'parley_db_statement_duration_seconds',
      help: 'Time from a statement being issued to its result, waiting for a free connection included, by pool (app: drizzle; jobs: pg-boss).',
      labelNames: ['pool'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [register],
    }),
    dbErrors: new Counter({ name: 'parley_db_statement_errors_total', help: 'Statements that failed, by pool.', labelNames: ['pool'], registers: [register] }),
    dbPoolSize: new Gauge({
      name: 'parley_db_pool_max_connections',
      help: 'The most connections the pool may open (PARLEY_DB_POOL, PARLEY_JOBS_POOL).',
      labelNames: ['pool'],
      registers: [register],
      collect() {
        for (const [pool, read] of poolSources) this.set({ pool }, read().max);
      },
    }),
    dbPoolBusy: new Gauge({
      name: 'parley_db_pool_busy_connections',
      help: 'Connections the pool has in use now: open transactions and reservations, plus statements under way outside them (at most the maximum).',
      labelNames: ['pool'],
      registers: [register],
      collect() {
        for (const [pool, read] of poolSources) this.set({ pool }, read().busy);
      },
    }),
    dbPoolWaiting: new Gauge({
      name: 'parley_db_pool_waiting',
      help: 'Statements and transactions waiting for a connection of the pool now (demand beyond the maximum).',
      labelNames: ['pool'],
      registers: [register],
      collect() {
        for (const [pool, read] of poolSources) this.set({ pool }, read().waiting);
      },
    }),
    engineLag: new Histogram({
      name: 'parley_engine_event_lag_seconds',
      help: 'Time from a domain event being written to the engine having run its handlers on it.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers: [register],
    }),
    engineJobs: new Counter({
      name: 'parley_engine_jobs_total',
      help: 'Jobs the engine in this process worked, by queue and result (completed, failed: pg-boss retries it or dead-letters it).',
      labelNames: ['queue', 'result'],
      registers: [register],
    }),
    queueJobs: new Gauge({
      name: 'parley_queue_jobs',
      help: 'Jobs in pg-boss by queue and state: queued (due now), active, retrying, failed (kept until pg-boss archives them). Read at most every 5 s.',
      labelNames: ['queue', 'state'],
      registers: [register],
      async collect() {
        if (!queueSource) return;
        const depths = await queueSource().catch(() => null);
        if (!depths) return;
        this.reset();
        for (const d of depths) {
          this.set({ queue: d.queue, state: 'queued' }, d.queued);
          this.set({ queue: d.queue, state: 'active' }, d.active);
          this.set({ queue: d.queue, state: 'retrying' }, d.retrying);
          this.set({ queue: d.queue, state: 'failed' }, d.failed);
        }
      },
    }),
    oldestUnhandled: new Gauge({
      name: 'parley_engine_oldest_unhandled_event_seconds',
      help: 'Age of the oldest domain event queued for the engine and not yet handled (0 when none waits). Read at most every 5 s.',
      registers: [register],
      async collect() {
        if (!lagSource) return;
        const lag = await lagSource().catch(() => null);
        if (lag) this.set(lag.oldestUnhandledSeconds ?? 0);
      },
    }),
    websockets: new Gauge({
      name: 'parley_websocket_connections',
      help: 'Open websocket connections of this process: agent (the live inbox) and widget (visitors).',
      labelNames: ['kind'],
      registers: [register],
    }),
    imap: new Gauge({
      name: 'parley_imap_connections',
      help: "IMAP connections this node runs (one per inbox whose lease it holds), by state: connecting, connected, waiting (to reconnect after a failure).",
      labelNames: ['state'],
      registers: [register],
      collect() {
        const totals: Record<string, number> = { connecting: 0, connected: 0, waiting: 0 };
        for (const read of imapSources) for (const [state, n] of Object.entries(read())) totals[state] = (totals[state] ?? 0) + n;
        for (const [state, n] of Object.entries(totals)) this.set({ state }, n);
      },
    }),
    mailIn: new Counter({
      name: 'parley_mail_inbound_total',
      help: 'Mail received, by road (smtp, imap, http) and outcome (created, threaded, duplicate, quarantined, ignored, bounce, auto-reply...).',
      labelNames: ['via', 'status'],
      registers: [register],
    }),
    mailOut: new Counter({
      name: 'parley_mail_outbound_total',
      help: 'Mail sent, by kind (reply: an agent\'s message; system: sign-up codes, notifications...; bulk: campaigns and surveys) and result (sent, failed, stored: kept in the development mailbox without SMTP).',
      labelNames: ['kind', 'result'],
      registers: [register],
    }),
    webhookAttempts: new Counter({
      name: 'parley_webhook_attempts_total',
      help: 'Outgoing webhook delivery attempts, by result (delivered: a 2xx answer; failed: another answer, a timeout or no connection).',
      labelNames: ['result'],
      registers: [register],
    }),
    integrationFailures: new Counter({
      name: 'parley_integration_call_failures_total',
      help: 'Calls to an integration\'s API that failed, by provider and kind (unreachable: no answer; refused: an error answer).',
      labelNames: ['provider', 'kind'],
      registers: [register],
    }),
  };
  return m;
}

export function metrics() {
  return singleton('metrics', create);
}

/** `2xx`, `3xx`, `4xx`, `5xx`. */
export function statusClass(status: number) {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

export async function metricsText() {
  return metrics().register.metrics();
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
