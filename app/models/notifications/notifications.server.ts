import { and, asc, count, desc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { publishToAccount } from '../../utils/live.server';
import { enqueueInTx, enqueueOnceInTx, QUEUES } from '../../utils/jobs.server';
import { formatDateTime } from '../../utils/format';
import { accountLink } from '../../utils/tenant.server';
import { sendEmail } from '../mail/mail.server';
import { readNotificationPreferences } from '../users/schemas';

/**
 * What tells an agent that something needs them (ADR 034): a row per user in `notifications` (the bell, live over
 * the websocket) and, when their preferences say so, one email per conversation every few minutes that carries
 * everything that happened in it meanwhile.
 */

export const NOTIFICATION_KINDS = ['assigned', 'team_assigned', 'customer_message', 'mention', 'sla_warning', 'sla_breached', 'new_conversation'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** How long a conversation's notifications gather before their one email leaves. */
export const NOTIFICATION_EMAIL_BATCH_SECONDS = 180;

type Preferences = ReturnType<typeof readNotificationPreferences>;

/** Which preference asks for an email of each kind. */
const EMAIL_PREFERENCE: Record<NotificationKind, keyof Preferences> = {
  assigned: 'emailOnAssignment',
  team_assigned: 'emailOnAssignment',
  customer_message: 'emailOnCustomerMessage',
  mention: 'emailOnMention',
  sla_warning: 'emailOnSla',
  sla_breached: 'emailOnSla',
  new_conversation: 'emailOnNewConversation',
};

export function wantsEmail(preferences: Partial<Preferences> | null | undefined, kind: NotificationKind) {
  return Boolean(readNotificationPreferences(preferences)[EMAIL_PREFERENCE[kind]]);
}

/** One notification for one user, published at once (or at the commit of the given transaction). */
export async function createNotification(
  opts: {
    accountId: number;
    userId: number;
    title: string;
    body?: string;
    link?: string;
    eventId?: number;
    kind?: NotificationKind;
    conversationId?: number;
    /** Already emailed, or no email wanted: the batch mail leaves it out. */
    emailed?: boolean;
  },
  db: DbOrTx = getDb(),
) {
  const [row] = await db
    .insert(schema.notifications)
    .values({
      accountId: opts.accountId,
      userId: opts.userId,
      title: opts.title,
      body: opts.body ?? '',
      link: opts.link ?? null,
      eventId: opts.eventId ?? null,
      kind: opts.kind ?? null,
      conversationId: opts.conversationId ?? null,
      emailedAt: opts.emailed === false ? null : new Date(),
    })
    .returning();
  // Title, body and link let an open tab show it as a desktop notification too (ADR 155).
  await publishToAccount(
    opts.accountId,
    { type: 'notification', id: row.id, title: row.title, body: row.body, link: row.link, at: row.createdAt.getTime() },
    { userId: opts.userId, tx: db === getDb() ? undefined : db },
  );
  return row;
}

/**
 * Notifies some users of one thing that happened in a conversation: users of other accounts, without access, or the
 * actor themself are left out. Inserts, email timers, desktop push jobs and the live message all commit together.
 * This is the one place that decides who is told: the bell, the email (per kind, by the preferences) and the desktop
 * notification (every notification, for agents who turned "Browser push notifications" on and subscribed a browser;
 * ADR 155) all follow from it.
 */
export async function notifyUsers(opts: {
  accountId: number;
  userIds: number[];
  kind: NotificationKind;
  conversationId: number;
  title: string;
  body?: string;
  eventId?: number;
  /** Who caused it: not told of their own doing. */
  actorUserId?: number | null;
}) {
  const ids = [...new Set(opts.userIds.filter((id) => Number.isSafeInteger(id) && id !== opts.actorUserId))];
  if (ids.length === 0) return [];
  const users = await getDb()
    .select({
      id: schema.users.id,
      preferences: schema.users.notificationPreferences,
      // A browser to push to: no job for an agent who turned the option on but subscribed no browser. (The outer
      // columns are spelt out: drizzle leaves them unqualified in a one-table select, where they would read the inner table.)
      hasBrowser: sql<boolean>`exists (select 1 from ${schema.agentPushSubscriptions} s where s.account_id = "users"."account_id" and s.user_id = "users"."id")`,
    })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), inArray(schema.users.id, ids), eq(schema.users.hasAccess, true), eq(schema.users.status, 'active')));
  if (users.length === 0) return [];
  return getDb().transaction(async (tx) => {
    const rows = [];
    for (const u of users) {
      const email = wantsEmail(u.preferences, opts.kind);
      rows.push(
        await createNotification(
          {
            accountId: opts.accountId,
            userId: u.id,
            title: opts.title,
            body: opts.body,
            link: `/inbox/${opts.conversationId}`,
            eventId: opts.eventId,
            kind: opts.kind,
            conversationId: opts.conversationId,
            emailed: !email,
          },
          tx,
        ),
      );
      if (email) await scheduleNotificationEmail(tx, { accountId: opts.accountId, userId: u.id, conversationId: opts.conversationId });
      if (u.hasBrowser && readNotificationPreferences(u.preferences).browserPush) {
        await enqueueInTx(tx, QUEUES.notificationPush, { accountId: opts.accountId, notificationId: rows[rows.length - 1].id });
      }
    }
    return rows;
  });
}

/**
 * The batch timer: one job per user and conversation waits NOTIFICATION_EMAIL_BATCH_SECONDS (a job of that key
 * already waiting takes the new notification along; pg-boss's `short` policy keeps one).
 */
function scheduleNotificationEmail(tx: Tx, opts: { accountId: number; userId: number; conversationId: number }) {
  return enqueueOnceInTx(tx, QUEUES.notificationEmail, opts, {
    startAfter: new Date(Date.now() + NOTIFICATION_EMAIL_BATCH_SECONDS * 1000),
    singletonKey: `${opts.accountId}:${opts.userId}:${opts.conversationId}`,
  });
}

/** The notifications.email job: everything not yet mailed about one conversation, in one email. */
export async function sendNotificationEmail(opts: { accountId: number; userId: number; conversationId: number }) {
  const n = schema.notifications;
  const picked = await getDb().transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(n)
      .where(and(eq(n.accountId, opts.accountId), eq(n.userId, opts.userId), eq(n.conversationId, opts.conversationId), isNull(n.emailedAt)))
      .orderBy(asc(n.id))
      .for('update', { skipLocked: true });
    if (rows.length === 0) return null;
    await tx
      .update(n)
      .set({ emailedAt: new Date() })
      .where(and(eq(n.accountId, opts.accountId), inArray(n.id, rows.map((r) => r.id))));
    const [user] = await tx
      .select({ email: schema.users.email, dateFormat: schema.users.dateFormat, timeFormat: schema.users.timeFormat, timezone: schema.users.timezone })
      .from(schema.users)
      .where(and(eq(schema.users.accountId, opts.accountId), eq(schema.users.id, opts.userId)));
    const [conversation] = await tx
      .select({ subject: schema.conversations.subject, domain: schema.accounts.domain })
      .from(schema.conversations)
      .innerJoin(schema.accounts, eq(schema.accounts.id, schema.conversations.accountId))
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
    return user && conversation ? { rows, user, conversation } : null;
  });
  if (!picked) return { sent: 0 };
  const { rows, user, conversation } = picked;
  const link = accountLink(conversation.domain, `/inbox/${opts.conversationId}`);
  const title = `#${opts.conversationId} ${conversation.subject || '(no subject)'}`;
  const lines = rows.map((r) => `- ${formatDateTime(r.createdAt, user)}: ${r.title}${r.body ? `\n  ${r.body.replace(/\n/g, '\n  ')}` : ''}`);
  // A failure here is retried by pg-boss; the rows stay marked, so a retry does not mail them twice.
  await sendEmail({
    accountId: opts.accountId,
    to: user.email,
    subject: rows.length === 1 ? `${rows[0].title} (${title})` : `${rows.length} updates in ${title}`,
    text: `${lines.join('\n')}\n\nOpen the conversation: ${link}\n\nChoose which emails you get under Settings → Notification.\n`,
  });
  return { sent: 1, notifications: rows.length };
}

export async function listNotifications(opts: { accountId: number; userId: number; limit?: number }) {
  return getDb()
    .select()
    .from(schema.notifications)
    .where(and(eq(schema.notifications.accountId, opts.accountId), eq(schema.notifications.userId, opts.userId)))
    .orderBy(desc(schema.notifications.createdAt), desc(schema.notifications.id))
    .limit(opts.limit ?? 50);
}

export async function countUnreadNotifications(opts: { accountId: number; userId: number }) {
  const [row] = await getDb()
    .select({ n: count() })
    .from(schema.notifications)
    .where(and(eq(schema.notifications.accountId, opts.accountId), eq(schema.notifications.userId, opts.userId), isNull(schema.notifications.readAt)));
  return row.n;
}

/** Marks all of a user's notifications read, or one of them (`id`); answers how many changed. */
export async function markNotificationsRead(opts: { accountId: number; userId: number; id?: number }) {
  const rows = await getDb()
    .update(schema.notifications)
    .set({ readAt: new Date() })
    .where(
      and(
        eq(schema.notifications.accountId, opts.accountId),
        eq(schema.notifications.userId, opts.userId),
        isNull(schema.notifications.readAt),
        opts.id !== undefined ? eq(schema.notifications.id, opts.id) : undefined,
      ),
    )
    .returning({ id: schema.notifications.id });
  if (rows.length) await publishToAccount(opts.accountId, { type: 'notification.read', ids: rows.map((r) => r.id) }, { userId: opts.userId });
  return rows.length;
}

// ---------------------------------------------------------------------------------------------------------
// Who is told (the engine's notifications handler calls these)

/** Members of a team of the account. */
export async function teamMemberIds(opts: { accountId: number; teamId: number }) {
  const rows = await getDb()
    .select({ id: schema.teamMembers.userId })
    .from(schema.teamMembers)
    .innerJoin(schema.users, and(eq(schema.users.id, schema.teamMembers.userId), eq(schema.users.accountId, opts.accountId)))
    .where(eq(schema.teamMembers.teamId, opts.teamId));
  return rows.map((r) => r.id);
}

/** The conversation's subject, assignee and team, for a notification's words and its recipients. */
export async function conversationForNotice(opts: { accountId: number; conversationId: number }) {
  return (await conversationsForNotice([opts]))[0];
}

/** `conversationForNotice` for many (a batch of events, ADR 043) in one read; answers in order, undefined when gone. */
export async function conversationsForNotice(wanted: { accountId: number; conversationId: number }[]) {
  if (wanted.length === 0) return [];
  const rows = await getDb()
    .select({
      accountId: schema.conversations.accountId,
      id: schema.conversations.id,
      subject: schema.conversations.subject,
      assigneeId: schema.conversations.assigneeId,
      teamId: schema.conversations.teamId,
      firstResponseDueAt: schema.conversations.firstResponseDueAt,
      resolveDueAt: schema.conversations.resolveDueAt,
      firstRespondedAt: schema.conversations.firstRespondedAt,
      status: schema.conversations.status,
      responseBreachedAt: schema.conversations.responseBreachedAt,
      resolveBreachedAt: schema.conversations.resolveBreachedAt,
    })
    .from(schema.conversations)
    .where(
      and(
        inArray(schema.conversations.id, [...new Set(wanted.map((w) => w.conversationId))]),
        inArray(schema.conversations.accountId, [...new Set(wanted.map((w) => w.accountId))]),
        isNull(schema.conversations.deletedAt),
      ),
    );
  const byId = new Map(rows.map(({ accountId, ...row }) => [`${accountId}:${row.id}`, row]));
  return wanted.map((w) => byId.get(`${w.accountId}:${w.conversationId}`));
}

/** Users who asked for a mail about every new conversation. */
export async function usersWantingNewConversations(opts: { accountId: number }) {
  const rows = await getDb()
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(
      and(
        eq(schema.users.accountId, opts.accountId),
        eq(schema.users.hasAccess, true),
        ne(schema.users.status, 'pending'),
        sql`(${schema.users.notificationPreferences} ->> 'emailOnNewConversation') = 'true'`,
      ),
    );
  return rows.map((r) => r.id);
}

export type MessageForNotice = { text: string; kind: string; senderUserId: number | null };

/** A message's text and author, for a notification's body. */
export async function messageForNotice(opts: { accountId: number; messageId: number }): Promise<MessageForNotice | undefined> {
  return (await messagesForNotice([opts]))[0];
}

/** Several messages' text and author in one query (the engine's batch), in the order asked; undefined when gone. */
export async function messagesForNotice(wanted: { accountId: number; messageId: number }[]): Promise<(MessageForNotice | undefined)[]> {
  if (wanted.length === 0) return [];
  const rows = await getDb()
    .select({ accountId: schema.messages.accountId, id: schema.messages.id, text: schema.messages.text, kind: schema.messages.kind, senderUserId: schema.messages.senderUserId })
    .from(schema.messages)
    .where(
      and(
        inArray(schema.messages.id, [...new Set(wanted.map((w) => w.messageId))]),
        inArray(schema.messages.accountId, [...new Set(wanted.map((w) => w.accountId))]),
      ),
    );
  const byId = new Map(rows.map(({ accountId, id, ...row }) => [`${accountId}:${id}`, row]));
  return wanted.map((w) => byId.get(`${w.accountId}:${w.messageId}`));
}

// ---------------------------------------------------------------------------------------------------------
// SLA about to breach

/** How long before an SLA due time its warning comes: 15 minutes, or a quarter of the time left when that is less. */
export const SLA_WARNING_LEAD_MS = 15 * 60_000;

/** Called where SLA timers are set: a warning timer a little before the due time (none when it is already past). */
export async function scheduleSlaWarning(tx: Tx, job: { accountId: number; conversationId: number; target: 'response' | 'resolve'; dueAt: Date }) {
  const left = job.dueAt.getTime() - Date.now();
  if (left <= 0) return null;
  const lead = Math.min(SLA_WARNING_LEAD_MS, left / 4);
  return enqueueOnceInTx(tx, QUEUES.slaWarning, { ...job, dueAt: job.dueAt.toISOString() }, {
    startAfter: new Date(job.dueAt.getTime() - lead),
    singletonKey: `${job.accountId}:${job.conversationId}:${job.target}:${job.dueAt.toISOString()}`,
  });
}

/** Who answers for a conversation: its assignee, else its team's members. */
async function responsibleUsers(accountId: number, c: { assigneeId: number | null; teamId: number | null }) {
  if (c.assigneeId) return [c.assigneeId];
  return c.teamId ? teamMemberIds({ accountId, teamId: c.teamId }) : [];
}

/** The sla.warning timer: the target is still open and its due time unchanged, so the people on it are told. */
export async function warnSlaDue(opts: { accountId: number; conversationId: number; target: 'response' | 'resolve'; dueAt: string }) {
  const c = await conversationForNotice(opts);
  if (!c) return { warned: 0, why: 'gone' };
  const due = opts.target === 'response' ? c.firstResponseDueAt : c.resolveDueAt;
  if (!due || due.toISOString() !== new Date(opts.dueAt).toISOString()) return { warned: 0, why: 'stale timer' };
  const done = opts.target === 'response' ? Boolean(c.firstRespondedAt || c.responseBreachedAt) : c.status === 'resolved' || Boolean(c.resolveBreachedAt);
  if (done) return { warned: 0, why: 'met' };
  const minutes = Math.max(1, Math.round((due.getTime() - Date.now()) / 60_000));
  const rows = await notifyUsers({
    accountId: opts.accountId,
    userIds: await responsibleUsers(opts.accountId, c),
    kind: 'sla_warning',
    conversationId: c.id,
    title: `SLA ${opts.target === 'response' ? 'first response' : 'resolution'} due in ${minutes} min: #${c.id} ${c.subject || '(no subject)'}`,
  });
  return { warned: rows.length };
}

export { responsibleUsers };
