import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { publishToAccount } from '../../utils/live.server';

export async function createNotification(
  opts: { accountId: number; userId: number; title: string; body?: string; link?: string; eventId?: number },
  db: DbOrTx = getDb(),
) {
  const [row] = await db
    .insert(schema.notifications)
    .values({ accountId: opts.accountId, userId: opts.userId, title: opts.title, body: opts.body ?? '', link: opts.link ?? null, eventId: opts.eventId ?? null })
    .returning();
  await publishToAccount(opts.accountId, { type: 'notification', id: row.id, title: row.title }, { userId: opts.userId });
  return row;
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

export async function markNotificationsRead(opts: { accountId: number; userId: number }) {
  await getDb()
    .update(schema.notifications)
    .set({ readAt: new Date() })
    .where(and(eq(schema.notifications.accountId, opts.accountId), eq(schema.notifications.userId, opts.userId), isNull(schema.notifications.readAt)));
}
