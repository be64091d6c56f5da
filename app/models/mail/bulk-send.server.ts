import fs from 'node:fs';
import nodemailer from 'nodemailer';
import { getLogger } from '../../utils/logger.server';
import { singleton } from '../../utils/singleton.server';
import { addressOf, buildRawMail, type RawMail } from './raw-mime.server';

/**
 * The one bulk-send loop (ADR 084) behind email surveys and email (and SMS) campaigns. The caller owns its table;
 * the loop owns the pace:
 *   - claims recipients a chunk at a time (the caller's `claim`: queued → sending, `for update skip locked`), and
 *     claims the next chunk while the current one is still on the wire, so the lanes never wait for the database;
 *   - sends through `lanes` concurrent sends (one per pooled SMTP connection), paced by a per-account token bucket;
 *   - marks each mail sent right after its SMTP `250` by group commit: accepted mails join the next `markSent`
 *     statement, which starts as soon as the previous one is done — never a timer, never a whole chunk — and a lane
 *     sends its next mail only once its last one is marked, so at most `lanes` mails are ever accepted and unmarked;
 *   - stops taking new chunks after `sliceMs` (the caller's job hands on to a fresh one), or when `keepGoing` says so
 *     (a paused campaign); a transport failure releases what was claimed and not attempted, then throws.
 * The window in which a SIGKILL can send one mail twice is the time between a server's 250 and the commit of its
 * mark: the loop measures it (`stats.markLagMs`).
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
  /** Sends one recipient's message; resolves when the server accepted it. Returns its Message-ID when it has one. */
  deliver: (row: R) => Promise<{ messageId?: string } | void>;
  /** Rows a claim returned that must not be sent (suppressed meanwhile); marked skipped, not delivered. */
  skip?: (row: R) => boolean;
  markSkipped?: (ids: number[]) => Promise<void>;
  /** Accepted by the server: one statement for everything accepted since the previous one. */
  markSent: (rows: { id: number; messageId?: string }[]) => Promise<void>;
  /** The server refused this recipient for good (5xx to RCPT TO, a provider's 4xx about the number). */
  isRefusal: (err: unknown) => boolean;
  markRefused: (row: R, err: Error) => Promise<void>;
  /** Claimed but not sent (a transport failure, or a pause): back to the queue for the next claim. */
  release: (ids: number[]) => Promise<void>;
  /** Checked before each claim: false stops the loop (a campaign paused or cancelled). */
  keepGoing?: () => Promise<boolean>;
};

export type BulkOptions = { claimSize?: number; lanes?: number; ratePerSecond?: number; sliceMs?: number };

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
  let pendingMarks: { id: number; messageId?: string; at: number; done: () => void }[] = [];
  let flushing: Promise<void> | null = null;
  let markError: unknown = null;
  const flush = (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      while (pendingMarks.length) {
        const batch = pendingMarks;
        pendingMarks = [];
        try {
          await source.markSent(batch.map(({ id, messageId }) => ({ id, messageId })));
          stats.markStatements++;
          const now = Date.now();
          for (const m of batch) lags.push(now - m.at);
        } catch (err) {
          for (const m of batch) m.done();
          markError = err;
          // Not marked: they stay `sending`; after the lease they are the "sent but not recorded" window (ADR 084).
          getLogger().error({ err: (err as Error).message, n: batch.length }, 'bulk send: sent marks not written');
          continue;
        }
        for (const m of batch) m.done();
      }
    })().finally(() => {
      flushing = null;
    });
    return flushing;
  };

  const queue: R[] = [];
  let claiming: Promise<R[]> | null = null;
  let noMore = false;
  let stop = false;
  let transportError: unknown = null;
  const attempted = new Set<number>();
  const claimedIds: number[] = [];

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
    for (const r of live) claimedIds.push(r.id);
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

  const lane = async () => {
    for (;;) {
      const row = await take();
      if (!row) return;
      await takeSendToken(opts.rateKey, rate);
      attempted.add(row.id);
      try {
        const result = await source.deliver(row);
        // The lane waits for its mail's mark before its next mail: accepted-but-unmarked mails (what a SIGKILL can
        // send twice) are at most one per lane, while the marks of all lanes still share statements.
        const marked = new Promise<void>((done) => pendingMarks.push({ id: row.id, messageId: result ? result.messageId : undefined, at: Date.now(), done }));
        stats.sent++;
        void flush();
        await marked;
        if (markError) return;
      } catch (err) {
        if (source.isRefusal(err)) {
          stats.refused++;
          await source.markRefused(row, err as Error);
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
    await flush();
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

/* ------------------------------------------------------------------------------------------- transport */

/** A pooled SMTP transport per URL and process: `connections` connections kept open, any number of mails each. */
export function pooledTransport(smtpUrl: string, connections = bulkConnections()) {
  const url = new URL(smtpUrl);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', String(connections));
  if (!url.searchParams.has('maxMessages')) url.searchParams.set('maxMessages', 'Infinity');
  const href = url.toString();
  return singleton(`bulk-smtp:${href}`, () => nodemailer.createTransport(href));
}

/** SMTP connections (and concurrent sends) of a bulk send: PARLEY_BULK_SMTP_CONNECTIONS, 8 by default. */
export function bulkConnections() {
  const n = Number(process.env.PARLEY_BULK_SMTP_CONNECTIONS ?? 8);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 32) : 8;
}

/** Sends prepared bytes with an explicit envelope: no per-mail MIME composing (raw-mime.server.ts). */
export async function sendRawMail(transport: nodemailer.Transporter, mail: RawMail) {
  await transport.sendMail({ envelope: { from: addressOf(mail.from), to: [mail.to] }, raw: buildRawMail(mail) });
  return { messageId: mail.messageId };
}

/** A 5xx answer to RCPT TO: the server refuses this recipient for good (a transport failure is anything else). */
export const isSmtpRecipientRefusal = (err: unknown) =>
  /^5\d\d$/.test(String((err as { responseCode?: number }).responseCode ?? '')) && (err as { command?: string }).command === 'RCPT TO';
