import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { schema, type Tx } from '../../../db/client';
import type { Facts } from '../../../engine/rules/evaluate';
import { actorFields, emitEvents, type Cause, type EmitEventInput } from '../events/events.server';
import { publishToAccount } from '../../utils/live.server';
import { mentionTokens } from '../notifications/mentions';
import type { RuleAction } from './rule-types';
import { PRIORITIES, type Priority } from '../../../db/schema/inbox-constants';
import { priorityRank } from '../inbox/filters';

/**
 * The actions of many events applied set-based (ADR 109): all `assign_tag` actions on conversations of a batch in one
 * insert, all `leave_note` actions in one insert of messages and one update of their conversations, their domain
 * events in one insert. Each does exactly what the one-by-one domain function does (`tagConversations`,
 * `postMessage`): same rows, same events with the same actor and cause, same live updates, same run-history text.
 * An item the bulk path cannot judge the way the domain function would (a tag or conversation that is not there,
 * which makes the domain function refuse) answers `null`: the caller runs that one through `applyAction`, which
 * says why it skips. The caller runs a group in a savepoint and, when the statement fails, falls back to the
 * one-by-one path for the whole group.
 */
export type BulkItem = { accountId: number; action: RuleAction; facts: Facts; cause: Cause };
export type BulkKind = 'tags' | 'notes' | 'assign' | 'priority' | 'status';

/** Which bulk group an action belongs to, or null for the one-by-one path. */
export function bulkKind(item: { action: RuleAction; facts: Facts }): BulkKind | null {
  if (!item.facts.conversation) return null;
  if (item.action.type === 'assign_tag' && (item.action.tagIds?.length ?? 0) > 0) return 'tags';
  if (item.action.type === 'leave_note' && typeof item.action.note === 'string') return 'notes';
  if (item.action.type === 'assign_user' && typeof item.action.userId === 'number') return 'assign';
  if (item.action.type === 'set_priority' && PRIORITIES.includes(item.action.priority as Priority)) return 'priority';
  // Resolving also stops the conversation's timers (ADR 071), and snoozing is not an action: those stay one by one.
  if (item.action.type === 'set_status' && (item.action.status === 'open' || item.action.status === 'pending')) return 'status';
  return null;
}

/** Tags and notes touch different rows: a run of them may be applied in any order (an assignment may not). */
export const COMMUTING_KINDS: readonly BulkKind[] = ['tags', 'notes'];

/**
 * Applies one group; answers, per item, the run-history result, or null when that item must go one by one. Without
 * a memo its message counts are written before it returns; with one they wait in the memo for `bulkCountsFlush`.
 */
export async function applyActionsInBulk(tx: Tx, kind: BulkKind, items: BulkItem[], memo?: BulkMemo): Promise<(string | null)[]> {
  const m = memo ?? newBulkMemo();
  const results = kind !== 'tags' && kind !== 'notes' ? await changeInBulk(tx, kind, items, m) : (await applyCommutingInBulk(tx, [{ kind, items }], m))[0];
  if (!memo) await flushBulkCounts(tx, m);
  return results;
}

/**
 * What one transaction's steps share (ADR 131):
 * - the names of the tags already read: a tag the transaction has seen stays the account's until it commits, or the
 *   insert's foreign key fails and the group goes one by one;
 * - which conversations are there (not deleted), read once: the caller forgets them (`forgetLive`) whenever an
 *   action runs one by one, since that one may delete its conversation;
 * - the message counts (and notes' words for search) the groups added, written once for the transaction
 *   (`bulkCounts`): `addMessage` adds one per message, and nothing in between reads them.
 */
export type BulkMemo = {
  tagNames: Map<string, string>;
  /** Every tag the transaction's actions name, per account: the first read takes them all. */
  tagsAhead: Map<number, Set<number>>;
  live: Map<string, boolean>;
  counts: { account_id: number; conversation_id: number; text: string | null }[];
};
export const newBulkMemo = (): BulkMemo => ({ tagNames: new Map(), tagsAhead: new Map(), live: new Map(), counts: [] });
export const forgetLive = (memo: BulkMemo) => memo.live.clear();

/** The memo's message counts as one update of their conversations (a statement the caller may embed). */
export function bulkCounts(memo: BulkMemo) {
  if (memo.counts.length === 0) return null;
  const c = schema.conversations;
  // The ids again as an array the primary key can take: joined only to the record set (estimated at 100 rows), the
  // planner scanned every conversation of the database, a cost that grew with the accounts.
  const ids = `{${[...new Set(memo.counts.map((r) => r.conversation_id))].join(',')}}`;
  return sql`
    update ${c} set message_count = ${c.messageCount} + x.n,
           search = case when x.text is null then ${c.search} else strip(coalesce(${c.search}, ''::tsvector) || to_tsvector('simple', x.text)) end,
           updated_at = ${new Date().toISOString()}::timestamptz
      from (select account_id, conversation_id, count(*)::int as n, string_agg(text, ' ') as text
              from jsonb_to_recordset(${JSON.stringify(memo.counts)}::jsonb) as r(account_id int, conversation_id int, text text)
             group by account_id, conversation_id) x
     where ${c.id} = x.conversation_id and ${c.accountId} = x.account_id and ${c.id} = any(${ids}::int[])`;
}

async function flushBulkCounts(tx: Tx, memo: BulkMemo) {
  const stmt = bulkCounts(memo);
  memo.counts = [];
  if (stmt) await tx.execute(stmt);
}

type Written = { results: (string | null)[]; events: EmitEventInput[]; live: LiveUpdate[] };
type LiveUpdate = { accountId: number; message: Parameters<typeof publishToAccount>[1] };

/**
 * The tag and note groups of one step together (ADR 131): one read of their conversations, the tags' names from
 * the transaction's memo (read once), one insert of the tags, one insert of the notes and one update of their
 * conversations, and every domain event of the step in one `emitEvents` (one insert, one enqueue of the wanted
 * ones), in the order of the groups. Answers each group's results, in order.
 */
export async function applyCommutingInBulk(
  tx: Tx,
  groups: { kind: 'tags' | 'notes'; items: BulkItem[] }[],
  memo: BulkMemo,
): Promise<(string | null)[][]> {
  const live = await liveConversations(
    tx,
    groups.flatMap((g) => g.items),
    memo,
  );
  const written: Written[] = [];
  for (const g of groups) written.push(g.kind === 'tags' ? await tagInBulk(tx, g.items, live, memo) : await noteInBulk(tx, g.items, live, memo));
  await emitEvents(
    tx,
    written.flatMap((w) => w.events),
  );
  for (const w of written) for (const u of w.live) await publishToAccount(u.accountId, u.message, { tx });
  return written.map((w) => w.results);
}

const key = (accountId: number, id: number) => `${accountId}:${id}`;

/** A message row as `addMessage` writes a note or a system line from Parley: no sender, no email, no delivery. */
function parleyMessage(accountId: number, conversationId: number, kind: 'note' | 'system', text: string) {
  return {
    accountId,
    conversationId,
    kind,
    text,
    html: null,
    senderUserId: null,
    senderContactId: null,
    email: null,
    emailMessageId: null,
    deliveryStatus: null,
    deliveredVia: null,
    botId: null,
    fromTrustedDomain: false,
  };
}

/** The conversations of the items that exist and are not deleted, as `account:id` keys; read only for those the memo lacks. */
async function liveConversations(tx: Tx, items: BulkItem[], memo: BulkMemo) {
  const c = schema.conversations;
  const unknown = items.filter((i) => !memo.live.has(key(i.accountId, i.facts.conversation!.id)));
  if (unknown.length > 0) {
    const rows = await tx
      .select({ id: c.id, accountId: c.accountId })
      .from(c)
      .where(
        and(
          inArray(c.accountId, [...new Set(unknown.map((i) => i.accountId))]),
          inArray(c.id, [...new Set(unknown.map((i) => i.facts.conversation!.id))]),
          isNull(c.deletedAt),
        ),
      );
    for (const i of unknown) memo.live.set(key(i.accountId, i.facts.conversation!.id), false);
    for (const r of rows) memo.live.set(key(r.accountId, r.id), true);
  }
  return new Set([...memo.live].filter(([, alive]) => alive).map(([k]) => k));
}

/**
 * `tagConversations` for many (conversation, tags) pairs: the tags the transaction has not seen yet in one read, one
 * insert. The tags one rule adds to one conversation for one event in this step are one `conversation_updated`
 * event listing them all (ADR 131), as `tagConversations` writes for one call with several tags.
 */
async function tagInBulk(tx: Tx, items: BulkItem[], live: Set<string>, memo: BulkMemo): Promise<Written> {
  const t = schema.tags;
  const names = memo.tagNames;
  const unseen = items.filter((i) => i.action.tagIds!.some((id) => !names.has(key(i.accountId, id))));
  if (unseen.length > 0) {
    const accounts = [...new Set(unseen.map((i) => i.accountId))];
    const ids = new Set([...unseen.flatMap((i) => i.action.tagIds!), ...accounts.flatMap((a) => [...(memo.tagsAhead.get(a) ?? [])])]);
    for (const a of accounts) memo.tagsAhead.delete(a);
    const tags = await tx
      .select({ id: t.id, accountId: t.accountId, name: t.name })
      .from(t)
      .where(and(inArray(t.accountId, accounts), inArray(t.id, [...ids])));
    for (const r of tags) names.set(key(r.accountId, r.id), r.name);
  }
  // tagConversations refuses the whole call when one of its tags is not the account's: those go one by one.
  const ok = items.map((i) => i.action.tagIds!.every((id) => names.has(key(i.accountId, id))));
  const pairs = new Map<string, { conversationId: number; tagId: number; accountId: number }>();
  items.forEach((i, n) => {
    const conv = i.facts.conversation!.id;
    if (!ok[n] || !live.has(key(i.accountId, conv))) return;
    for (const tagId of i.action.tagIds!) pairs.set(`${conv}:${tagId}`, { conversationId: conv, tagId, accountId: i.accountId });
  });
  const added = new Set(
    pairs.size === 0
      ? []
      : (
          await tx
            .insert(schema.conversationTags)
            .values([...pairs.values()])
            .onConflictDoNothing()
            .returning({ conversationId: schema.conversationTags.conversationId, tagId: schema.conversationTags.tagId })
        ).map((r) => `${r.conversationId}:${r.tagId}`),
  );
  // One event per (event, rule, conversation): its actor and cause are those of each of its tags.
  const eventOf = new Map<string, EmitEventInput & { payload: { changed: { tags: { added: number[] } } } }>();
  const results = items.map((i, n) => {
    if (!ok[n]) return null;
    const conv = i.facts.conversation!.id;
    // A pair two actions asked for was added by the first: the second adds nothing, as it would one by one.
    const mine = [...new Set(i.action.tagIds!)].filter((id) => added.delete(`${conv}:${id}`));
    if (mine.length > 0) {
      const k = `${i.accountId}:${conv}:${i.cause.eventId}:${i.cause.ruleId ?? ''}`;
      const e = eventOf.get(k);
      if (e) e.payload.changed.tags.added.push(...mine.filter((id) => !e.payload.changed.tags.added.includes(id)));
      else
        eventOf.set(k, {
          accountId: i.accountId,
          type: 'conversation_updated',
          subjectType: 'conversation',
          subjectId: conv,
          payload: { changed: { tags: { added: mine } } },
          ...actorFields({ actorId: null, cause: i.cause }),
        });
    }
    return `tagged conversation #${conv} with ${i.action.tagIds!.map((id) => names.get(key(i.accountId, id)) ?? `tag ${id}`).join(', ')}`;
  });
  const events = [...eventOf.values()];
  return {
    results,
    events,
    live: events.map((e) => ({ accountId: e.accountId, message: { type: 'conversation.updated', conversationId: Number(e.subjectId), changed: ['tags'] } })),
  };
}

/** `postMessage` of a note for many conversations: one insert of the messages, one update of their conversations. */
async function noteInBulk(tx: Tx, items: BulkItem[], live: Set<string>, memo: BulkMemo): Promise<Written> {
  const todo = items.map((i, n) => ({ i, n })).filter(({ i }) => live.has(key(i.accountId, i.facts.conversation!.id)));
  const results: (string | null)[] = items.map(() => null);
  if (todo.length === 0) return { results, events: [], live: [] };
  const m = schema.messages;
  // RETURNING gives the rows in the order of the VALUES list.
  const rows = await tx
    .insert(m)
    .values(
      todo.map(({ i }) => parleyMessage(i.accountId, i.facts.conversation!.id, 'note', i.action.note!)),
    )
    .returning({ id: m.id, conversationId: m.conversationId });
  if (rows.length !== todo.length) throw new Error('bulk notes: the insert returned a different number of rows');
  // addMessage's update of the conversation (one more message each, the note's words searchable), once per
  // conversation for the whole transaction (bulkCounts).
  for (const { i } of todo) memo.counts.push({ account_id: i.accountId, conversation_id: i.facts.conversation!.id, text: i.action.note! });
  const events: EmitEventInput[] = todo.map(({ i }, k) => ({
    accountId: i.accountId,
    type: 'message_created',
    subjectType: 'conversation',
    subjectId: rows[k].conversationId,
    payload: { messageId: rows[k].id, kind: 'note', mentions: mentionTokens(i.action.note!).length > 0 },
    actor: i.cause.ruleId !== undefined ? { type: 'engine', id: i.cause.ruleId } : { type: 'system' },
    causedByEventId: i.cause.eventId,
  }));
  const updates: LiveUpdate[] = [];
  for (const [k, { i, n }] of todo.entries()) {
    updates.push({ accountId: i.accountId, message: { type: 'message.created', conversationId: rows[k].conversationId, messageId: rows[k].id, kind: 'note' } });
    results[n] = `note ${rows[k].id} on conversation #${rows[k].conversationId}`;
  }
  return { results, events, live: updates };
}

type Change = { assigneeId?: number; priority?: number; status?: 'open' | 'pending'; snoozedUntil?: null; resolvedAt?: null };

/**
 * `assignConversations` to one user, `setConversationPriority` and `setConversationStatus` (open or pending) for many
 * conversations: their `changeConversations` path, set-based. Per (account, value): the user read once (an
 * assignment), the conversations locked in one read, one update of those the change changes, the
 * `conversation_updated` events with each changed field's before and after in one insert (and, for an assignment, the
 * `conversation_assigned` events, each caused by its `conversation_updated`, in another), the system lines in one
 * insert, one update of their message counts. A conversation named twice in the group goes one by one (the second
 * must see the first's change).
 */
async function changeInBulk(tx: Tx, kind: 'assign' | 'priority' | 'status', items: BulkItem[], memo: BulkMemo): Promise<(string | null)[]> {
  const results: (string | null)[] = items.map(() => null);
  const seen = new Set<string>();
  const value = (i: BulkItem) => (kind === 'assign' ? String(i.action.userId) : kind === 'priority' ? i.action.priority! : i.action.status!);
  const byValue = new Map<string, { accountId: number; value: string; at: number[] }>();
  items.forEach((i, n) => {
    const k = key(i.accountId, i.facts.conversation!.id);
    if (seen.has(k)) return;
    seen.add(k);
    const g = byValue.get(`${i.accountId}:${value(i)}`) ?? { accountId: i.accountId, value: value(i), at: [] };
    g.at.push(n);
    byValue.set(`${i.accountId}:${value(i)}`, g);
  });
  const c = schema.conversations;
  for (const g of byValue.values()) {
    let change: Change;
    let line: string;
    let said: (changed: boolean, id: number) => string;
    if (kind === 'assign') {
      const userId = Number(g.value);
      const [user] = await tx
        .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
        .from(schema.users)
        .where(and(eq(schema.users.accountId, g.accountId), eq(schema.users.id, userId), eq(schema.users.status, 'active')));
      // assignConversations refuses a user who is not active here: one by one, which skips with its reason.
      if (!user) continue;
      const name = `${user.firstName} ${user.lastName}`.trim();
      change = { assigneeId: userId };
      line = `Assigned to ${name} by Parley`;
      said = (changed, id) => (changed ? `assigned conversation #${id} to ${name}` : `conversation #${id} was already assigned to ${name}`);
    } else if (kind === 'priority') {
      change = { priority: priorityRank(g.value as Priority) };
      line = `Priority set to ${g.value} by Parley`;
      said = (changed) => (changed ? `priority set to ${g.value}` : `priority was already ${g.value}`);
    } else {
      change = { status: g.value as 'open' | 'pending', snoozedUntil: null, resolvedAt: null };
      line = `Status changed to ${g.value} by Parley`;
      said = (changed) => (changed ? `status set to ${g.value}` : `status was already ${g.value}`);
    }
    const ids = g.at.map((n) => items[n].facts.conversation!.id);
    const before = await tx
      .select({
        id: c.id,
        assigneeId: c.assigneeId,
        teamId: c.teamId,
        priority: c.priority,
        status: c.status,
        snoozedUntil: c.snoozedUntil,
        resolvedAt: c.resolvedAt,
      })
      .from(c)
      .where(and(eq(c.accountId, g.accountId), inArray(c.id, ids), isNull(c.deletedAt)))
      .orderBy(asc(c.id))
      .for('update');
    // changeConversations' diff: each field of the change whose value differs, with its before and after.
    const diffs = new Map<number, Record<string, { from: unknown; to: unknown }>>();
    for (const row of before) {
      const diff: Record<string, { from: unknown; to: unknown }> = {};
      for (const [field, to] of Object.entries(change) as [keyof Change, unknown][]) {
        const from = row[field];
        if (from !== to) diff[field] = { from, to };
      }
      if (Object.keys(diff).length > 0) diffs.set(row.id, diff);
    }
    const known = new Set(before.map((r) => r.id));
    const changing = g.at.filter((n) => diffs.has(items[n].facts.conversation!.id));
    for (const n of g.at) {
      const id = items[n].facts.conversation!.id;
      // A conversation that is gone: one by one, as before (it changes nothing and says so).
      if (known.has(id)) results[n] = said(diffs.has(id), id);
    }
    if (changing.length === 0) continue;
    const changedIds = changing.map((n) => items[n].facts.conversation!.id);
    await tx
      .update(c)
      .set({ ...change, updatedAt: new Date() })
      .where(and(eq(c.accountId, g.accountId), inArray(c.id, changedIds)));
    const updated = await emitEvents(
      tx,
      changing.map((n) => ({
        accountId: g.accountId,
        type: 'conversation_updated' as const,
        subjectType: 'conversation',
        subjectId: items[n].facts.conversation!.id,
        payload: { changed: diffs.get(items[n].facts.conversation!.id)! },
        ...actorFields({ actorId: null, cause: items[n].cause }),
      })),
    );
    if (kind === 'assign') {
      const prior = new Map(before.map((r) => [r.id, r]));
      await emitEvents(
        tx,
        changing.map((n, k) => {
          const row = prior.get(items[n].facts.conversation!.id)!;
          return {
            accountId: g.accountId,
            type: 'conversation_assigned' as const,
            subjectType: 'conversation',
            subjectId: row.id,
            payload: { assigneeId: change.assigneeId, teamId: row.teamId, previousAssigneeId: row.assigneeId, previousTeamId: row.teamId },
            ...actorFields({ actorId: null, cause: items[n].cause }),
            causedByEventId: updated[k].id,
          };
        }),
      );
    }
    // addMessage's system line: a message, one more in the count (with the transaction's others, bulkCounts), no event.
    const lines = await tx
      .insert(schema.messages)
      .values(changedIds.map((id) => parleyMessage(g.accountId, id, 'system', line)))
      .returning({ id: schema.messages.id, conversationId: schema.messages.conversationId });
    for (const id of changedIds) memo.counts.push({ account_id: g.accountId, conversation_id: id, text: null });
    for (const l of lines) {
      await publishToAccount(g.accountId, { type: 'message.created', conversationId: l.conversationId, messageId: l.id, kind: 'system' }, { tx });
      await publishToAccount(
        g.accountId,
        { type: 'conversation.updated', conversationId: l.conversationId, changed: Object.keys(diffs.get(l.conversationId)!) },
        { tx },
      );
    }
  }
  return results;
}
