import { getSql } from '../db/client';
import { EMAIL_INBOX_CHANNEL, listImapInboxes, readEmailSettings } from '../app/models/email/email-inboxes.server';
import { imapClient, imapConnectionKey, syncImapMailbox, type ImapSettings } from '../app/models/email/imap.server';
import { getLogger } from '../app/utils/logger.server';

/**
 * Keeps one IMAP connection per inbox in 'imap' mode, IDLEs on its mailbox and ingests new mail the moment
 * the server announces it (an EXISTS notice), instead of polling every few minutes. Connections that drop are
 * reopened with exponential backoff. Inbox changes arrive as a NOTIFY from the settings pages; a slow
 * re-check catches changes made any other way.
 */

const RECHECK_MS = 5 * 60_000;
const MAX_BACKOFF_MS = 5 * 60_000;

type Worker = { key: string; stop: () => Promise<void>; connected: () => boolean };

export type ImapManager = {
  /** Compares the running connections with the IMAP inboxes in the database and starts, restarts or stops them. */
  reconcile: () => Promise<void>;
  /** Inbox ids with a connection (open or reconnecting), and those currently connected. */
  status: () => { watching: number[]; connected: number[] };
  stop: () => Promise<void>;
};

export function backoffMs(attempt: number) {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(attempt, 10)) * (0.8 + Math.random() * 0.4);
}

function startWorker(inbox: { id: number; accountId: number }, imap: ImapSettings, opts: { minBackoffMs?: number }): Worker {
  const log = getLogger().child({ inboxId: inbox.id, imapHost: imap.host });
  let stopped = false;
  let client: ReturnType<typeof imapClient> | null = null;
  let isConnected = false;
  let wake: (() => void) | null = null;

  const run = async () => {
    let attempt = 0;
    while (!stopped) {
      const c = imapClient(imap);
      client = c;
      try {
        const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
        c.on('error', (err: Error) => log.warn({ err: err.message }, 'imap connection error'));
        await c.connect();
        const mailbox = imap.mailbox || 'INBOX';
        // Selects the mailbox; the lock is only held while syncing, as imapflow IDLEs only when no lock is held.
        (await c.getMailboxLock(mailbox)).release();
        isConnected = true;
        attempt = 0;
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
          })()
            .catch((err) => {
              log.warn({ err: (err as Error).message }, 'imap sync failed, reconnecting');
              c.close();
            })
            .finally(() => {
              running = null;
            });
          return running;
        };
        c.on('exists', () => void sync());
        await sync();
        // imapflow IDLEs by itself whenever no command runs; wait until the connection ends.
        await closed;
      } catch (err) {
        if (!stopped) log.warn({ err: (err as Error).message, attempt }, 'imap connection failed');
        c.close();
      }
      isConnected = false;
      client = null;
      if (stopped) break;
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
    stop: async () => {
      stopped = true;
      wake?.();
      const c = client as ReturnType<typeof imapClient> | null;
      if (c) await Promise.race([c.logout().catch(() => c.close()), new Promise((r) => setTimeout(r, 3000))]);
      (client as ReturnType<typeof imapClient> | null)?.close();
      await done;
    },
  };
}

export async function startImapManager(opts: { recheckMs?: number; minBackoffMs?: number } = {}): Promise<ImapManager> {
  const log = getLogger();
  const workers = new Map<number, Worker>();
  let stopping = false;
  let reconciling: Promise<void> | null = null;
  let pending = false;

  const reconcileOnce = async () => {
    const inboxes = await listImapInboxes();
    const wanted = new Map<number, { inbox: (typeof inboxes)[number]; imap: ImapSettings }>();
    for (const inbox of inboxes) {
      const imap = readEmailSettings(inbox).imap;
      if (imap?.host && imap.user && imap.password) wanted.set(inbox.id, { inbox, imap });
    }
    for (const [id, worker] of workers) {
      const want = wanted.get(id);
      if (!want || imapConnectionKey(want.imap) !== worker.key) {
        workers.delete(id);
        await worker.stop();
      }
    }
    for (const [id, { inbox, imap }] of wanted) {
      if (stopping || workers.has(id)) continue;
      workers.set(id, startWorker(inbox, imap, opts));
    }
  };

  const reconcile = async () => {
    if (reconciling) {
      pending = true;
      return reconciling;
    }
    reconciling = (async () => {
      do {
        pending = false;
        await reconcileOnce().catch((err) => log.error({ err: (err as Error).message }, 'imap manager could not read the inboxes'));
      } while (pending && !stopping);
    })().finally(() => {
      reconciling = null;
    });
    return reconciling;
  };

  const listener = await getSql().listen(EMAIL_INBOX_CHANNEL, () => void reconcile());
  const timer = setInterval(() => void reconcile(), opts.recheckMs ?? RECHECK_MS);
  timer.unref();
  await reconcile();
  log.info({ inboxes: workers.size }, 'imap manager started');

  return {
    reconcile,
    status: () => ({
      watching: [...workers.keys()],
      connected: [...workers.entries()].filter(([, w]) => w.connected()).map(([id]) => id),
    }),
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      await listener.unlisten().catch(() => {});
      await reconciling;
      await Promise.all([...workers.values()].map((w) => w.stop()));
      workers.clear();
    },
  };
}
