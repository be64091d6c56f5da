import { getSql } from '../db/client';
import { EMAIL_INBOX_CHANNEL, listImapInboxes, readEmailSettings } from '../app/models/email/email-inboxes.server';
import { recordChannelFailure, recordChannelSuccess } from '../app/models/channels/health.server';
import { imapConnectionKey, syncImapMailbox, type ImapSettings } from '../app/models/email/imap.server';
import { imapClient, isCertificateError, loggableConnectionError, plainConnectionError, probeCertificate } from '../app/models/email/mail-connection.server';
import { describeStoreFailure } from '../app/models/email/quarantine.server';
import { mailAccessToken } from '../app/models/email/oauth-mail.server';
import { metrics } from '../app/utils/metrics.server';
import { getLogger } from '../app/utils/logger.server';
import { acquireLeases, keepLeases, LEASE_CHANNEL, LEASE_RENEW_MS, LEASE_TTL_MS } from '../app/models/cluster/leases.server';
import { nodeId as thisNodeId } from '../app/models/cluster/node.server';

/**
 * Keeps one IMAP connection per inbox in 'imap' mode, IDLEs on its mailbox and ingests new mail the moment
 * the server announces it (an EXISTS notice), instead of polling every few minutes. Connections that drop are
 * reopened with exponential backoff. Inbox changes arrive as a NOTIFY from the settings pages; a slow
 * re-check catches changes made any other way.
 *
 * A connection that dies without closing (server frozen, NAT entry dropped) is found by a heartbeat: every
 * 20 s without a sync, a NOOP (which also ends and restarts IDLE, so the connection is never quiet for long)
 * that must be answered within 10 s. A frozen connection is therefore dropped at most 30 s after it froze (60 s
 * if it froze in the middle of a sync: imapflow's 30 s socket timeout, then its own NOOP), and reopened about a
 * second later. Each connection's state goes to channel health (ADR 024); an outage ends only once the connection has
 * kept working for RECOVERY_SETTLE_MS, so a flapping server is one outage, one notification each way (ADR 145).
 *
 * Every web node runs a manager, yet each inbox has exactly one connection in the cluster: a node runs the connection
 * of an inbox only while it holds the inbox's lease (`imap:<inboxId>`, app/models/cluster/leases.server.ts). One
 * statement every LEASE_RENEW_MS renews the leases it holds and tries the others; a lease held elsewhere is tried
 * again just after it expires, so when its node dies (no release) another takes over within LEASE_TTL_MS. A node that
 * cannot renew (database down) drops its connections before its leases could have expired, and takes them again on its
 * first round after the database is back. A graceful stop releases the leases: another node takes over at once.
 */

const RECHECK_MS = 5 * 60_000;
const MAX_BACKOFF_MS = 5 * 60_000;
export const HEARTBEAT_MS = 20_000;
export const HEARTBEAT_TIMEOUT_MS = 10_000;
/**
 * How long a connection must work, with no failure, before an outage counts as over (ADR 145): a server restarting a
 * few times in a row, or a connection that comes back for a moment and drops again, is one outage, one notification.
 */
export const RECOVERY_SETTLE_MS = 60_000;

/** Where a connection is (the metrics' parley_imap_connections): opening, open, or waiting to reopen after a failure. */
type WorkerState = 'connecting' | 'connected' | 'waiting';
type Worker = { key: string; stop: (graceMs?: number) => Promise<void>; connected: () => boolean; state: () => WorkerState };

export type ImapManager = {
  /** Compares the running connections with the IMAP inboxes in the database and starts, restarts or stops them. */
  reconcile: () => Promise<void>;
  /**
   * This node, the inbox ids whose lease it holds, those with a connection (open or reconnecting), and those
   * currently connected.
   */
  status: () => { nodeId: string; held: number[]; watching: number[]; connected: number[] };
  /** Closes the connections, then releases the leases so another node takes over at once (`release: false`: as if killed). */
  stop: (opts?: { release?: boolean }) => Promise<void>;
};

export const imapLeaseKey = (inboxId: number) => `imap:${inboxId}`;
const inboxOfLease = (key: string) => (/^imap:\d+$/.test(key) ? Number(key.slice(5)) : null);

/**
 * A failure as the log may carry it: the database's reason and SQLSTATE for a database error (as quarantine does,
 * never a query's values), else a code and Parley's words (never the IMAP server's text, which can echo the login).
 */
export function imapFailureForLog(err: unknown) {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const sqlState = [e?.code, e?.cause?.code].find((c): c is string => typeof c === 'string' && /^[0-9A-Z]{5}$/.test(c) && /\d/.test(c));
  if (sqlState) return { errorCode: sqlState, reason: describeStoreFailure(err) };
  return loggableConnectionError(err, 'mailbox');
}

export function backoffMs(attempt: number) {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(attempt, 10)) * (0.8 + Math.random() * 0.4);
}

function startWorker(
  inbox: { id: number; accountId: number },
  imap: ImapSettings,
  opts: { minBackoffMs?: number; heartbeatMs?: number; heartbeatTimeoutMs?: number; recoverySettleMs?: number },
): Worker {
  const log = getLogger().child({ inboxId: inbox.id, imapHost: imap.host });
  let stopped = false;
  let client: ReturnType<typeof imapClient> | null = null;
  let isConnected = false;
  let state: WorkerState = 'connecting';
  let wake: (() => void) | null = null;

  const health = { accountId: inbox.accountId, inboxId: inbox.id, part: 'imap' as const };
  const recordFailure = async (err: unknown) => {
    const certificate = isCertificateError(err) ? await probeCertificate(imap, 'imap') : null;
    await recordChannelFailure({ ...health, error: plainConnectionError(err, 'mailbox'), certificate }).catch(() => {});
  };

  const run = async () => {
    let attempt = 0;
    // XOAUTH2 (ADR 158): a token the server refused is renewed for the next attempt.
    let renew = false;
    while (!stopped) {
      state = 'connecting';
      let accessToken: string | undefined;
      if (imap.auth === 'xoauth2') {
        try {
          accessToken = await mailAccessToken({ accountId: inbox.accountId, inboxId: inbox.id, renew });
          renew = false;
        } catch (err) {
          // A revoked grant is already in channel health (mailAccessToken records it); anything else is recorded here.
          log.warn({ errorCode: 'EMAIL_OAUTH', attempt }, 'imap access token unavailable');
          if (!(err as { revoked?: boolean }).revoked) await recordChannelFailure({ ...health, error: plainConnectionError(err, 'mailbox') }).catch(() => {});
          const delay = Math.max(opts.minBackoffMs ?? 0, backoffMs(attempt++));
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delay);
            timer.unref();
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
          continue;
        }
      }
      const c = imapClient(imap, { accessToken });
      client = c;
      let heartbeat: NodeJS.Timeout | undefined;
      let settle: NodeJS.Timeout | undefined;
      const settleMs = opts.recoverySettleMs ?? RECOVERY_SETTLE_MS;
      // A success during an outage ends it only once this connection has kept working for settleMs: checked again then.
      const recordWorking = async () => {
        const r = await recordChannelSuccess(health, { settleMs }).catch(() => null);
        clearTimeout(settle);
        if (r?.open && !stopped && client === c) {
          settle = setTimeout(() => void recordWorking(), settleMs + 50);
          settle.unref();
        }
      };
      try {
        const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
        c.on('error', (err: Error) => log.warn(imapFailureForLog(err), 'imap connection error'));
        await c.connect();
        const mailbox = imap.mailbox || 'INBOX';
        // Selects the mailbox; the lock is only held while syncing, as imapflow IDLEs only when no lock is held.
        (await c.getMailboxLock(mailbox)).release();
        isConnected = true;
        state = 'connected';
        // One sync at a time; a notice during a sync asks for one more pass after it.
        let running: Promise<void> | null = null;
        let again = false;
        const sync = () => {
          if (running) {
            again = true;
            return running;
          }
          running = (async () => {
            do {
              again = false;
              const lock = await c.getMailboxLock(mailbox);
              let gone: boolean;
              try {
                ({ gone } = await syncImapMailbox(c, { accountId: inbox.accountId, inboxId: inbox.id }));
              } finally {
                lock.release();
              }
              if (gone) {
                stopped = true;
                await c.logout().catch(() => {});
                return;
              }
            } while (again && !stopped);
            // The backoff starts again only once the connection has done its work.
            attempt = 0;
            await recordWorking();
          })()
            .catch(async (err) => {
              log.warn(imapFailureForLog(err), 'imap sync failed, reconnecting');
              await recordFailure(err);
              c.close();
            })
            .finally(() => {
              running = null;
            });
          return running;
        };
        c.on('exists', () => void sync());
        await sync();
        let beating = false;
        heartbeat = setInterval(() => {
          if (running || beating || stopped) return;
          beating = true;
          let timer: NodeJS.Timeout | undefined;
          const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), opts.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS)));
          void Promise.race([c.noop().then(() => 'ok' as const), deadline])
            .then(async (outcome) => {
              if (outcome === 'timeout' && !stopped) {
                log.warn('imap connection did not answer a NOOP, reconnecting');
                await recordChannelFailure({ ...health, error: 'The server stopped answering; reconnecting' }).catch(() => {});
                c.close();
              }
            })
            .catch(() => c.close())
            .finally(() => {
              clearTimeout(timer);
              beating = false;
            });
        }, opts.heartbeatMs ?? HEARTBEAT_MS);
        heartbeat.unref();
        // imapflow IDLEs by itself whenever no command runs; wait until the connection ends.
        await closed;
      } catch (err) {
        if (!stopped) {
          log.warn({ ...imapFailureForLog(err), attempt }, 'imap connection failed');
          if (imap.auth === 'xoauth2' && (err as { authenticationFailed?: boolean }).authenticationFailed) renew = true;
          await recordFailure(err);
        }
        c.close();
      }
      clearInterval(heartbeat);
      clearTimeout(settle);
      isConnected = false;
      client = null;
      if (stopped) break;
      state = 'waiting';
      const delay = Math.max(opts.minBackoffMs ?? 0, backoffMs(attempt++));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        timer.unref();
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };
  const done = run();

  return {
    key: imapConnectionKey(imap),
    connected: () => isConnected,
    state: () => state,
    stop: async (graceMs = 3000) => {
      stopped = true;
      wake?.();
      const c = client as ReturnType<typeof imapClient> | null;
      if (c) await Promise.race([c.logout().catch(() => c.close()), new Promise((r) => setTimeout(r, graceMs))]);
      (client as ReturnType<typeof imapClient> | null)?.close();
      await done;
    },
  };
}

export async function startImapManager(
  opts: {
    recheckMs?: number;
    minBackoffMs?: number;
    heartbeatMs?: number;
    heartbeatTimeoutMs?: number;
    recoverySettleMs?: number;
    /** This node's name in the leases (tests run two managers in one process). */
    nodeId?: string;
    leaseTtlMs?: number;
    leaseRenewMs?: number;
    /** Tests stand an unreachable database in here. */
    acquireLeases?: typeof acquireLeases;
  } = {},
): Promise<ImapManager> {
  const node = opts.nodeId ?? thisNodeId();
  const log = getLogger().child({ nodeId: node });
  const wanted = new Map<number, { inbox: Awaited<ReturnType<typeof listImapInboxes>>[number]; imap: ImapSettings }>();
  const workers = new Map<number, Worker>();
  /** Workers being stopped: an inbox's next worker on this node waits for them, so it never has two connections. */
  const stopping = new Map<number, Promise<void>>();
  let closing = false;

  const stopWorker = (id: number, graceMs?: number) => {
    const worker = workers.get(id);
    if (!worker) return stopping.get(id);
    workers.delete(id);
    const done = Promise.all([stopping.get(id), worker.stop(graceMs)]).then(() => {
      if (stopping.get(id) === done) stopping.delete(id);
    });
    stopping.set(id, done);
    return done;
  };

  const leases = keepLeases({
    holder: node,
    ttlMs: opts.leaseTtlMs ?? LEASE_TTL_MS,
    renewMs: opts.leaseRenewMs ?? LEASE_RENEW_MS,
    acquire: opts.acquireLeases,
    wanted: () => [...wanted.keys()].map(imapLeaseKey),
    onChange: async ({ gained, lost }) => {
      // A lease lost (taken over, not renewed in time, or no longer wanted) stops its connection now.
      await Promise.all(lost.map((key) => stopWorker(inboxOfLease(key) ?? -1, 1000)));
      if (gained.length) void schedule(false);
    },
    onError: (err) => log.warn(imapFailureForLog(err), 'imap leases could not be renewed'),
  });

  /** Runs the connections of the wanted inboxes whose lease this node holds, and only those. */
  const applyWorkers = async () => {
    const held = leases.held();
    const stops: Promise<void>[] = [];
    for (const [id, worker] of workers) {
      const want = wanted.get(id);
      if (!want || !held.has(imapLeaseKey(id)) || imapConnectionKey(want.imap) !== worker.key) stops.push(stopWorker(id) ?? Promise.resolve());
    }
    await Promise.all(stops);
    for (const [id, { inbox, imap }] of wanted) {
      if (closing || workers.has(id) || !held.has(imapLeaseKey(id))) continue;
      await stopping.get(id);
      if (closing || workers.has(id) || !leases.held().has(imapLeaseKey(id))) continue;
      workers.set(id, startWorker(inbox, imap, opts));
    }
  };

  const step = async (list: boolean) => {
    if (list) {
      const inboxes = await listImapInboxes();
      wanted.clear();
      for (const inbox of inboxes) {
        const imap = readEmailSettings(inbox).imap;
        if (imap?.host && imap.user && (imap.password || imap.auth === 'xoauth2')) wanted.set(inbox.id, { inbox, imap });
      }
      // The new list's leases at once: inboxes gone are released, new ones taken if free (one statement).
      await leases.refresh();
    }
    await applyWorkers();
  };

  // One step at a time; asks arriving meanwhile are folded into one more pass.
  let running: Promise<void> | null = null;
  let wantList = false;
  let wantApply = false;
  const schedule = (list: boolean) => {
    if (list) wantList = true;
    wantApply = true;
    running ??= (async () => {
      while ((wantList || wantApply) && !closing) {
        const l = wantList;
        wantList = wantApply = false;
        await step(l).catch((err) => log.error(imapFailureForLog(err), 'imap manager could not read the inboxes'));
      }
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const reconcile = () => schedule(true);

  let listened = false;
  const listener = await getSql().listen(
    EMAIL_INBOX_CHANNEL,
    () => void reconcile(),
    // Listening again after the connection dropped: the database is back, whatever changed meanwhile is read again.
    () => {
      if (listened) void reconcile();
      listened = true;
    },
  );
  // A lease released by a node stopping: take it now rather than at the next round.
  const leaseListener = await getSql().listen(LEASE_CHANNEL, (key) => {
    const id = inboxOfLease(key);
    if (id !== null && wanted.has(id) && !leases.held().has(key)) void leases.refresh();
  });
  const timer = setInterval(() => void reconcile(), opts.recheckMs ?? RECHECK_MS);
  timer.unref();
  // The connections' states, read at scrape time (ADR 150).
  const states = () => {
    const out: Record<WorkerState, number> = { connecting: 0, connected: 0, waiting: 0 };
    for (const w of workers.values()) out[w.state()]++;
    return out;
  };
  metrics().imapSources.add(states);
  await reconcile();
  log.info({ inboxes: wanted.size, held: workers.size }, 'imap manager started');

  return {
    reconcile,
    status: () => ({
      nodeId: node,
      held: [...leases.held()].map((key) => inboxOfLease(key)).filter((id): id is number => id !== null && wanted.has(id)),
      watching: [...workers.keys()],
      connected: [...workers.entries()].filter(([, w]) => w.connected()).map(([id]) => id),
    }),
    stop: async (o = {}) => {
      closing = true;
      metrics().imapSources.delete(states);
      clearInterval(timer);
      await listener.unlisten().catch(() => {});
      await leaseListener.unlisten().catch(() => {});
      await running;
      // The connections close before the leases go, so that the next holder never overlaps with them.
      await Promise.all([...workers.keys()].map((id) => stopWorker(id)));
      await Promise.all([...stopping.values()]);
      await leases.stop({ release: o.release !== false });
    },
  };
}
