import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { sendLive, useLiveEvent, useLiveReload, useLiveWatch } from '~/components/shell/use-live';
import type { PresenceUsers } from '~/models/inbox/presence.server';
import type { ConversationFilters } from '~/models/inbox/filters';
import { applyRows, INBOX_TOPIC, patchable, reviveRow, totalFromCounts, type LiveRow, type PlacedRow, type SideCounts } from '~/models/inbox/live-list';

type LiveMessage = { type: string; conversationId?: unknown; [k: string]: unknown };

/**
 * Presence on a conversation: tells the server this tab views it (again after every reconnect, announced by
 * the server's 'hello') and returns who else does. Without JavaScript there is simply no presence line.
 */
export function usePresence(conversationId: number, selfId: number) {
  const [users, setUsers] = useState<PresenceUsers>([]);
  useEffect(() => {
    setUsers([]);
    sendLive({ type: 'viewing', conversationId });
    return () => {
      sendLive({ type: 'left' });
    };
  }, [conversationId]);
  const onLive = useCallback(
    (m: LiveMessage) => {
      if (m.type === 'hello') sendLive({ type: 'viewing', conversationId });
      else if (m.type === 'presence' && m.conversationId === conversationId && Array.isArray(m.users)) setUsers(m.users as PresenceUsers);
    },
    [conversationId]
  );
  useLiveEvent(onLive);
  return users.filter((u) => u.id !== selfId);
}

type ListPage<R> = { rows: R[]; total: number; totalCapped: boolean; page: number; pageSize: number };
type Patch = { type: 'inbox.patch'; rows: Record<string, unknown>[]; removed: number[]; counts: SideCounts };

/** The list's total is capped as listConversations caps it. */
const COUNT_CAP = 10_000;

/**
 * The inbox list kept current by the server's `inbox.patch` messages (ADR 045): the changed rows are placed on the
 * page (or taken off it) and the side panel's counts replaced, with no reload. A list under a text or tag filter
 * (which only the database can check) reloads its own loader instead, at most every few seconds; so does a page that
 * lost many rows to changes (to fill up again). Without JavaScript the page is what the server rendered.
 */
export function useLiveInboxList<R extends PlacedRow>(data: { list: ListPage<R>; counts: SideCounts; filters: ConversationFilters; userId: number }) {
  const { filters, userId } = data;
  const base = useMemo(() => ({ rows: data.list.rows, counts: data.counts, total: data.list.total, totalCapped: data.list.totalCapped }), [data]);
  const [patched, setPatched] = useState<{ from: typeof base; state: typeof base } | null>(null);
  const current = patched && patched.from === base ? patched.state : base;
  const reload = useLiveReload({ minIntervalMs: 3000 });
  const countFilters = useMemo(
    () => ({ status: filters.status, inbox: filters.inbox, assignee: filters.assignee, team: filters.team, priority: filters.priority, source: filters.source }),
    [filters.status, filters.inbox, filters.assignee, filters.team, filters.priority, filters.source],
  );
  useLiveWatch(INBOX_TOPIC, countFilters);

  const latest = useRef({ base, current });
  latest.current = { base, current };
  const onLive = useCallback(
    (m: { type: string }) => {
      if (m.type === 'hello' || m.type === 'missed') return reload();
      if (m.type !== 'inbox.patch') return;
      if (!patchable(filters)) return reload();
      const p = m as Patch;
      const { base: from, current: state } = latest.current;
      const page = { rows: state.rows, page: data.list.page, pageSize: data.list.pageSize };
      const rows = applyRows(page, p.rows.map((r) => reviveRow(r)) as unknown as (R & LiveRow)[], p.removed, filters, userId);
      const total = totalFromCounts(p.counts, filters);
      const next = { rows, counts: p.counts, total: Math.min(total, COUNT_CAP), totalCapped: total > COUNT_CAP };
      latest.current = { base: from, current: next };
      setPatched({ from, state: next });
      // A page that shrank well below its size while more rows exist beyond it: reload to fill it.
      if (rows.length <= page.pageSize - 10 && total > (page.page - 1) * page.pageSize + rows.length) reload();
    },
    [filters, userId, reload, data.list.page, data.list.pageSize],
  );
  useLiveEvent(onLive);
  return current;
}
