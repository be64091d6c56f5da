import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { sendEmail } from '../mail/mail.server';
import { issueToken } from '../auth/tokens.server';

export class UserExistsError extends Error {}

/**
 * Invites someone to the account with a role. The user row exists at once (pending, no password);
 * the `user_invited` event makes the engine send the email with the set-password link.
 */
export async function inviteUser(opts: {
  accountId: number;
  invitedById: number;
  email: string;
  firstName: string;
  lastName: string;
  roleId: number;
  baseUrl: string;
}) {
  const db = getDb();
  try {
    return await db.transaction(async (tx) => {
      const [role] = await tx
        .select({ id: schema.roles.id, kind: schema.roles.kind })
        .from(schema.roles)
        .where(and(eq(schema.roles.id, opts.roleId), eq(schema.roles.accountId, opts.accountId)));
      if (!role) throw new Error('Role not found');
      const [user] = await tx
        .insert(schema.users)
        .values({
          accountId: opts.accountId,
          roleId: role.id,
          email: opts.email.toLowerCase(),
          firstName: opts.firstName,
          lastName: opts.lastName,
          status: 'pending',
          invitedById: opts.invitedById,
          invitedAt: new Date(),
        })
        .returning();
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'user_invited',
        subjectType: 'user',
        subjectId: user.id,
        payload: { email: user.email, roleId: role.id, baseUrl: opts.baseUrl },
        actor: { type: 'user', id: opts.invitedById },
      });
      return user;
    });
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw new UserExistsError();
    throw err;
  }
}

/** Resends the invitation of a user who has not accepted yet. Returns false if they already have. */
export async function resendInvitation(opts: { accountId: number; userId: number; actorId: number; baseUrl: string }) {
  return getDb().transaction(async (tx) => {
    const [user] = await tx
      .select()
      .from(schema.users)
      .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
    if (!user || user.status !== 'pending' || !user.invitedAt) return false;
    await tx.update(schema.users).set({ invitedAt: new Date() }).where(eq(schema.users.id, user.id));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'user_invited',
      subjectType: 'user',
      subjectId: user.id,
      payload: { email: user.email, roleId: user.roleId, baseUrl: opts.baseUrl, resend: true },
      actor: { type: 'user', id: opts.actorId },
    });
    return true;
  });
}

/** Run by the engine on `user_invited`: a fresh link (earlier ones stop working) mailed to the invitee. */
export async function sendInvitationEmail(opts: { accountId: number; userId: number; baseUrl: string }) {
  const db = getDb();
  const [row] = await db
    .select({ user: schema.users, account: schema.accounts })
    .from(schema.users)
    .innerJoin(schema.accounts, eq(schema.accounts.id, schema.users.accountId))
    .where(and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId)));
  if (!row || row.user.status !== 'pending') return { sent: false, reason: 'not pending' };
  const inviter = row.user.invitedById
    ? (await db.select().from(schema.users).where(and(eq(schema.users.id, row.user.invitedById), eq(schema.users.accountId, opts.accountId))))[0]
    : undefined;
  const token = await issueToken({ accountId: opts.accountId, userId: row.user.id, purpose: 'invitation', kind: 'link' });
  const link = `${opts.baseUrl}/set-password?token=${encodeURIComponent(token)}`;
  const mail = await sendEmail({
    accountId: opts.accountId,
    to: row.user.email,
    subject: `You are invited to ${row.account.name} on Parley`,
    text:
      `${inviter ? `${inviter.firstName} ${inviter.lastName}`.trim() : 'Your team'} invited you to ${row.account.name} on Parley.\n\n` +
      `Set your password to join: ${link}\n\nThe link works for 3 days.`,
  });
  return { sent: true, emailId: mail.id };
}
