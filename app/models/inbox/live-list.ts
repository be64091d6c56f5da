import type { ConversationStatus } from '../../../db/schema/inbox-constants';
import { CONVERSATION_STATUSES, PRIORITIES } from '../../../db/schema/inbox-constants';
import type { ConversationFilters } from './filters';

/**
 * Live updates of the inbox list at O(1) per agent (ADR 045), in pure functions shared by the websocket server and
 * the browser: which topics a live message concerns, the side panel's counts for one agent's filters from the
 * account's count groups, and how a patch (changed rows) is applied to the page an agent has open.
 */

/** The topic of the inbox list: every agent with the list open watches it. */
export const INBOX_TOPIC = 'inbox';
export const conversationTopic = (id: number) => `conversation:${id}`;

type Message = { type: string; conversationId?: unknown; kind?: unknown; importId?: unknown };

/** Messages that change what the inbox list shows (the list patches itself from the row the server sends). */
export const LIST_MESSAGE_TYPES = new Set(['conversation.created', 'conversation.updated', 'conversation.deleted', 'message.created', 'message.deleted']);

/**
 * The topics a message concerns, or null when it is for every socket of the account (or of the user it names).
 * A conversation's messages reach its viewers; those that change a list row reach the list's watchers too.
 */
export function topicsOf(m: Message): string[] | null {
  const id = typeof m.conversationId === 'number' ? m.conversationId : null;
  if (m.type === 'liveview.updated') return ['liveview'];
  if (m.type === 'import.progress') return [`import:${String(m.importId)}`];
  if (id === null) return null;
  if (m.type === 'widget.typing' || m.type === 'presence') return [conversationTopic(id)];
  if (m.type.startsWith('conversation.') || m.type.startsWith('message.')) {
    return LIST_MESSAGE_TYPES.has(m.type) ? [conversationTopic(id), INBOX_TOPIC] : [conversationTopic(id)];
  }
  return null;
}

/** The filters that shape the side panel's counts and the list's total (what an agent tells the server it watches). */
export type CountFilters = Pick<ConversationFilters, 'status' | 'inbox' | 'assignee' | 'team' | 'priority' | 'source'>;

/** One group of the account's count deltas, summed: [status, inboxId, assigneeId, teamId, priority rank, sourceType, n]. */
export type CountGroup = { status: string; inboxId: number; assigneeId: number | null; teamId: number | null; priority: number; sourceType: string; n: number };

export type SideCounts = { byStatus: Partial<Record<ConversationStatus, number>>; byInbox: Record<number, number>; approximate: boolean };

/** The side panel's counts for one agent's filters, the same answer as countConversationsFromDeltas. */
export function countsFromGroups(groups: CountGroup[], f: CountFilters, userId: number): SideCounts {
  const assignee = f.assignee === 'mine' ? userId : f.assignee === 'unassigned' ? null : f.assignee ? Number(f.assignee) : undefined;
  const priority = f.priority ? PRIORITIES.indexOf(f.priority) : undefined;
  const wantedStatus = f.status === 'all' ? undefined : (f.status ?? 'open');
  const byStatus: Partial<Record<ConversationStatus, number>> = {};
  const byInbox: Record<number, number> = {};
  for (const g of groups) {
    if (g.n === 0) continue;
    if (assignee !== undefined && g.assigneeId !== assignee) continue;
    if (f.team && g.teamId !== f.team) continue;
    if (priority !== undefined && g.priority !== priority) continue;
    if (f.source && g.sourceType !== f.source) continue;
    const status = g.status as ConversationStatus;
    if (!f.inbox || g.inboxId === f.inbox) byStatus[status] = (byStatus[status] ?? 0) + g.n;
    if (!wantedStatus || status === wantedStatus) byInbox[g.inboxId] = (byInbox[g.inboxId] ?? 0) + g.n;
  }
  return { byStatus, byInbox, approximate: false };
}

/** The list's total under its filters, from the side panel's counts (as totalFromDeltas). */
export function totalFromCounts(counts: SideCounts, f: CountFilters) {
  if (f.inbox) {
    const wanted = f.status === 'all' ? undefined : (f.status ?? 'open');
    return wanted ? (counts.byStatus[wanted] ?? 0) : CONVERSATION_STATUSES.reduce((n, s) => n + (counts.byStatus[s] ?? 0), 0);
  }
  if (f.status === 'all') return CONVERSATION_STATUSES.reduce((n, s) => n + (counts.byStatus[s] ?? 0), 0);
  return Object.values(counts.byInbox).reduce((n, v) => n + v, 0);
}

/** What a row already on the page needs to be ordered among changed ones (the page's rows carry only what they show, ADR 136). */
export type PlacedRow = {
  id: number;
  priority: string;
  lastMessageAt: Date | string;
  createdAt: Date | string;
};

/** What a changed row of a live patch needs to be filtered and placed on the client (it also has what a row shows). */
export type LiveRow = PlacedRow & {
  status: string;
  sourceType: string;
  inboxId: number;
  assigneeId: number | null;
  teamId?: number | null;
};

const DATE_FIELDS = ['lastMessageAt', 'createdAt', 'snoozedUntil', 'firstResponseDueAt', 'resolveDueAt', 'firstRespondedAt', 'responseBreachedAt', 'resolveBreachedAt'];

/** A row as JSON brought it (dates as strings) with its dates made Dates again, as the loader's rows are. */
export function reviveRow<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const k of DATE_FIELDS) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as T;
}

/** Whether the list's filters can be checked here: a text search or a tag filter needs the database. */
export function patchable(f: ConversationFilters) {
  return !f.q && !f.tag;
}

/** Whether a row belongs in a list under these filters (text and tag filters excluded: see patchable). */
export function rowMatches(row: LiveRow, f: ConversationFilters, userId: number) {
  if (f.status !== 'all' && row.status !== (f.status ?? 'open')) return false;
  if (f.inbox && row.inboxId !== f.inbox) return false;
  if (f.assignee === 'mine' && row.assigneeId !== userId) return false;
  if (f.assignee === 'unassigned' && row.assigneeId !== null) return false;
  if (f.assignee && f.assignee !== 'mine' && f.assignee !== 'unassigned' && row.assigneeId !== Number(f.assignee)) return false;
  if (f.team && row.teamId !== f.team) return false;
  if (f.priority && row.priority !== f.priority) return false;
  if (f.source && row.sourceType !== f.source) return false;
  return true;
}

const time = (d: Date | string) => new Date(d).getTime();

/** The list's order (listConversations' ORDER BY) as a comparator: negative when a comes first. */
export function compareRows(f: ConversationFilters) {
  const sign = f.dir === 'asc' ? 1 : -1;
  if (f.sort === 'created') return (a: PlacedRow, b: PlacedRow) => sign * (a.id - b.id);
  if (f.sort === 'priority') {
    return (a: PlacedRow, b: PlacedRow) =>
      sign * (PRIORITIES.indexOf(a.priority as never) - PRIORITIES.indexOf(b.priority as never)) || -(time(a.lastMessageAt) - time(b.lastMessageAt));
  }
  return (a: PlacedRow, b: PlacedRow) => sign * (time(a.lastMessageAt) - time(b.lastMessageAt)) || sign * (a.id - b.id);
}

/**
 * Applies changed rows to the page an agent has open: a row still matching is replaced and moved to its place; one
 * that no longer matches (or was deleted) leaves; a new matching row comes in where the order puts it, if that is on
 * this page (before the last row of a full page; on the first page, before everything too). The page never grows
 * past its size. Rows that would belong to other pages are not known here and are left to the next load.
 */
export function applyRows<R extends PlacedRow>(
  page: { rows: R[]; page: number; pageSize: number },
  changed: (R & LiveRow)[],
  removed: number[],
  f: ConversationFilters,
  userId: number,
): R[] {
  const cmp = compareRows(f);
  const gone = new Set(removed);
  const changedIds = new Set(changed.map((r) => r.id));
  let rows = page.rows.filter((r) => !gone.has(r.id) && !changedIds.has(r.id));
  const wasFull = page.rows.length >= page.pageSize;
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  for (const row of changed) {
    if (gone.has(row.id) || !rowMatches(row, f, userId)) continue;
    const wasHere = page.rows.some((r) => r.id === row.id);
    // A row new to this page: it belongs here only if it sorts within the page's range.
    if (!wasHere) {
      if (page.page > 1 && first && cmp(row, first) < 0) continue;
      if (wasFull && last && cmp(row, last) > 0) continue;
    }
    const at = rows.findIndex((r) => cmp(row, r) < 0);
    rows = at === -1 ? [...rows, row] : [...rows.slice(0, at), row, ...rows.slice(at)];
  }
  return rows.slice(0, page.pageSize);
}
