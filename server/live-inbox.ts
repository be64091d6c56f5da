import { readCountGroups } from '../app/models/inbox/conversation-counts.server';
import { listRowsByIds } from '../app/models/inbox/conversations.server';
import { countsFromGroups, type CountFilters } from '../app/models/inbox/live-list';

/** An agent's socket with the inbox list open: who it is and the filters its side panel counts under. */
export type InboxWatcher = { userId: number; filters: CountFilters; send: (text: string) => void };

/** Changes that arrive within this window are sent as one patch (a mass action on 50 rows is one message). */
const COALESCE_MS = Number(process.env.PARLEY_LIVE_COALESCE_MS ?? 100);

/**
 * The inbox list's live feed (ADR 045): conversation changes of an account are gathered for a moment, then the
 * changed rows and the account's count groups are read once — two or three indexed reads whatever the number
 * of agents — and each watching agent gets one small `inbox.patch`: the rows, the ids that left, and its own
 * side panel counts (computed here in memory; agents with the same filters share one serialized message).
 */
export function createInboxFeed(opts: { watchersOf: (accountId: number) => Iterable<InboxWatcher>; onError: (err: unknown) => void }) {
  const pending = new Map<number, Set<number>>();
  /** One flush at a time per account, in order, so an older read never lands after a newer one. */
  const chains = new Map<number, Promise<void>>();
  const stats = { flushes: 0, messages: 0, bytes: 0 };

  async function flush(accountId: number) {
    const ids = [...(pending.get(accountId) ?? [])];
    pending.delete(accountId);
    const watchers = [...opts.watchersOf(accountId)];
    if (ids.length === 0 || watchers.length === 0) return;
    const [rows, groups] = await Promise.all([listRowsByIds({ accountId, ids }), readCountGroups(accountId)]);
    const present = new Set(rows.map((r) => r.id));
    const removed = ids.filter((id) => !present.has(id));
    // The rows part is the same for everyone: serialized once; the counts once per distinct filter set.
    const head = `{"type":"inbox.patch","rows":${JSON.stringify(rows)},"removed":${JSON.stringify(removed)},"counts":`;
    const byKey = new Map<string, string>();
    stats.flushes += 1;
    for (const w of watchers) {
      const mine = w.filters.assignee === 'mine' ? w.userId : '';
      const key = `${JSON.stringify(w.filters)}|${mine}`;
      let text = byKey.get(key);
      if (text === undefined) {
        text = `${head}${JSON.stringify(countsFromGroups(groups, w.filters, w.userId))}}`;
        byKey.set(key, text);
      }
      w.send(text);
      stats.messages += 1;
      stats.bytes += text.length;
    }
  }

  return {
    stats,
    /** A conversation of the account changed (created, updated, deleted, or a message in it). */
    changed(accountId: number, conversationId: number) {
      const set = pending.get(accountId);
      if (set) return void set.add(conversationId);
      pending.set(accountId, new Set([conversationId]));
      const timer = setTimeout(() => {
        const next = (chains.get(accountId) ?? Promise.resolve()).then(() => flush(accountId)).catch(opts.onError);
        chains.set(accountId, next);
        void next.finally(() => {
          if (chains.get(accountId) === next) chains.delete(accountId);
        });
      }, COALESCE_MS);
      timer.unref?.();
    },
  };
}

const STATUSES = new Set(['open', 'pending', 'snoozed', 'resolved', 'all']);
const PRIORITY_NAMES = new Set(['default', 'low', 'medium', 'high', 'critical']);
const id = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 2_147_483_647 ? v : undefined);

/**
 * What a browser may ask to watch: the inbox list (with the filters its counts are under), the live view, or one
 * import's progress; anything else is null. The account and user come from the session, never from here.
 */
export function readWatchMessage(raw: string): { type: 'watch' | 'unwatch'; topic: string; filters?: CountFilters } | null {
  if (raw.length > 1000) return null;
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!msg || typeof msg !== 'object') return null;
  const m = msg as { type?: unknown; topic?: unknown; filters?: Record<string, unknown> };
  if (m.type !== 'watch' && m.type !== 'unwatch') return null;
  if (typeof m.topic !== 'string' || !/^(inbox|liveview|import:\d{1,15})$/.test(m.topic)) return null;
  if (m.type === 'unwatch' || m.topic !== 'inbox') return { type: m.type, topic: m.topic };
  const f = m.filters && typeof m.filters === 'object' ? m.filters : {};
  const filters: CountFilters = {};
  if (typeof f.status === 'string' && STATUSES.has(f.status)) filters.status = f.status as CountFilters['status'];
  if (id(f.inbox)) filters.inbox = id(f.inbox);
  if (id(f.team)) filters.team = id(f.team);
  if (f.assignee === 'mine' || f.assignee === 'unassigned' || (typeof f.assignee === 'string' && /^\d{1,9}$/.test(f.assignee))) filters.assignee = f.assignee;
  if (typeof f.priority === 'string' && PRIORITY_NAMES.has(f.priority)) filters.priority = f.priority as CountFilters['priority'];
  if (typeof f.source === 'string' && /^[a-z_]{1,40}$/.test(f.source)) filters.source = f.source as CountFilters['source'];
  return { type: 'watch', topic: 'inbox', filters };
}
