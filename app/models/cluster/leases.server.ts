import { sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db/client';
import { nodeId } from './node.server';

/**
 * Leases: work that exactly one node of the cluster may do at a time (an inbox's IMAP connection, a periodic sweep),
 * held in `cluster_leases` as (key, holder, expiresAt).
 *
 * - Taking and renewing are one statement, for any number of keys: an upsert that only overwrites a row whose lease
 *   has expired or is already the caller's. PostgreSQL's row lock on the key decides between two nodes racing.
 * - Every time comes from the database's clock (`now()`), so nodes whose clocks disagree still agree on expiry.
 * - A holder renews well before expiry; a holder that dies (SIGKILL, no release) loses its leases at expiry and the
 *   next node to try takes them. A graceful stop deletes the rows and NOTIFYs LEASE_CHANNEL, so others take over at once.
 * - A holder that cannot renew (database unreachable) must stop the work before the lease could have expired, by its
 *   own clock, counted from the moment it *sent* the last statement that renewed it (the database's `now()` in that
 *   statement is later still, so the real expiry is later than the local deadline): `keepLeases` does this.
 */
export const LEASE_CHANNEL = 'parley_leases';

export type LeaseState = {
  key: string;
  /** The caller holds it now. */
  held: boolean;
  /** Milliseconds until the lease (the caller's or the other holder's) expires, by the database's clock. */
  msLeft: number;
};

/**
 * Takes the keys that are free or expired and renews those the holder already has, for ttlMs from now; one statement.
 * Returns every key's state: a key held by someone else comes back `held: false` with the time its lease has left.
 */
export async function acquireLeases(opts: { keys: string[]; ttlMs: number; holder?: string }, db: DbOrTx = getDb()): Promise<LeaseState[]> {
  if (opts.keys.length === 0) return [];
  const holder = opts.holder ?? nodeId();
  const keys = JSON.stringify([...new Set(opts.keys)]);
  const rows = await db.execute<{ key: string; held: boolean; ms_left: number | string | null }>(sql`
    with wanted as (select jsonb_array_elements_text(${keys}::jsonb) as key),
    took as (
      insert into cluster_leases (key, holder, acquired_at, expires_at)
      select key, ${holder}, now(), now() + make_interval(secs => ${opts.ttlMs / 1000}) from wanted
      on conflict (key) do update
        set holder = excluded.holder,
            expires_at = excluded.expires_at,
            acquired_at = case when cluster_leases.holder = excluded.holder then cluster_leases.acquired_at else now() end
        where cluster_leases.expires_at <= now() or cluster_leases.holder = excluded.holder
      returning key, expires_at
    )
    select w.key, t.key is not null as held,
      extract(epoch from (coalesce(t.expires_at, l.expires_at) - now())) * 1000 as ms_left
    from wanted w
    left join took t on t.key = w.key
    left join cluster_leases l on l.key = w.key`);
  return rows.map((r) => ({ key: r.key, held: Boolean(r.held), msLeft: Math.max(0, Number(r.ms_left ?? 0)) }));
}

/** Gives the holder's leases up now and tells the other nodes (LEASE_CHANNEL, the key as payload) so one takes over at once. */
export async function releaseLeases(opts: { keys: string[]; holder?: string }, db: DbOrTx = getDb()) {
  if (opts.keys.length === 0) return [];
  const holder = opts.holder ?? nodeId();
  const rows = await db.execute<{ key: string }>(sql`
    with gone as (
      delete from cluster_leases where key in (select jsonb_array_elements_text(${JSON.stringify(opts.keys)}::jsonb)) and holder = ${holder}
      returning key
    )
    select key, pg_notify(${LEASE_CHANNEL}, key) from gone`);
  return rows.map((r) => r.key);
}

/** The unexpired leases whose key starts with the prefix, and who holds them (for status pages and tests). */
export async function listLeases(opts: { prefix: string }, db: DbOrTx = getDb()) {
  const rows = await db.execute<{ key: string; holder: string; acquired_at: string | Date; expires_at: string | Date }>(sql`
    select key, holder, acquired_at, expires_at from cluster_leases
    where starts_with(key, ${opts.prefix}) and expires_at > now() order by key`);
  return rows.map((r) => ({ key: r.key, holder: r.holder, acquiredAt: new Date(r.acquired_at), expiresAt: new Date(r.expires_at) }));
}

export type LeaseKeeper = {
  /** The keys this node holds now (and may work on until told otherwise). */
  held: () => ReadonlySet<string>;
  /** A round now: releases what is no longer wanted, renews what is held, tries the rest. */
  refresh: () => Promise<void>;
  /** Stops renewing. Releases what it holds unless `release: false` (as a killed process would: others wait for expiry). */
  stop: (opts?: { release?: boolean }) => Promise<void>;
};

export const LEASE_TTL_MS = 25_000;
export const LEASE_RENEW_MS = 10_000;

/**
 * Keeps the leases of the keys `wanted()` names: one statement per round for all of them, a round every renewMs, plus
 * one just after a lease held elsewhere expires (so a dead holder's work is taken over at expiry, not up to renewMs
 * later) and one when a holder releases (LEASE_CHANNEL, if the caller listens and calls `refresh`).
 *
 * Nothing happens until the first `refresh()`; each round then schedules the next. `onChange` hears of keys gained and lost. A key is lost when a round finds it held by someone else, when it is no
 * longer wanted, or when renewals failed until its local deadline: ttlMs after the last successful round was sent,
 * less a safety margin for stopping the work, so two nodes never do it at once for longer than a stop takes.
 */
export function keepLeases(opts: {
  wanted: () => string[];
  /** Awaited by the round that found the change (not by a deadline passing, which must not wait for anything). */
  onChange: (change: { gained: string[]; lost: string[] }) => void | Promise<void>;
  holder?: string;
  ttlMs?: number;
  renewMs?: number;
  /** How long before the local deadline the work is stopped (default a fifth of the TTL, at most 5 s). */
  marginMs?: number;
  onError?: (err: unknown) => void;
  /** Tests stand a failing database in here. */
  acquire?: typeof acquireLeases;
  release?: typeof releaseLeases;
}): LeaseKeeper {
  const ttlMs = opts.ttlMs ?? LEASE_TTL_MS;
  const renewMs = opts.renewMs ?? LEASE_RENEW_MS;
  const marginMs = opts.marginMs ?? Math.min(5000, ttlMs / 5);
  const holder = opts.holder ?? nodeId();
  const acquire = opts.acquire ?? acquireLeases;
  const release = opts.release ?? releaseLeases;
  /** Held keys and the local time (performance.now) by which their work must have stopped unless renewed. */
  const deadlines = new Map<string, number>();
  let stopped = false;
  let roundTimer: NodeJS.Timeout | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();

  const changed = async (gained: string[], lost: string[]) => {
    if (gained.length || lost.length) await opts.onChange({ gained, lost });
  };

  const armDeadline = () => {
    clearTimeout(deadlineTimer);
    if (stopped || deadlines.size === 0) return;
    const first = Math.min(...deadlines.values());
    deadlineTimer = setTimeout(expire, Math.max(0, first - performance.now()));
    deadlineTimer.unref();
  };
  // Not behind the rounds: a round stuck on an unreachable database must not delay stopping the work.
  function expire() {
    const now = performance.now();
    const lost = [...deadlines].filter(([, at]) => at <= now).map(([key]) => key);
    for (const key of lost) deadlines.delete(key);
    if (lost.length) opts.onError?.(new Error(`lease renewal failed, stopping ${lost.join(', ')}`));
    changed([], lost).catch((err) => opts.onError?.(err));
    armDeadline();
  }

  const schedule = (ms: number) => {
    clearTimeout(roundTimer);
    if (stopped) return;
    roundTimer = setTimeout(() => void refresh(), ms);
    roundTimer.unref();
  };

  async function round() {
    if (stopped) return;
    const wanted = new Set(opts.wanted());
    const unwanted = [...deadlines.keys()].filter((key) => !wanted.has(key));
    let next = renewMs;
    try {
      if (unwanted.length) {
        for (const key of unwanted) deadlines.delete(key);
        // The work stops before the lease goes, so that the next holder never overlaps with it.
        await changed([], unwanted);
        await release({ keys: unwanted, holder });
      }
      const sentAt = performance.now();
      // A statement that hangs (database unreachable) counts as failed; if it succeeds later, the next round renews.
      let timer: NodeJS.Timeout | undefined;
      const states = await Promise.race([
        acquire({ keys: [...wanted], ttlMs, holder }),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('lease round timed out')), Math.min(renewMs, ttlMs / 3)))),
      ]).finally(() => clearTimeout(timer));
      if (stopped) return;
      const gained: string[] = [];
      const lost: string[] = [];
      for (const s of states) {
        if (s.held) {
          if (!deadlines.has(s.key)) gained.push(s.key);
          deadlines.set(s.key, sentAt + ttlMs - marginMs);
        } else {
          if (deadlines.delete(s.key)) lost.push(s.key);
          // Held elsewhere: try again just after it expires, should its holder not renew it.
          next = Math.min(next, s.msLeft + 50);
        }
      }
      await changed(gained, lost);
    } catch (err) {
      opts.onError?.(err);
    }
    armDeadline();
    schedule(Math.max(next, Math.min(250, renewMs)));
  }

  function refresh() {
    chain = chain.then(round, round);
    return chain;
  }

  return {
    held: () => new Set(deadlines.keys()),
    refresh,
    stop: async (o = {}) => {
      stopped = true;
      clearTimeout(roundTimer);
      clearTimeout(deadlineTimer);
      await chain;
      const keys = [...deadlines.keys()];
      deadlines.clear();
      if (o.release !== false && keys.length) await release({ keys, holder }).catch((err) => opts.onError?.(err));
    },
  };
}

/**
 * Periodic work that one node at a time does (the presence sweep): every `everyMs` each node sends one statement for
 * the lease; the holder renews it and runs the work. The lease lasts 1.5 ticks, so its holder keeps it from one tick
 * to the next and, should it die, another node takes over within about 2.5 ticks. A stop releases it.
 */
export function everyOnOneNode(opts: { key: string; everyMs: number; run: () => Promise<unknown>; holder?: string; onError?: (err: unknown) => void }) {
  const holder = opts.holder ?? nodeId();
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = async () => {
    if (stopped) return;
    running ??= (async () => {
      const [state] = await acquireLeases({ keys: [opts.key], ttlMs: opts.everyMs * 1.5, holder });
      if (state?.held && !stopped) await opts.run();
    })()
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        running = null;
      });
    await running;
  };
  const timer = setInterval(() => void tick(), opts.everyMs);
  timer.unref();
  return {
    /** A tick now (tests; a start-up catching up). */
    tick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await releaseLeases({ keys: [opts.key], holder }).catch((err) => opts.onError?.(err));
    },
  };
}
