import { and, asc, eq } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { ChannelType } from '../../../db/schema/inbox';
import { emitEvent } from '../events/events.server';
import { randomToken } from '../../utils/password.server';

export type Inbox = typeof schema.inboxes.$inferSelect;

export async function listInboxes(opts: { accountId: number; channelType?: ChannelType }, db: DbOrTx = getDb()) {
  return db
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), opts.channelType ? eq(schema.inboxes.channelType, opts.channelType) : undefined))
    .orderBy(asc(schema.inboxes.name));
}

export async function getInbox(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.id)));
  return row;
}

export class InboxNameTakenError extends Error {}

/** Creates an inbox of a channel; email inboxes get their forwarding token and a secret for the raw-MIME endpoint. */
export async function createInbox(opts: {
  accountId: number;
  actorId: number | null;
  name: string;
  channelType: ChannelType;
  email?: string | null;
  settings?: Record<string, unknown>;
  /** A secret shown to the user before the inbox existed (custom SMS); a new random one otherwise. */
  secret?: string;
}) {
  try {
    return await getDb().transaction(async (tx) => {
      const [inbox] = await tx
        .insert(schema.inboxes)
        .values({
          accountId: opts.accountId,
          name: opts.name,
          channelType: opts.channelType,
          email: opts.email?.toLowerCase() ?? null,
          forwardingToken: opts.channelType === 'email' ? randomToken(9).toLowerCase().replace(/[^a-z0-9]/g, 'x') : null,
          secret: opts.secret ?? randomToken(24),
          settings: opts.settings ?? {},
        })
        .returning();
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'inbox_created',
        subjectType: 'inbox',
        subjectId: inbox.id,
        payload: { channelType: inbox.channelType, name: inbox.name },
        actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
      });
      return inbox;
    });
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw new InboxNameTakenError();
    throw err;
  }
}

export async function updateInbox(opts: {
  accountId: number;
  actorId: number | null;
  id: number;
  changes: Partial<Pick<Inbox, 'name' | 'email' | 'settings' | 'forwardingVerifiedAt' | 'businessHoursId'>>;
}) {
  try {
    return await getDb().transaction(async (tx) => {
      const [inbox] = await tx
        .update(schema.inboxes)
        .set({ ...opts.changes, updatedAt: new Date() })
        .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.id)))
        .returning();
      if (!inbox) return undefined;
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'inbox_updated',
        subjectType: 'inbox',
        subjectId: inbox.id,
        payload: { changed: Object.keys(opts.changes) },
        actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
      });
      return inbox;
    });
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw new InboxNameTakenError();
    throw err;
  }
}

/** Deletes an inbox with its conversations (the confirmation says so). */
export async function deleteInbox(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [inbox] = await tx
      .delete(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.id)))
      .returning();
    if (!inbox) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'inbox_deleted',
      subjectType: 'inbox',
      subjectId: inbox.id,
      payload: { name: inbox.name },
      actor: { type: 'user', id: opts.actorId },
    });
    return inbox;
  });
}
