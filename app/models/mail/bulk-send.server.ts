import fs from 'node:fs';
import pg, { type Client } from 'pg';
import { primaryUrl } from '../../../db/primary';
import { getLogger } from '../../utils/logger.server';
import { metrics } from '../../utils/metrics.server';
import { addressOf, buildRawMail, type RawMail } from './raw-mime.server';
import { bulkSmtp, type BulkSmtp, type Hold, type WriteEnd } from './smtp-lanes.server';

/**
 * The one bulk-send loop (ADR 084) behind email surveys and email (and SMS) campaigns. The caller owns its table;
 * the loop owns the pace:
 *   - claims recipients a chunk at a time (the caller's `claim`: queued → sending, `for update skip locked`), and
 *     claims the next chunk while the current one is still on the wire, so the lanes never wait for the database;
 *   - sends through `lanes` concurrent sends (one per pooled SMTP connection), paced by a per-account token bucket;
 *   - marks each mail sent by group commit (marks join the next `markSent` statement, which starts as soon as the
 *     previous one is done — never a timer, never a whole chunk): an SMTP mail while the server holds all of it but
 *     its terminating dot, which is written as the mark's statement leaves (ADR 084 addendum), anything else right
 *     after it was accepted; a lane waits for its mail's mark before its next mail;
 *   - stops taking new chunks after `sliceMs` (the caller's job hands on to a fresh one), or when `keepGoing` says so
 *     (a paused campaign); a transport failure releases what was claimed and not attempted, then throws.
 * With `syncMarks` (campaigns, ADR 084 addendum 3) the held ends of a group and the group's mark statement are written
 * in one turn of the event loop, the ends first, on a connection of the loop's own: a SIGKILL can repeat a mail only if
 * it falls between those write(2) calls (microseconds), and never loses one. Campaigns and email surveys both use it;
 * without it, a kill between the end's write and the mark statement's write can repeat the mail (one event-loop turn). `stats.markLagMs` is the
 * marks' latency.
 */

export type BulkStats = {
  sent: number;
  refused: number;
  skipped: number;
  /** No recipient was left to claim (the send is complete unless other workers still hold claims). */
  exhausted: boolean;
  /** Milliseconds from an SMTP accept to the commit of its sent mark: the largest, and the 95th percentile. */
  markLagMs: { max: number; p95: number };
  markStatements: number;
};

export type BulkSource<R extends { id: number }> = {
  accountId: number;
  /** Takes up to `limit` recipients for this worker (queued → sending); [] when none is left. */
  claim: (limit: number) => Promise<R[]>;
  /**
   * Sends one recipient's message; resolves when the server accepted it. Returns its Message-ID when it has one.
   * With `held` (given when the source can `unmarkSent`), an SMTP send calls `held.beforeEnd` once the server holds
   * the whole message but its end, and writes the end only after the sent mark is committed.
   */
  deliver: (row: R, held?: HeldEnd) => Promise<{ messageId?: string } | void>;
  /** Rows a claim returned that must not be sent (suppressed meanwhile); marked skipped, not delivered. */
  skip?: (row: R) => boolean;
  markSkipped?: (ids: number[]) => Promise<void>;
  /** Accepted by the server: one statement for everything accepted since the previous one. */
  markSent: (rows: { id: number; messageId?: string }[]) => Promise<void>;
  /** Marked before the message's end, then not accepted: back to `sending`, so a refusal or a release follows. */
  unmarkSent?: (ids: number[]) => Promise<void>;
  /**
   * The sent marks of held ends as one statement on a connection of the loop's own (`connect`, opened per run), written
   * synchronously right after the ends (ADR 084 addendum 3). `text` must mark only the given ids, still `sending`.
   */
  syncMarks?: { connect: () => Promise<Client>; text: (ids: number[]) => string };
  /** Renews the claims this run still holds (every 30 s), so no claim a live sender holds can pass its lease. */
  extendClaims?: (ids: number[]) => Promise<void>;
  /** The server refused this recipient for good (5xx to RCPT TO, a provider's 4xx about the number). */
  isRefusal: (err: unknown) => boolean;
  markRefused: (row: R, err: Error) => Promise<void>;
  /** Claimed but not sent (a transport failure, or a pause): back to the queue for the next claim. */
  release: (ids: number[]) => Promise<void>;
  /** Checked before each claim: false stops the loop (a campaign paused or cancelled). */
  keepGoing?: () => Promise<boolean>;
};

/**
 * The loop's hook into one SMTP send, given once the server holds every byte but the message's end: `atEnd` writes the
 * end itself (synchronously, beside its mark statement); `beforeEnd` is awaited, then the end is written.
 */
export type HeldEnd = { beforeEnd: (messageId?: string) => Promise<void>; atEnd?: undefined } | { atEnd: Hold; beforeEnd?: undefined };

/** How often a run renews the claims it holds (the campaign lease is 2 minutes). */
const CLAIM_HEARTBEAT_MS = 30_000;

export type BulkOptions = { claimSize?: number; lanes?: number; ratePerSecond?: number; sliceMs?: number; claimHeartbeatMs?: number };

const buckets = new Map<string, { tokens: number; at: number }>();
/** A token bucket per account (and kind) and process: sends start at most `rate` a second, bursts up to a second's worth. */
export async function takeSendToken(key: string, rate: number) {
  for (;;) {
    const now = Date.now();
    const b = buckets.get(key) ?? { tokens: Math.min(rate, 50), at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    await new Promise((r) => setTimeout(r, Math.max(1, Math.ceil(((1 - b.tokens) / rate) * 1000))));
  }
}

export async function runBulkSend<R extends { id: number }>(source: BulkSource<R>, opts: BulkOptions & { rateKey: string }): Promise<BulkStats> {
  const claimSize = opts.claimSize ?? 200;
  const lanes = Math.max(1, opts.lanes ?? 8);
  const rate = opts.ratePerSecond ?? 400;
  const sliceMs = opts.sliceMs ?? 20_000;
  const started = Date.now();
  const stats: BulkStats = { sent: 0, refused: 0, skipped: 0, exhausted: false, markLagMs: { max: 0, p95: 0 }, markStatements: 0 };
  const lags: number[] = [];

  // Group commit of sent marks: whatever was accepted while the previous statement ran goes in the next one.
  let pendingMarks: { id: number; messageId?: string; at: number; started?: () => void; done: (ok: boolean) => void }[] = [];
  let flushing: Promise<void> | null = null;
  let markError: unknown = null;
  const flush = (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      while (pendingMarks.length) {
        const batch = pendingMarks;
        pendingMarks = [];
        // Held ends go out as their statement leaves (see the lane): the server's accept and the commit then race,
        // and a kill between them repeats the mail (same Message-ID) rather than losing it.
        for (const m of batch) m.started?.();
        try {
          await source.markSent(batch.map(({ id, messageId }) => ({ id, messageId })));
          stats.markStatements++;
          const now = Date.now();
          for (const m of batch) lags.push(now - m.at);
        } catch (err) {
          for (const m of batch) m.done(false);
          markError = err;
          // Not marked: they stay `sending`; after the lease they are the "sent but not recorded" window (ADR 084).
          getLogger().error({ err: (err as Error).message, n: batch.length }, 'bulk send: sent marks not written');
          continue;
        }
        for (const m of batch) m.done(true);
      }
    })().finally(() => {
      flushing = null;
    });
    return flushing;
  };

  // Held ends and their marks, written together (syncMarks): the ends of the group first, each into the kernel, then the
  // statement, in the same turn; the next group waits for the statement's commit (the connection carries one at a time).
  const marks = source.syncMarks && source.unmarkSent ? await source.syncMarks.connect() : null;
  marks?.on('error', (err) => (markError ??= err));
  type EndMark = { id: number; at: number; writeEnd: WriteEnd; ended: () => void; failed: (err: unknown) => void; done: (ok: boolean) => void };
  let pendingEnds: EndMark[] = [];
  let ending: Promise<void> | null = null;
  const flushEnds = (): Promise<void> => {
    if (ending) return ending;
    ending = (async () => {
      while (pendingEnds.length) {
        const batch = pendingEnds;
        pendingEnds = [];
        const out: EndMark[] = [];
        const notYet: Promise<void>[] = [];
        for (const m of batch) {
          try {
            const inKernel = m.writeEnd();
            if (inKernel !== true) notYet.push(inKernel);
            out.push(m);
            m.ended();
          } catch (err) {
            // The connection is gone: no end, no mail, no mark; the send fails and the row is released.
            m.done(false);
            m.failed(err);
          }
        }
        // An end the kernel could not take at once (a full socket buffer): the statement waits until it is there, so a
        // kill meanwhile repeats that mail and never marks one that did not leave.
        if (notYet.length) await Promise.allSettled(notYet);
        if (!out.length) continue;
        const ids = out.map((m) => m.id);
        let ok = false;
        if (!markError) {
          try {
            await marks!.query(source.syncMarks!.text(ids));
            ok = true;
          } catch (err) {
            markError ??= err;
          }
        }
        if (!ok) {
          // Delivered (or about to be) and not recorded: record through the pool, then stop this run (ADR 084).
          getLogger().error({ err: (markError as Error)?.message, n: ids.length }, 'bulk send: sent marks not written on the marks connection');
          try {
            await source.markSent(ids.map((id) => ({ id })));
            ok = true;
          } catch {
            // They stay `sending`: after the lease they are sent again (the same Message-ID).
          }
        }
        stats.markStatements++;
        const now = Date.now();
        for (const m of out) {
          lags.push(now - m.at);
          m.done(ok);
        }
      }
    })().finally(() => {
      ending = null;
    });
    return ending;
  };

  const queue: R[] = [];
  let claiming: Promise<R[]> | null = null;
  let noMore = false;
  let stop = false;
  let transportError: unknown = null;
  const attempted = new Set<number>();
  const claimedIds: number[] = [];
  /** Claimed and not yet finished (marked, refused or released): the claims the heartbeat renews. */
  const holding = new Set<number>();
  const heartbeat = source.extendClaims
    ? setInterval(() => {
        if (holding.size) source.extendClaims!([...holding]).catch((err) => getLogger().warn({ err: (err as Error).message }, 'bulk send: claims not renewed'));
      }, opts.claimHeartbeatMs ?? CLAIM_HEARTBEAT_MS)
    : null;

  const claimNext = async (): Promise<R[]> => {
    if (noMore || stop) return [];
    if (Date.now() - started > sliceMs) {
      stop = true;
      return [];
    }
    if (source.keepGoing && !(await source.keepGoing())) {
      stop = true;
      return [];
    }
    const rows = await source.claim(claimSize);
    if (rows.length === 0) {
      noMore = true;
      return [];
    }
    const skipped = source.skip ? rows.filter((r) => source.skip!(r)) : [];
    if (skipped.length) {
      await source.markSkipped?.(skipped.map((r) => r.id));
      stats.skipped += skipped.length;
    }
    const live = skipped.length ? rows.filter((r) => !skipped.includes(r)) : rows;
    for (const r of live) {
      claimedIds.push(r.id);
      holding.add(r.id);
    }
    return live;
  };

  /** The next recipient for a lane; the next chunk is claimed while the current one still has half its rows to go. */
  const take = async (): Promise<R | undefined> => {
    for (;;) {
      if (transportError) return undefined;
      if (queue.length <= claimSize / 2 && !claiming && !noMore && !stop) {
        claiming = claimNext().then((rows) => {
          queue.push(...rows);
          claiming = null;
          return rows;
        });
      }
      const row = queue.shift();
      if (row) return row;
      if (!claiming) return undefined;
      await claiming;
    }
  };

  /** Joins the next group commit of sent marks: `started` as its statement leaves, `written` with whether it committed. */
  const mark = (id: number, messageId?: string) => {
    let started!: () => void;
    const leaving = new Promise<void>((resolve) => (started = resolve));
    const written = new Promise<boolean>((done) => pendingMarks.push({ id, messageId, at: Date.now(), started, done }));
    void flush();
    return { leaving, written };
  };

  const lane = async () => {
    for (;;) {
      const row = await take();
      if (!row) return;
      await takeSendToken(opts.rateKey, rate);
      attempted.add(row.id);
      // SMTP through BulkSmtp: the message's end waits until its sent mark's statement leaves for the database (the
      // lanes' mails that reach their end meanwhile share it). A SIGKILL before that: the server never got the end and
      // drops the mail; the row is sent again. Only between the end and the commit can a kill repeat a mail.
      let premarked: Promise<boolean> | null = null;
      const held: HeldEnd | undefined = marks
        ? {
            atEnd: (writeEnd) =>
              new Promise<void>((ended, failed) => {
                premarked = new Promise<boolean>((done) => pendingEnds.push({ id: row.id, at: Date.now(), writeEnd, ended, failed, done }));
                void flushEnds();
              }),
          }
        : source.unmarkSent
        ? {
            beforeEnd: async (messageId) => {
              const m = mark(row.id, messageId);
              premarked = m.written;
              await m.leaving;
            },
          }
        : undefined;
      try {
        const result = await source.deliver(row, held);
        stats.sent++;
        if (premarked) {
          // The lane waits for the commit before its next mail: at most one mail per lane is ever unrecorded.
          const marked = await premarked;
          holding.delete(row.id);
          // A failed marks connection stops the run (the job fails and is retried) rather than mark through the pool.
          if (!marked || markError) return;
          continue;
        }
        // Marked after the server's 250 (the mailbox path, SMS): the lane waits for its mail's mark before its next
        // mail, so accepted-but-unmarked mails (what a SIGKILL can send twice) are at most one per lane.
        await mark(row.id, result ? result.messageId : undefined).written;
        holding.delete(row.id);
        if (markError) return;
      } catch (err) {
        // Marked, then not accepted (the server refused the message's end, or the connection broke after the mark).
        if (premarked && (await premarked)) await source.unmarkSent!([row.id]);
        if (source.isRefusal(err)) {
          stats.refused++;
          await source.markRefused(row, err as Error);
          holding.delete(row.id);
          continue;
        }
        attempted.delete(row.id);
        transportError ??= err;
        return;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: lanes }, lane));
    if (claiming) await claiming;
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    await flushEnds();
    await flush();
    await marks?.end().catch(() => {});
  }
  const sorted = lags.sort((a, b) => a - b);
  stats.markLagMs = { max: sorted.at(-1) ?? 0, p95: sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? 0 };
  const unattempted = claimedIds.filter((id) => !attempted.has(id));
  if (unattempted.length) await source.release(unattempted);
  if (transportError) throw transportError;
  if (markError) throw markError;
  stats.exhausted = noMore && !stop;
  // Benches read each job's figures (bench/survey-email.ts, bench/campaigns.ts): one JSON line per run of the loop.
  if (process.env.PARLEY_BULK_STATS_FILE) fs.appendFileSync(process.env.PARLEY_BULK_STATS_FILE, `${JSON.stringify({ key: opts.rateKey, ms: Date.now() - started, ...stats })}\n`);
  return stats;
}

/**
 * The connection a bulk run writes its held ends' sent marks on (`syncMarks`, ADR 084 addendum 3): its own, so it is
 * idle whenever the loop writes a statement (the statement reaches the kernel in the same turn as the ends it records),
 * and with synchronous_commit off — a SIGKILL of Parley does not stop PostgreSQL, which commits what it received; a
 * crash of PostgreSQL itself can forget the last moments of marks, whose recipients are then sent again (the same
 * Message-ID).
 */
export async function connectSentMarks() {
  // `pg` follows one host only: with several in DATABASE_URL (a primary and its standbys), the primary's (ADR 143).
  const client = new pg.Client({ connectionString: await primaryUrl(process.env.DATABASE_URL ?? ''), application_name: 'parley-sent-marks' });
  await client.connect();
  await client.query('set synchronous_commit = off');
  return client;
}

/** Recipient ids as a literal SQL list for a `syncMarks` statement (text, no parameters): integers only. */
export function literalIdList(ids: number[]) {
  return ids
    .map((id) => {
      if (!Number.isSafeInteger(id)) throw new Error('a recipient id is not an integer');
      return String(id);
    })
    .join(',');
}

/* ------------------------------------------------------------------------------------------- transport */

/** The bulk connections for Parley's SMTP URL in this process (smtp-lanes.server.ts). */
export function pooledTransport(smtpUrl: string, connections = bulkConnections()) {
  return bulkSmtp(smtpUrl, connections);
}

/** SMTP connections (and concurrent sends) of a bulk send: PARLEY_BULK_SMTP_CONNECTIONS, 8 by default. */
export function bulkConnections() {
  const n = Number(process.env.PARLEY_BULK_SMTP_CONNECTIONS ?? 8);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 32) : 8;
}

/** Sends prepared bytes with an explicit envelope (raw-mime.server.ts), the end held for the sent mark when asked. */
export async function sendRawMail(transport: BulkSmtp, mail: RawMail, held?: HeldEnd) {
  const hold: Hold | undefined = held?.atEnd
    ? held.atEnd
    : held?.beforeEnd
    ? async (writeEnd) => {
        await held.beforeEnd!(mail.messageId);
        await writeEnd();
      }
    : undefined;
  try {
    await transport.send({ from: addressOf(mail.from), to: [mail.to] }, buildRawMail(mail), hold);
  } catch (err) {
    metrics().mailOut.inc({ kind: 'bulk', result: 'failed' });
    throw err;
  }
  metrics().mailOut.inc({ kind: 'bulk', result: 'sent' });
  return { messageId: mail.messageId };
}

/** A 5xx answer to RCPT TO: the server refuses this recipient for good (a transport failure is anything else). */
export const isSmtpRecipientRefusal = (err: unknown) =>
  /^5\d\d$/.test(String((err as { responseCode?: number }).responseCode ?? '')) && (err as { command?: string }).command === 'RCPT TO';
