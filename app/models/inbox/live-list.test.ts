import { describe, expect, it } from 'vitest';
import { applyRows, countsFromGroups, topicsOf, totalFromCounts, type CountGroup, type LiveRow } from './live-list';

const row = (id: number, over: Partial<LiveRow> = {}): LiveRow => ({
  id,
  status: 'open',
  priority: 'default',
  sourceType: 'email',
  inboxId: 1,
  assigneeId: null,
  teamId: null,
  lastMessageAt: new Date(id * 1000),
  createdAt: new Date(id * 1000),
  ...over,
});

describe('live inbox list', () => {
  it('routes conversation messages to viewers and list watchers, typing to viewers only', () => {
    expect(topicsOf({ type: 'conversation.created', conversationId: 5 })).toEqual(['conversation:5', 'inbox']);
    expect(topicsOf({ type: 'message.updated', conversationId: 5 })).toEqual(['conversation:5']);
    expect(topicsOf({ type: 'widget.typing', conversationId: 5 })).toEqual(['conversation:5']);
    expect(topicsOf({ type: 'notification' })).toBeNull();
  });

  it('places a new row by the order, replaces a changed one, drops one that no longer matches', () => {
    const page = { rows: [row(9), row(7), row(5)], page: 1, pageSize: 3 };
    // Newest first: #10 comes in on top and the page keeps its size.
    expect(applyRows(page, [row(10)], [], {}, 1).map((r) => r.id)).toEqual([10, 9, 7]);
    // Older than the last row of a full page: belongs to a later page.
    expect(applyRows(page, [row(1)], [], {}, 1).map((r) => r.id)).toEqual([9, 7, 5]);
    // A new message moves #5 to the top; resolving #9 takes it off the open list; a deleted row leaves.
    expect(applyRows(page, [row(5, { lastMessageAt: new Date(20_000) }), row(9, { status: 'resolved' })], [7], {}, 1).map((r) => r.id)).toEqual([5]);
    // Another agent's conversation does not enter "mine"; page 2 does not take rows that sort before it.
    expect(applyRows(page, [row(10, { assigneeId: 2 })], [], { assignee: 'mine' }, 1).map((r) => r.id)).toEqual([9, 7, 5]);
    expect(applyRows({ ...page, page: 2 }, [row(10)], [], {}, 1).map((r) => r.id)).toEqual([9, 7, 5]);
  });

  it("computes one agent's side panel counts and total from the account's groups", () => {
    const g = (status: string, inboxId: number, assigneeId: number | null, n: number): CountGroup => ({ status, inboxId, assigneeId, teamId: null, priority: 0, sourceType: 'email', n });
    const groups = [g('open', 1, 7, 3), g('open', 2, null, 2), g('resolved', 1, 7, 4), g('pending', 2, 8, 0)];
    expect(countsFromGroups(groups, {}, 7)).toEqual({ byStatus: { open: 5, resolved: 4 }, byInbox: { 1: 3, 2: 2 }, approximate: false });
    const mine = countsFromGroups(groups, { assignee: 'mine', status: 'all' }, 7);
    expect(mine).toEqual({ byStatus: { open: 3, resolved: 4 }, byInbox: { 1: 7 }, approximate: false });
    expect(totalFromCounts(mine, { assignee: 'mine', status: 'all' })).toBe(7);
    expect(totalFromCounts(countsFromGroups(groups, { inbox: 2 }, 7), { inbox: 2 })).toBe(2);
  });
});
