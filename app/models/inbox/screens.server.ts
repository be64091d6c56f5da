import { and, asc, desc, eq, inArray, isNull, max, ne, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { listConversations } from './conversations.server';
import { likePattern } from '../productivity/shared.server';

/**
 * Reads the inbox screens need besides the conversation operations: the choices of their selects, the
 * contact panel, attachments of the visible window. Every query is scoped by the account.
 */

export async function listInboxOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.inboxes.id, name: schema.inboxes.name, channelType: schema.inboxes.channelType })
    .from(schema.inboxes)
    .where(eq(schema.inboxes.accountId, opts.accountId))
    .orderBy(asc(schema.inboxes.name));
}

/** Users who can be assigned: active users of the account. */
export async function listAssigneeOptions(opts: { accountId: number }) {
  const rows = await getDb()
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.status, 'active')))
    .orderBy(asc(schema.users.firstName), asc(schema.users.lastName));
  return rows.map((u) => ({ id: u.id, name: `${u.firstName} ${u.lastName}`.trim() }));
}

export async function listTeamOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.teams.id, name: schema.teams.name })
    .from(schema.teams)
    .where(eq(schema.teams.accountId, opts.accountId))
    .orderBy(asc(schema.teams.name));
}

/**
 * The account's tags (labels) for the tag selects. The productivity settings own them; their listTags also
 * counts conversations per tag, which these selects do not need on every inbox page.
 */
export async function listTagOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.tags.id, name: schema.tags.name, color: schema.tags.color })
    .from(schema.tags)
    .where(eq(schema.tags.accountId, opts.accountId))
    .orderBy(asc(schema.tags.name));
}

/**
 * The four select lists of the inbox screens (inboxes, assignees, teams, tags) in one statement: one round trip
 * instead of four on every inbox and conversation page (ADR 052). Same rows and order as the four functions above.
 */
type OptionsRow = {
  inboxes: { id: number; name: string; channelType: string }[] | null;
  users: { id: number; firstName: string; lastName: string }[] | null;
  teams: { id: number; name: string }[] | null;
  tags: { id: number; name: string; color: string }[] | null;
};

/** The selects' choices as four sub-selects (`inboxes`, `users`, `teams`, `tags`) of one statement. */
const optionColumns = (accountId: number) => sql`
      (select json_agg(json_build_object('id', id, 'name', name, 'channelType', channel_type) order by name)
         from ${schema.inboxes} where account_id = ${accountId}) as inboxes,
      (select json_agg(json_build_object('id', id, 'firstName', first_name, 'lastName', last_name) order by first_name, last_name)
         from ${schema.users} where account_id = ${accountId} and status = 'active') as users,
      (select json_agg(json_build_object('id', id, 'name', name) order by name)
         from ${schema.teams} where account_id = ${accountId}) as teams,
      (select json_agg(json_build_object('id', id, 'name', name, 'color', color) order by name)
         from ${schema.tags} where account_id = ${accountId}) as tags`;

const shapeOptions = (row: OptionsRow) => ({
  inboxes: (row.inboxes ?? []) as { id: number; name: string; channelType: (typeof schema.inboxes.$inferSelect)['channelType'] }[],
  users: (row.users ?? []).map((u) => ({ id: u.id, name: `${u.firstName} ${u.lastName}`.trim() })),
  teams: row.teams ?? [],
  tags: row.tags ?? [],
});

export async function listInboxScreenOptions(opts: { accountId: number }) {
  const [row] = await getDb().execute<OptionsRow>(sql`select ${optionColumns(opts.accountId)}`);
  return shapeOptions(row);
}

/** The contact panel's "other conversations": the contact's newest conversations besides this one. */
export async function listContactConversations(opts: { accountId: number; contactId: number; exceptId: number; limit?: number }) {
  const c = schema.conversations;
  return getDb()
    .select({ id: c.id, subject: c.subject, status: c.status, lastMessageAt: c.lastMessageAt })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.contactId, opts.contactId), ne(c.id, opts.exceptId), isNull(c.deletedAt)))
    .orderBy(desc(c.lastMessageAt))
    .limit(opts.limit ?? 10);
}

/** Attachments of the messages on screen (the thread is windowed, so this stays small). */
export async function listMessageAttachments(opts: { accountId: number; messageIds: number[] }) {
  if (opts.messageIds.length === 0) return [];
  return getDb()
    .select({
      id: schema.attachments.id,
      messageId: schema.attachments.messageId,
      filename: schema.attachments.filename,
      contentType: schema.attachments.contentType,
      size: schema.attachments.size,
      contentId: schema.attachments.contentId,
    })
    .from(schema.attachments)
    .where(and(eq(schema.attachments.accountId, opts.accountId), inArray(schema.attachments.messageId, opts.messageIds)))
    .orderBy(asc(schema.attachments.id));
}

/**
 * The newest message the user wrote in the conversation: the reply box is keyed by it, so it empties after the
 * agent's own post but keeps what they are typing while others' messages arrive.
 */
export async function lastMessageIdBy(opts: { accountId: number; conversationId: number; userId: number }) {
  const [row] = await getDb()
    .select({ id: max(schema.messages.id) })
    .from(schema.messages)
    .where(
      and(eq(schema.messages.accountId, opts.accountId), eq(schema.messages.conversationId, opts.conversationId), eq(schema.messages.senderUserId, opts.userId))
    );
  return row?.id ?? 0;
}

/** Where a merged-away conversation went, so that old links still lead somewhere. */
export async function findMergeTarget(opts: { accountId: number; id: number }) {
  const c = schema.conversations;
  let id = opts.id;
  // Merges can chain (A into B, then B into C); a few hops are plenty and a cycle cannot loop forever.
  for (let hop = 0; hop < 5; hop++) {
    const [row] = await getDb()
      .select({ mergedIntoId: c.mergedIntoId, deletedAt: c.deletedAt })
      .from(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.id, id)));
    if (!row) return null;
    if (!row.deletedAt) return hop === 0 ? null : id;
    if (!row.mergedIntoId) return null;
    id = row.mergedIntoId;
  }
  return null;
}

/** Merge candidates found by a search (subject, message text, contact, #id), across statuses. */
export async function searchMergeCandidates(opts: { accountId: number; userId: number; q: string; exceptId: number }) {
  const q = opts.q.trim();
  if (!q) return [];
  const { rows } = await listConversations({ accountId: opts.accountId, userId: opts.userId, filters: { status: 'all', q }, pageSize: 11 });
  return rows
    .filter((r) => r.id !== opts.exceptId)
    .slice(0, 10)
    .map((r) => ({
      id: r.id,
      subject: r.subject,
      status: r.status,
      contact: `${r.contactFirstName ?? ''} ${r.contactLastName ?? ''}`.trim() || r.contactEmail || '',
      lastMessageAt: r.lastMessageAt,
    }));
}

/**
 * Conversations whose words match, for the global search: the stored tsvector holds the subject and the text
 * of every message and note, so one GIN lookup answers.
 */
export async function searchConversations(opts: { accountId: number; q: string; limit: number }) {
  const c = schema.conversations;
  return getDb()
    .select({
      id: c.id,
      subject: c.subject,
      preview: c.lastMessagePreview,
      contactEmail: schema.contacts.email,
      contactFirstName: schema.contacts.firstName,
      contactLastName: schema.contacts.lastName,
    })
    .from(c)
    .leftJoin(schema.contacts, eq(schema.contacts.id, c.contactId))
    .where(and(eq(c.accountId, opts.accountId), isNull(c.deletedAt), sql`${c.search} @@ plainto_tsquery('simple', ${opts.q})`))
    .orderBy(desc(c.lastMessageAt))
    .limit(opts.limit);
}

/** The ids among these that name live conversations of the account (the others are 404 to the caller). */
export async function findOwnConversationIds(opts: { accountId: number; ids: number[] }) {
  if (opts.ids.length === 0) return [];
  const c = schema.conversations;
  const rows = await getDb()
    .select({ id: c.id })
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), inArray(c.id, [...new Set(opts.ids)]), isNull(c.deletedAt)));
  return rows.map((r) => r.id);
}

/** What a merge would take in (ADR 035: the confirmation shows it): the account's live conversations of these ids. */
export async function describeMergeSources(opts: { accountId: number; ids: number[] }) {
  if (opts.ids.length === 0) return [];
  const c = schema.conversations;
  const ct = schema.contacts;
  const rows = await getDb()
    .select({
      id: c.id,
      subject: c.subject,
      status: c.status,
      messageCount: c.messageCount,
      lastMessagePreview: c.lastMessagePreview,
      firstName: ct.firstName,
      lastName: ct.lastName,
      email: ct.email,
    })
    .from(c)
    .leftJoin(ct, and(eq(ct.id, c.contactId), eq(ct.accountId, opts.accountId)))
    .where(and(eq(c.accountId, opts.accountId), inArray(c.id, [...new Set(opts.ids)]), isNull(c.deletedAt)))
    .orderBy(asc(c.id));
  return rows.map((r) => ({
    id: r.id,
    subject: r.subject,
    status: r.status,
    messageCount: r.messageCount,
    preview: r.lastMessagePreview,
    contact: [r.firstName, r.lastName].filter(Boolean).join(' ') || r.email || '',
  }));
}

/**
 * The conversations before and after this one in the inbox's default order (newest activity first, open and
 * pending): what the next/previous shortcuts open.
 */
export async function findNeighbourConversations(opts: { accountId: number; id: number; lastMessageAt: Date }) {
  const c = schema.conversations;
  const live = and(eq(c.accountId, opts.accountId), isNull(c.deletedAt), inArray(c.status, ['open', 'pending']), ne(c.id, opts.id));
  const [[newer], [older]] = await Promise.all([
    getDb()
      .select({ id: c.id })
      .from(c)
      .where(and(live, sql`(${c.lastMessageAt}, ${c.id}) > (${opts.lastMessageAt.toISOString()}::timestamptz, ${opts.id})`))
      .orderBy(asc(c.lastMessageAt), asc(c.id))
      .limit(1),
    getDb()
      .select({ id: c.id })
      .from(c)
      .where(and(live, sql`(${c.lastMessageAt}, ${c.id}) < (${opts.lastMessageAt.toISOString()}::timestamptz, ${opts.id})`))
      .orderBy(desc(c.lastMessageAt), desc(c.id))
      .limit(1),
  ]);
  return { previousId: newer?.id ?? null, nextId: older?.id ?? null };
}

type PageRow = OptionsRow & {
  canned: { id: number; name: string; message: string }[] | null;
  templates: { id: number; name: string; body: string }[] | null;
  mentionable: { id: number; firstName: string; lastName: string; email: string }[] | null;
  own_last: number | null;
  newer_id: number | null;
  older_id: number | null;
  others: { id: number; subject: string; status: string; lastMessageAt: string }[] | null;
  time_seconds: number;
  timer_running: boolean;
  ratings: { id: number; kind: string; rating: number | null; comment: string | null; ratedAt: string | null; requestedAt: string | null }[] | null;
  has_connections: boolean;
  ai_server: boolean;
};

/**
 * Everything the conversation page reads besides the conversation, its thread and its automation runs, in ONE
 * statement (ADR 133): the selects' choices (as `listInboxScreenOptions`), the reply box's canned responses
 * (`listCannedResponses`, 50, filtered by `cannedQuery`) and email templates (`listEmailTemplates`, 50), the
 * mentionable users (`listMentionableUsers`), the newest message id the viewer wrote (`lastMessageIdBy`), the
 * previous/next open conversations (`findNeighbourConversations`), the contact's other conversations
 * (`listContactConversations`), the logged time and whether the viewer's timer runs (`conversationTime`), the
 * ratings (`conversationRatings`), whether the account has any integration connection and its own AI server. Each part is the same
 * filter and order as the function named, every one scoped by the account.
 */
export async function readConversationPage(opts: {
  accountId: number;
  conversationId: number;
  userId: number;
  contactId: number | null;
  lastMessageAt: Date;
  cannedQuery?: string | null;
}) {
  const { accountId, conversationId: id, userId } = opts;
  const q = opts.cannedQuery?.trim().slice(0, 100);
  const cannedFilter = q ? sql`and (name ilike ${likePattern(q)} or message ilike ${likePattern(q)})` : sql``;
  const at = opts.lastMessageAt.toISOString();
  const live = sql`account_id = ${accountId} and deleted_at is null and status in ('open', 'pending') and id <> ${id}`;
  const seconds = sql`coalesce(te.duration_seconds, greatest(0, extract(epoch from (now() - te.started_at)))::int)`;
  const [row] = await getDb().execute<PageRow>(sql`select ${optionColumns(accountId)},
      (select json_agg(json_build_object('id', id, 'name', name, 'message', message) order by lower(name), id)
         from (select id, name, message from ${schema.cannedResponses} where account_id = ${accountId} ${cannedFilter}
                order by lower(name), id limit 50) x) as canned,
      (select json_agg(json_build_object('id', id, 'name', name, 'body', body) order by lower(name), id)
         from (select id, name, body from ${schema.emailTemplates} where account_id = ${accountId} order by lower(name), id limit 50) x) as templates,
      (select json_agg(json_build_object('id', id, 'firstName', first_name, 'lastName', last_name, 'email', email) order by first_name, last_name)
         from ${schema.users} where account_id = ${accountId} and has_access and status = 'active') as mentionable,
      (select max(id) from ${schema.messages} where account_id = ${accountId} and conversation_id = ${id} and sender_user_id = ${userId}) as own_last,
      (select id from ${schema.conversations} where ${live} and (last_message_at, id) > (${at}::timestamptz, ${id})
        order by last_message_at asc, id asc limit 1) as newer_id,
      (select id from ${schema.conversations} where ${live} and (last_message_at, id) < (${at}::timestamptz, ${id})
        order by last_message_at desc, id desc limit 1) as older_id,
      (select json_agg(json_build_object('id', id, 'subject', subject, 'status', status, 'lastMessageAt', last_message_at) order by last_message_at desc)
         from (select id, subject, status, last_message_at from ${schema.conversations}
                where account_id = ${accountId} and contact_id = ${opts.contactId} and id <> ${id} and deleted_at is null
                order by last_message_at desc limit 10) x) as others,
      (select coalesce(sum(${seconds}), 0)::int from ${schema.timeEntries} te
         join ${schema.users} u on u.id = te.user_id and u.account_id = te.account_id
        where te.account_id = ${accountId} and te.conversation_id = ${id}) as time_seconds,
      exists (select 1 from ${schema.timeEntries} te
               where te.account_id = ${accountId} and te.conversation_id = ${id} and te.user_id = ${userId} and te.duration_seconds is null) as timer_running,
      (select json_agg(json_build_object('id', id, 'kind', kind, 'rating', rating, 'comment', comment, 'ratedAt', rated_at, 'requestedAt', requested_at) order by id desc)
         from ${schema.csatRatings} where account_id = ${accountId} and conversation_id = ${id}) as ratings,
      exists (select 1 from ${schema.integrationConnections} where account_id = ${accountId}) as has_connections,
      exists (select 1 from ${schema.aiSettings} where account_id = ${accountId} and base_url <> '') as ai_server`);
  const date = (s: string | null) => (s === null ? null : new Date(s));
  return {
    ...shapeOptions(row),
    canned: row.canned ?? [],
    templates: row.templates ?? [],
    mentionable: row.mentionable ?? [],
    ownLast: row.own_last === null ? 0 : Number(row.own_last),
    neighbours: { previousId: row.newer_id === null ? null : Number(row.newer_id), nextId: row.older_id === null ? null : Number(row.older_id) },
    others: opts.contactId === null ? [] : (row.others ?? []).map((o) => ({ ...o, status: o.status as (typeof schema.conversations.$inferSelect)['status'], lastMessageAt: new Date(o.lastMessageAt) })),
    time: { totalSeconds: Number(row.time_seconds), running: row.timer_running },
    ratings: (row.ratings ?? []).map((r) => ({ ...r, kind: r.kind as (typeof schema.csatRatings.$inferSelect)['kind'], ratedAt: date(r.ratedAt), requestedAt: date(r.requestedAt) })),
    hasConnections: row.has_connections,
    aiServer: row.ai_server,
  };
}
