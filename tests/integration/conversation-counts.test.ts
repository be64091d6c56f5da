import { and, eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import {
  assignConversations,
  countConversations,
  deleteConversations,
  moveConversations,
  openConversation,
  setConversationPriority,
  setConversationStatus,
} from '../../app/models/inbox/conversations.server';
import { foldCountDeltas } from '../../app/models/inbox/conversation-counts.server';
import { createTestAccount } from '../factories';

/** The side panel's counts straight from the conversations, as countConversations computed them before ADR 032. */
async function exactCounts(accountId: number, assigneeId?: number) {
  const c = schema.conversations;
  const rows = await getDb()
    .select({ status: c.status, inboxId: c.inboxId, n: sql<number>`count(*)::int` })
    .from(c)
    .where(and(eq(c.accountId, accountId), isNull(c.deletedAt), assigneeId ? eq(c.assigneeId, assigneeId) : undefined))
    .groupBy(c.status, c.inboxId);
  const byStatus: Record<string, number> = {};
  const byInbox: Record<number, number> = {};
  for (const r of rows) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
    if (r.status === 'open') byInbox[r.inboxId] = (byInbox[r.inboxId] ?? 0) + r.n;
  }
  return { byStatus, byInbox };
}

describe('conversation counts kept by the writers', () => {
  it('follow opens, assignments, moves, status and priority changes and deletions, before and after folding, per account', async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const accountId = a.account.id;
    const inbox1 = await createInbox({ accountId, actorId: a.owner.id, name: 'One', channelType: 'email', email: 'one@counts.test' });
    const inbox2 = await createInbox({ accountId, actorId: a.owner.id, name: 'Two', channelType: 'email', email: 'two@counts.test' });
    const otherInbox = await createInbox({ accountId: b.account.id, actorId: b.owner.id, name: 'B', channelType: 'email', email: 'b@counts.test' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const { conversation } = await openConversation({
        accountId,
        inboxId: i % 2 ? inbox2.id : inbox1.id,
        sourceType: 'email',
        subject: `S${i}`,
        contact: { email: `c${i}@counts.test` },
        message: { kind: 'incoming', text: 'hi' },
      });
      ids.push(conversation.id);
    }
    await openConversation({ accountId: b.account.id, inboxId: otherInbox.id, sourceType: 'email', subject: 'B', contact: { email: 'x@counts.test' }, message: { kind: 'incoming', text: 'hi' } });
    const base = { accountId, actorId: a.owner.id };
    await assignConversations({ ...base, ids: [ids[0], ids[1]], assigneeId: a.owner.id });
    await moveConversations({ ...base, ids: [ids[2]], inboxId: inbox2.id });
    await setConversationStatus({ ...base, ids: [ids[3]], status: 'resolved' });
    await setConversationPriority({ ...base, ids: [ids[4]], priority: 'high' });
    await deleteConversations({ ...base, ids: [ids[5]] });

    const counted = async (filters = {}) => {
      const { byStatus, byInbox } = await countConversations({ accountId, userId: a.owner.id, filters });
      return { byStatus, byInbox };
    };
    const expected = await exactCounts(accountId);
    expect(expected.byStatus).toEqual({ open: 4, resolved: 1 });
    expect(await counted()).toEqual(expected);
    expect(await counted({ assignee: 'mine' })).toEqual(await exactCounts(accountId, a.owner.id));
    expect((await counted({ priority: 'high' })).byStatus).toEqual({ open: 1 });

    await foldCountDeltas(accountId);
    const [{ rows }] = await getDb().execute<{ rows: number }>(
      sql`select count(*)::int as rows from conversation_count_deltas where account_id = ${accountId}`,
    );
    expect(Number(rows)).toBeLessThan(6);
    expect(await counted()).toEqual(expected);
    expect((await countConversations({ accountId: b.account.id, userId: b.owner.id, filters: {} })).byStatus).toEqual({ open: 1 });
  });
});
