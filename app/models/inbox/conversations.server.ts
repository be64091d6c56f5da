import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { builtOnce, getDb, schema, type Tx } from '../../../db/client';
import type { ConversationStatus, EmailHeaders, SourceType } from '../../../db/schema/inbox';
import { actorFields, actorOf, emitEvent, withTx, type Cause, type Via } from '../events/events.server';
import { stopTimersOnResolve } from '../time-tracking/time-entries.server';
export type { Cause, Via } from '../events/events.server';
import { contactSearchText, findOrCreateContact } from '../contacts/contacts.server';
import { publishToAccount } from '../../utils/live.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { formatDateTime } from '../../utils/format';
import { priorityName, priorityRank, type ConversationFilters } from './filters';
import { linkAttachments } from './attachments.server';
import { countConversationsFromDeltas, totalFromDeltas } from './conversation-counts.server';
import { addMessage, previewOf, refreshConversationSearch, type MessageKind } from './messages.server';

export type Conversation = typeof schema.conversations.$inferSelect;
export const PAGE_SIZE = 50;
export const COUNT_CAP = 10_000;

/** A reference (user, team, inbox, tag, conversation) that is not the account's: the form answers 400 with it. */
export class InvalidReferenceError extends Error {}

// ---------------------------------------------------------------------------------------------------------
// Reading

function filterConditions(opts: { accountId: number; userId: number; filters: ConversationFilters; omitStatusAndInbox?: boolean }) {
  const c = schema.conversations;
  const f = opts.filters;
  const where: (SQL | undefined)[] = [eq(c.accountId, opts.accountId), isNull(c.deletedAt)];
  if (!opts.omitStatusAndInbox && f.status !== 'all') where.push(eq(c.status, f.status ?? 'open'));
  if (f.assignee === 'mine') where.push(eq(c.assigneeId, opts.userId));
  else if (f.assignee === 'unassigned') where.push(isNull(c.assigneeId));
  else if (f.assignee) where.push(eq(c.assigneeId, Number(f.assignee)));
  if (!opts.omitStatusAndInbox && f.inbox) where.push(eq(c.inboxId, f.inbox));
  if (f.team) where.push(eq(c.teamId, f.team));
  if (f.priority) where.push(eq(c.priority, priorityRank(f.priority)));
  if (f.source) where.push(eq(c.sourceType, f.source));
  if (f.tag) {
    where.push(
      sql`exists (select 1 from ${schema.conversationTags} ct where ct.conversation_id = ${c.id} and ct.tag_id = ${f.tag} and ct.account_id = ${opts.accountId})`,
    );
  }
  if (f.q) {
    const q = f.q;
    const byId = /^#?\d{1,9}$/.test(q) ? sql` or ${c.id} = ${Number(q.replace('#', ''))}` : sql``;
    where.push(sql`(${c.search} @@ plainto_tsquery('simple', ${q})${byId})`);
  }
  return and(...where);
}

/** The inbox list: one page of conversations matching the filters, with what a row shows. */
export async function listConversations(opts: { accountId: number; userId: number; filters: ConversationFilters; pageSize?: number }) {
  const c = schema.conversations;
  const pageSize = opts.pageSize ?? PAGE_SIZE;
  const page = opts.filters.page ?? 1;
  const where = filterConditions(opts);
  const dir = opts.filters.dir === 'asc' ? asc : desc;
  const order =
    opts.filters.sort === 'created'
      ? [dir(c.id)]
      : opts.filters.sort === 'priority'
      ? [dir(c.priority), desc(c.lastMessageAt)]
      : [dir(c.lastMessageAt), dir(c.id)];
  const db = getDb();
  // Page the ids (an index walk, cheap even deep into the list) and fetch what the rows show, with their tags, in
  // one statement (ADR 133): the ids are its sub-select.
  const pageIds = db
    .select({ id: c.id })
    .from(c)
    .where(where)
    .orderBy(...order)
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [rows, [{ total }]] = await Promise.all([
    readRows({ accountId: opts.accountId, ids: pageIds, order }),
    // Without a text or tag filter, from the counts the writers keep (ADR 032). Otherwise counting a huge match
    // exactly costs more than the page itself: past COUNT_CAP the pager says "10,000+".
    !opts.filters.q && !opts.filters.tag
      ? totalFromDeltas(opts).then((total) => [{ total }])
      : db.select({ total: sql<number>`count(*)::int` }).from(
      db
        .select({ one: sql`1` })
        .from(c)
        .where(where)
        .limit(COUNT_CAP + 1)
        .as('capped'),
    ),
  ]);
  return {
    // A page's rows carry what they show; the fields the browser filters a live patch's rows by stay off (ADR 136).
    rows: rows.map(({ sourceType: _source, inboxId: _inbox, teamId: _team, assigneeId: _assignee, ...shown }) => shown),
    total: Math.min(total, COUNT_CAP),
    totalCapped: total > COUNT_CAP,
    page,
    pageSize,
  };
}

/**
 * What the list shows of these conversations, in the order of `ids`: deleted ones are left out (the live feed reads
 * the rows it sends to agents' lists with this too, ADR 045).
 */
export async function listRowsByIds(opts: { accountId: number; ids: number[] }) {
  if (opts.ids.length === 0) return [];
  const rows = await readRows({ accountId: opts.accountId, ids: opts.ids });
  const byId = new Map(rows.map((d) => [d.id, d]));
  return opts.ids.map((id) => byId.get(id)!).filter(Boolean);
}

/**
 * The list's rows with their tags (a sub-select each, so one statement), for given ids or an id sub-select. The tags
 * are found by the conversation (the primary key's first column) and scoped by the tag's account: a condition on
 * conversation_tags.account_id let the planner AND in that column's index, which reads every tag row of the account
 * for each row of the page (seen in the cluster bench while the table outgrew its statistics).
 */
async function readRows(opts: { accountId: number; ids: number[] | SQLWrapper; order?: SQL[] }) {
  const c = schema.conversations;
  const assignee = alias(schema.users, 'assignee');
  const ct = schema.conversationTags;
  const details = await getDb()
    .select({
      id: c.id,
      subject: c.subject,
      status: c.status,
      priority: c.priority,
      sourceType: c.sourceType,
      lastMessageAt: c.lastMessageAt,
      lastMessagePreview: c.lastMessagePreview,
      createdAt: c.createdAt,
      inboxId: c.inboxId,
      inboxName: schema.inboxes.name,
      teamId: c.teamId,
      contactFirstName: schema.contacts.firstName,
      contactLastName: schema.contacts.lastName,
      contactEmail: schema.contacts.email,
      assigneeId: c.assigneeId,
      assigneeFirstName: assignee.firstName,
      assigneeLastName: assignee.lastName,
      firstResponseDueAt: c.firstResponseDueAt,
      resolveDueAt: c.resolveDueAt,
      firstRespondedAt: c.firstRespondedAt,
      responseBreachedAt: c.responseBreachedAt,
      resolveBreachedAt: c.resolveBreachedAt,
      tags: sql<{ id: number; name: string; color: string }[]>`coalesce((select json_agg(json_build_object('id', ${schema.tags.id}, 'name', ${schema.tags.name}, 'color', ${schema.tags.color}))
          from ${ct} inner join ${schema.tags} on ${schema.tags.id} = ${ct.tagId}
         where ${ct.conversationId} = ${c.id} and ${schema.tags.accountId} = ${opts.accountId}), '[]'::json)`,
    })
    .from(c)
    .innerJoin(schema.inboxes, eq(schema.inboxes.id, c.inboxId))
    .leftJoin(schema.contacts, eq(schema.contacts.id, c.contactId))
    .leftJoin(assignee, eq(assignee.id, c.assigneeId))
    .where(and(eq(c.accountId, opts.accountId), inArray(c.id, opts.ids as number[]), isNull(c.deletedAt)))
    .orderBy(...(opts.order ?? []));
  return details.map((r) => ({ ...r, priority: priorityName(r.priority) }));
}

/**
 * Counts per status (under every other filter) and per inbox (under every other filter), for the side panel,
 * from one scan grouped by both. With a text or tag filter the scan stops after COUNT_CAP rows: the counts are
 * then marked approximate (the panel says "10,000+" rather than make every search pay for an exact count).
 */
export async function countConversations(opts: { accountId: number; userId: number; filters: ConversationFilters }) {
  // Without a text or tag filter, from the counts the writers keep (ADR 032): the cost no longer grows with the account.
  if (!opts.filters.q && !opts.filters.tag) return countConversationsFromDeltas(opts);
  const c = schema.conversations;
  const db = getDb();
  const base = filterConditions({ ...opts, omitStatusAndInbox: true });
  const capped = Boolean(opts.filters.q || opts.filters.tag);
  const source = capped
    ? db
        .select({ status: c.status, inboxId: c.inboxId })
        .from(c)
        .where(base)
        .limit(COUNT_CAP + 1)
        .as('capped')
    : db.select({ status: c.status, inboxId: c.inboxId }).from(c).where(base).as('all_rows');
  const rows = await db
    .select({ status: source.status, inboxId: source.inboxId, n: sql<number>`count(*)::int` })
    .from(source)
    .groupBy(source.status, source.inboxId);
  const wantedStatus = opts.filters.status === 'all' ? undefined : opts.filters.status ?? 'open';
  const byStatus: Partial<Record<ConversationStatus, number>> = {};
  const byInbox: Record<number, number> = {};
  let seen = 0;
  for (const r of rows) {
    seen += r.n;
    if (!opts.filters.inbox || r.inboxId === opts.filters.inbox) byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
    if (!wantedStatus || r.status === wantedStatus) byInbox[r.inboxId] = (byInbox[r.inboxId] ?? 0) + r.n;
  }
  return { byStatus, byInbox, approximate: capped && seen > COUNT_CAP };
}

/** A conversation with its inbox, contact, assignee, team and tags, in one statement built once (ADRs 133, 136). */
const conversationQuery = () =>
  builtOnce('conversation', (db) => {
    const c = schema.conversations;
    const assignee = alias(schema.users, 'assignee');
    const accountId = sql.placeholder('accountId');
    const id = sql.placeholder('id');
    return db
      .select({
        conversation: c,
        inbox: schema.inboxes,
        contact: schema.contacts,
        assignee: { id: assignee.id, firstName: assignee.firstName, lastName: assignee.lastName },
        team: { id: schema.teams.id, name: schema.teams.name },
        tags: sql<{ id: number; name: string; color: string }[]>`coalesce((select json_agg(json_build_object('id', ${schema.tags.id}, 'name', ${schema.tags.name}, 'color', ${schema.tags.color}))
            from ${schema.conversationTags} inner join ${schema.tags} on ${schema.tags.id} = ${schema.conversationTags.tagId}
           where ${schema.conversationTags.conversationId} = ${id} and ${schema.tags.accountId} = ${accountId}), '[]'::json)`,
      })
      .from(c)
      .innerJoin(schema.inboxes, eq(schema.inboxes.id, c.inboxId))
      .leftJoin(schema.contacts, eq(schema.contacts.id, c.contactId))
      .leftJoin(assignee, eq(assignee.id, c.assigneeId))
      .leftJoin(schema.teams, eq(schema.teams.id, c.teamId))
      .where(and(eq(c.accountId, accountId), eq(c.id, id), isNull(c.deletedAt)))
      .prepare('conversation');
  });

export async function getConversation(opts: { accountId: number; id: number }) {
  const [row] = await conversationQuery().execute({ accountId: opts.accountId, id: opts.id });
  if (!row) return undefined;
  return { ...row, priority: priorityName(row.conversation.priority) };
}

// ---------------------------------------------------------------------------------------------------------
// Opening conversations

/**
 * Opens a conversation with its first message: the sender is matched to (or becomes) a contact, and
 * `conversation_created` then `message_created` are written in the same transaction.
 */
export async function openConversation(opts: {
  accountId: number;
  inboxId: number;
  sourceType: SourceType;
  subject: string;
  contact: {
    email?: string | null;
    phone?: string | null;
    name?: string | null;
    identity?: { channel: string; externalId: string } | null;
    /** A contact already known (the account's): the conversation is theirs, nothing is matched. */
    id?: number | null;
  };
  message: {
    kind: MessageKind;
    text: string;
    html?: string | null;
    email?: EmailHeaders | null;
    externalId?: string | null;
    fromTrustedDomain?: boolean;
    createdAt?: Date;
  };
  actorUserId?: number | null;
  assigneeId?: number | null;
  /** Opened by an automation's action (its events name the rule and the event that led to it). */
  cause?: Cause;
  tx?: Tx;
}) {
  const run = async (tx: Tx) => {
    const [inbox] = await tx
      .select({ id: schema.inboxes.id })
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId)));
    if (!inbox) throw new InvalidReferenceError('Inbox must be specified');
    const known = opts.contact.id
      ? (await tx.select().from(schema.contacts).where(and(eq(schema.contacts.accountId, opts.accountId), eq(schema.contacts.id, opts.contact.id))))[0]
      : undefined;
    if (opts.contact.id && !known) throw new InvalidReferenceError('The contact no longer exists');
    const { contact } = known ? { contact: known } : await findOrCreateContact(tx, { accountId: opts.accountId, ...opts.contact, source: opts.sourceType, causedByEventId: opts.cause?.eventId });
    const [conversation] = await tx
      .insert(schema.conversations)
      .values({
        accountId: opts.accountId,
        inboxId: inbox.id,
        contactId: contact.id,
        subject: opts.subject.slice(0, 500),
        // The contact's name and address belong to the searchable words too (see contactSearchText).
        search: sql`to_tsvector('simple', ${`${opts.subject.slice(0, 500)} ${contactSearchText(contact)}`})`,
        sourceType: opts.sourceType,
        assigneeId: opts.assigneeId ?? null,
        lastMessagePreview: previewOf(opts.message.text),
        ...(opts.message.createdAt ? { lastMessageAt: opts.message.createdAt, createdAt: opts.message.createdAt } : {}),
      })
      .returning();
    const created = await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'conversation_created',
      subjectType: 'conversation',
      subjectId: conversation.id,
      payload: { inboxId: inbox.id, contactId: contact.id, sourceType: opts.sourceType, subject: conversation.subject },
      ...(opts.cause
        ? actorFields({ cause: opts.cause })
        : { actor: opts.actorUserId ? ({ type: 'user', id: opts.actorUserId } as const) : ({ type: 'contact', id: contact.id } as const) }),
    });
    const message = await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: conversation.id,
      kind: opts.message.kind,
      text: opts.message.text,
      html: opts.message.html,
      email: opts.message.email,
      externalId: opts.message.externalId,
      fromTrustedDomain: opts.message.fromTrustedDomain,
      senderContactId: opts.message.kind === 'incoming' ? contact.id : null,
      senderUserId: opts.message.kind === 'incoming' ? null : opts.actorUserId ?? null,
      createdAt: opts.message.createdAt,
      causedByEventId: created.id,
    });
    await publishToAccount(opts.accountId, { type: 'conversation.created', conversationId: conversation.id, inboxId: inbox.id }, { tx });
    return { conversation, contact, message };
  };
  return opts.tx ? run(opts.tx) : getDb().transaction(run);
}

// ---------------------------------------------------------------------------------------------------------
// Changing conversations

type Change = Partial<Pick<Conversation, 'status' | 'priority' | 'assigneeId' | 'teamId' | 'inboxId' | 'snoozedUntil' | 'resolvedAt'>>;

/**
 * The one path every operation takes: locks the account's conversations, applies the change, records
 * `conversation_updated` (with each changed field's before and after), a system line in the thread, and
 * `conversation_assigned` when the assignee changed. Ids of other accounts are simply not found.
 */
async function changeConversations(
  tx: Tx,
  opts: {
    accountId: number;
    actorId: number | null;
    ids: number[];
    change: Change;
    systemText: (c: Conversation) => string | null;
    cause?: Cause;
  },
) {
  const ids = [...new Set(opts.ids)];
  if (ids.length === 0) return [];
  const rows = await tx
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, opts.accountId), inArray(schema.conversations.id, ids), isNull(schema.conversations.deletedAt)))
    .for('update');
  const changed: Conversation[] = [];
  for (const before of rows) {
    const diff: Record<string, { from: unknown; to: unknown }> = {};
    for (const [key, value] of Object.entries(opts.change) as [keyof Change, unknown][]) {
      const prev = before[key];
      const same = prev instanceof Date && value instanceof Date ? prev.getTime() === value.getTime() : prev === value;
      if (!same) diff[key] = { from: prev, to: value };
    }
    if (Object.keys(diff).length === 0) continue;
    const [after] = await tx
      .update(schema.conversations)
      .set({ ...opts.change, updatedAt: new Date() })
      .where(and(eq(schema.conversations.id, before.id), eq(schema.conversations.accountId, opts.accountId)))
      .returning();
    // Time tracking (ADR 071): resolving stops the timers running on the conversation, when the account asks for it.
    if (diff.status && after.status === 'resolved') await stopTimersOnResolve(tx, { accountId: opts.accountId, conversationId: after.id });
    const event = await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'conversation_updated',
      subjectType: 'conversation',
      subjectId: after.id,
      payload: { changed: diff },
      ...actorFields(opts),
    });
    if ('assigneeId' in diff || 'teamId' in diff) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'conversation_assigned',
        subjectType: 'conversation',
        subjectId: after.id,
        payload: {
          assigneeId: after.assigneeId,
          teamId: after.teamId,
          previousAssigneeId: before.assigneeId,
          previousTeamId: before.teamId,
        },
        ...actorFields(opts),
        causedByEventId: event.id,
      });
    }
    const text = opts.systemText(after);
    if (text) await addMessage(tx, { accountId: opts.accountId, conversationId: after.id, kind: 'system', text, senderUserId: opts.actorId });
    await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: after.id, changed: Object.keys(diff) }, { tx });
    changed.push(after);
  }
  return changed;
}

async function actorName(tx: Tx, accountId: number, actorId: number | null) {
  if (!actorId) return 'Parley';
  const [u] = await tx
    .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, actorId)));
  return u ? `${u.firstName} ${u.lastName}`.trim() : 'Parley';
}

/** Assigns to a user and/or a team of the account (null unassigns). */
export async function assignConversations(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    assigneeId?: number | null;
    teamId?: number | null;
  },
) {
  return withTx(opts.tx, async (tx) => {
    const change: Change = {};
    let label = '';
    if (opts.assigneeId !== undefined) {
      if (opts.assigneeId !== null) {
        const [u] = await tx
          .select({ firstName: schema.users.firstName, lastName: schema.users.lastName })
          .from(schema.users)
          .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.id, opts.assigneeId), eq(schema.users.status, 'active')));
        if (!u) throw new InvalidReferenceError('Choose a user of this account');
        label = `${u.firstName} ${u.lastName}`.trim();
      }
      change.assigneeId = opts.assigneeId;
    }
    if (opts.teamId !== undefined) {
      if (opts.teamId !== null) {
        const [t] = await tx
          .select({ name: schema.teams.name })
          .from(schema.teams)
          .where(and(eq(schema.teams.accountId, opts.accountId), eq(schema.teams.id, opts.teamId)));
        if (!t) throw new InvalidReferenceError('Choose a team of this account');
        label = label ? `${label} (${t.name})` : `team ${t.name}`;
      }
      change.teamId = opts.teamId;
    }
    const by = await actorName(tx, opts.accountId, opts.actorId);
    return changeConversations(tx, { ...opts, change, systemText: () => (label ? `Assigned to ${label} by ${by}` : `Unassigned by ${by}`) });
  });
}

export async function setConversationStatus(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    status: Exclude<ConversationStatus, 'snoozed'>;
  },
) {
  return withTx(opts.tx, async (tx) => {
    const by = await actorName(tx, opts.accountId, opts.actorId);
    return changeConversations(tx, {
      ...opts,
      change: { status: opts.status, snoozedUntil: null, resolvedAt: opts.status === 'resolved' ? new Date() : null },
      systemText: () => `Status changed to ${opts.status} by ${by}`,
    });
  });
}

export async function setConversationPriority(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    priority: Parameters<typeof priorityRank>[0];
  },
) {
  return withTx(opts.tx, async (tx) => {
    const by = await actorName(tx, opts.accountId, opts.actorId);
    return changeConversations(tx, {
      ...opts,
      change: { priority: priorityRank(opts.priority) },
      systemText: () => `Priority set to ${opts.priority} by ${by}`,
    });
  });
}

/** Snoozes until a time; a timer job (not a table scan) reopens it then. */
export async function snoozeConversation(opts: { accountId: number; actorId: number | null; id: number; until: Date }) {
  return getDb().transaction(async (tx) => {
    const by = await actorName(tx, opts.accountId, opts.actorId);
    const changed = await changeConversations(tx, {
      ...opts,
      ids: [opts.id],
      change: { status: 'snoozed', snoozedUntil: opts.until },
      systemText: () => `Snoozed until ${formatDateTime(opts.until, { timezone: 'UTC', timeFormat: '24', dateFormat: 'YYYY-MM-DD' })} UTC by ${by}`,
    });
    if (changed.length > 0) {
      await enqueueInTx(tx, QUEUES.snoozeWake, { accountId: opts.accountId, conversationId: opts.id }, { startAfter: opts.until });
    }
    return changed;
  });
}

/** The snooze timer: reopens the conversation if it is still snoozed and its time has come. */
export async function wakeSnoozedConversation(opts: { accountId: number; conversationId: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
    // A later snooze, a manual reopen or a reply since then leaves nothing to do.
    if (!row || row.status !== 'snoozed' || !row.snoozedUntil || row.snoozedUntil.getTime() > Date.now() + 1000) return { woke: false };
    await changeConversations(tx, {
      accountId: opts.accountId,
      actorId: null,
      ids: [row.id],
      change: { status: 'open', snoozedUntil: null },
      systemText: () => 'Snooze ended: conversation reopened',
    });
    return { woke: true };
  });
}

export async function moveConversations(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    inboxId: number;
  },
) {
  return withTx(opts.tx, async (tx) => {
    const [inbox] = await tx
      .select({ name: schema.inboxes.name })
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId)));
    if (!inbox) throw new InvalidReferenceError('Inbox must be specified');
    const by = await actorName(tx, opts.accountId, opts.actorId);
    return changeConversations(tx, { ...opts, change: { inboxId: opts.inboxId }, systemText: () => `Moved to ${inbox.name} by ${by}` });
  });
}

/** Soft-deletes conversations (ids comma-joined in the URL); they leave every list and count. */
export async function deleteConversations(opts: Via & { accountId: number; actorId: number | null; ids: number[] }) {
  return withTx(opts.tx, async (tx) => {
    const rows = await tx
      .update(schema.conversations)
      .set({ deletedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(schema.conversations.accountId, opts.accountId),
          inArray(schema.conversations.id, [...new Set(opts.ids)]),
          isNull(schema.conversations.deletedAt),
        ),
      )
      .returning({ id: schema.conversations.id });
    for (const r of rows) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'conversation_deleted',
        subjectType: 'conversation',
        subjectId: r.id,
        actor: actorOf(opts.actorId),
      });
      await publishToAccount(opts.accountId, { type: 'conversation.deleted', conversationId: r.id }, { tx });
    }
    return rows;
  });
}

/** Merges conversations into the target: their messages move over, they disappear, the thread says so. */
export async function mergeConversations(opts: { accountId: number; actorId: number | null; targetId: number; sourceIds: number[] }) {
  const sourceIds = [...new Set(opts.sourceIds)].filter((id) => id !== opts.targetId);
  if (sourceIds.length === 0) throw new InvalidReferenceError('Choose at least two conversations to merge');
  return getDb().transaction(async (tx) => {
    const all = await tx
      .select()
      .from(schema.conversations)
      .where(
        and(
          eq(schema.conversations.accountId, opts.accountId),
          inArray(schema.conversations.id, [opts.targetId, ...sourceIds]),
          isNull(schema.conversations.deletedAt),
        ),
      )
      .for('update');
    const target = all.find((c) => c.id === opts.targetId);
    const sources = all.filter((c) => c.id !== opts.targetId);
    if (!target || sources.length !== sourceIds.length) throw new InvalidReferenceError('Conversation not found');
    await tx
      .update(schema.messages)
      .set({ conversationId: target.id })
      .where(and(eq(schema.messages.accountId, opts.accountId), inArray(schema.messages.conversationId, sourceIds)));
    await tx
      .update(schema.conversations)
      .set({ deletedAt: new Date(), mergedIntoId: target.id, updatedAt: new Date() })
      .where(and(eq(schema.conversations.accountId, opts.accountId), inArray(schema.conversations.id, sourceIds)));
    const [stats] = await tx
      .select({
        n: count(),
        last: sql<Date>`max(${schema.messages.createdAt}) filter (where ${schema.messages.kind} in ('incoming', 'outgoing'))`,
      })
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.conversationId, target.id), isNull(schema.messages.deletedAt)));
    await tx
      .update(schema.conversations)
      .set({ messageCount: stats.n, lastMessageAt: stats.last ? new Date(stats.last) : target.lastMessageAt, updatedAt: new Date() })
      .where(eq(schema.conversations.id, target.id));
    await refreshConversationSearch(tx, { accountId: opts.accountId, conversationIds: [target.id] });
    const by = await actorName(tx, opts.accountId, opts.actorId);
    await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: target.id,
      kind: 'system',
      text: `Merged ${sources.map((s) => `#${s.id}`).join(', ')} into this conversation by ${by}`,
      senderUserId: opts.actorId,
    });
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'conversation_updated',
      subjectType: 'conversation',
      subjectId: target.id,
      payload: { changed: { merged: { from: null, to: sourceIds } } },
      ...actorFields(opts),
    });
    for (const s of sources) {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'conversation_deleted',
        subjectType: 'conversation',
        subjectId: s.id,
        payload: { mergedInto: target.id },
        actor: actorOf(opts.actorId),
      });
      await publishToAccount(opts.accountId, { type: 'conversation.deleted', conversationId: s.id, mergedInto: target.id }, { tx });
    }
    await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: target.id, changed: ['merged'] }, { tx });
    return target;
  });
}

/** Splits one message out into a new conversation of the same contact and inbox. */
export async function splitMessage(opts: { accountId: number; actorId: number | null; messageId: number }) {
  return getDb().transaction(async (tx) => {
    const [message] = await tx
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.id, opts.messageId), isNull(schema.messages.deletedAt)));
    if (!message || message.kind === 'system') throw new InvalidReferenceError('Message not found');
    const [from] = await tx
      .select()
      .from(schema.conversations)
      .where(
        and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, message.conversationId), isNull(schema.conversations.deletedAt)),
      )
      .for('update');
    if (!from) throw new InvalidReferenceError('Message not found');
    if (from.messageCount <= 1) throw new InvalidReferenceError('A conversation with one message cannot be split');
    const [created] = await tx
      .insert(schema.conversations)
      .values({
        accountId: opts.accountId,
        inboxId: from.inboxId,
        contactId: from.contactId,
        subject: from.subject,
        sourceType: from.sourceType,
        priority: from.priority,
        lastMessageAt: message.createdAt,
        lastMessagePreview: previewOf(message.text),
        messageCount: 1,
      })
      .returning();
    await tx.update(schema.messages).set({ conversationId: created.id }).where(eq(schema.messages.id, message.id));
    await tx
      .update(schema.conversations)
      .set({ messageCount: sql`greatest(${schema.conversations.messageCount} - 1, 0)`, updatedAt: new Date() })
      .where(eq(schema.conversations.id, from.id));
    await refreshConversationSearch(tx, { accountId: opts.accountId, conversationIds: [from.id, created.id] });
    const event = await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'conversation_created',
      subjectType: 'conversation',
      subjectId: created.id,
      payload: {
        inboxId: created.inboxId,
        contactId: created.contactId,
        sourceType: created.sourceType,
        splitFrom: from.id,
        messageId: message.id,
      },
      ...actorFields(opts),
    });
    const by = await actorName(tx, opts.accountId, opts.actorId);
    await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: from.id,
      kind: 'system',
      text: `A message was split into #${created.id} by ${by}`,
      senderUserId: opts.actorId,
      causedByEventId: event.id,
    });
    await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: created.id,
      kind: 'system',
      text: `Split from #${from.id} by ${by}`,
      senderUserId: opts.actorId,
      causedByEventId: event.id,
    });
    await publishToAccount(opts.accountId, { type: 'conversation.created', conversationId: created.id, inboxId: created.inboxId }, { tx });
    return created;
  });
}

/** Adds tags (of the account) to conversations. */
export async function tagConversations(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    ids: number[];
    tagIds: number[];
  },
) {
  return withTx(opts.tx, async (tx) => {
    const tags = await tx
      .select({ id: schema.tags.id, name: schema.tags.name })
      .from(schema.tags)
      .where(and(eq(schema.tags.accountId, opts.accountId), inArray(schema.tags.id, [...new Set(opts.tagIds)])));
    if (tags.length !== new Set(opts.tagIds).size || tags.length === 0) throw new InvalidReferenceError('Choose tags of this account');
    const convs = await tx
      .select({ id: schema.conversations.id })
      .from(schema.conversations)
      .where(
        and(
          eq(schema.conversations.accountId, opts.accountId),
          inArray(schema.conversations.id, [...new Set(opts.ids)]),
          isNull(schema.conversations.deletedAt),
        ),
      );
    for (const c of convs) {
      const added = await tx
        .insert(schema.conversationTags)
        .values(tags.map((t) => ({ conversationId: c.id, tagId: t.id, accountId: opts.accountId })))
        .onConflictDoNothing()
        .returning({ tagId: schema.conversationTags.tagId });
      if (added.length === 0) continue;
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'conversation_updated',
        subjectType: 'conversation',
        subjectId: c.id,
        payload: { changed: { tags: { added: added.map((a) => a.tagId) } } },
        ...actorFields(opts),
      });
      await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: c.id, changed: ['tags'] }, { tx });
    }
    return convs;
  });
}

export async function untagConversation(
  opts: Via & {
    accountId: number;
    actorId: number | null;
    id: number;
    tagId: number;
  },
) {
  return withTx(opts.tx, async (tx) => {
    const removed = await tx
      .delete(schema.conversationTags)
      .where(
        and(
          eq(schema.conversationTags.accountId, opts.accountId),
          eq(schema.conversationTags.conversationId, opts.id),
          eq(schema.conversationTags.tagId, opts.tagId),
        ),
      )
      .returning();
    if (removed.length === 0) return false;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'conversation_updated',
      subjectType: 'conversation',
      subjectId: opts.id,
      payload: { changed: { tags: { removed: [opts.tagId] } } },
      ...actorFields(opts),
    });
    await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: opts.id, changed: ['tags'] }, { tx });
    return true;
  });
}

/** An agent's reply or private note. Replies go out through the inbox's channel (the engine's channel.deliver job). */
export async function postMessage(
  opts: Via & {
    accountId: number;
    /** null: written by an automation (opts.cause says which). */
    actorId: number | null;
    conversationId: number;
    kind: 'outgoing' | 'note';
    text: string;
    html?: string | null;
    email?: Pick<EmailHeaders, 'cc' | 'bcc'>;
    /** Files saved beforehand (saveAttachment with no message): linked in this transaction, so the channel sends them. */
    attachmentIds?: number[];
  },
) {
  return withTx(opts.tx, async (tx) => {
    const [conversation] = await tx
      .select({ id: schema.conversations.id })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId), isNull(schema.conversations.deletedAt)));
    if (!conversation) throw new InvalidReferenceError('Conversation not found');
    const message = await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: conversation.id,
      kind: opts.kind,
      text: opts.text,
      html: opts.html ?? null,
      email: opts.email ?? null,
      senderUserId: opts.actorId,
      causedByEventId: opts.cause?.eventId,
      engineRuleId: opts.cause?.ruleId,
    });
    if (opts.attachmentIds?.length) await linkAttachments(tx, { accountId: opts.accountId, messageId: message.id, ids: opts.attachmentIds });
    return message;
  });
}
