import { and, eq, ne, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { verifyPassword } from '../../utils/password.server';
import { findLinkToken, issueToken, markTokenConsumed } from '../auth/tokens.server';
import { emitEvent } from '../events/events.server';
import { sendEmail } from '../mail/mail.server';

/** The link to the new address works for 24 hours, once. */
export const EMAIL_CHANGE_TTL_MS = 24 * 3600_000;

type Scope = { accountId: number; userId: number };
const byUser = (opts: Scope) => and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId));

export type EmailChangeRequest = { ok: true } | { ok: false; field: 'newEmail' | 'password'; message: string };

/**
 * Asks for a new sign-in address: the password proves it is the user, a link mailed to the new address proves
 * it is theirs. Nothing changes until the link is followed (confirmEmailChange).
 */
export async function requestEmailChange(opts: Scope & { newEmail: string; password: string; baseUrl: string }): Promise<EmailChangeRequest> {
  const newEmail = opts.newEmail.trim();
  const [user] = await getDb().select({ email: schema.users.email, hash: schema.users.passwordHash }).from(schema.users).where(byUser(opts));
  if (!user || !(await verifyPassword(opts.password, user.hash))) return { ok: false, field: 'password', message: 'Current password is incorrect' };
  if (user.email.toLowerCase() === newEmail.toLowerCase()) return { ok: false, field: 'newEmail', message: 'This is already your email address.' };
  if (await emailTaken({ ...opts, email: newEmail })) return { ok: false, field: 'newEmail', message: 'This email is already used by another user of this account.' };
  const token = await issueToken({ ...opts, purpose: 'email_change', kind: 'link', ttlMs: EMAIL_CHANGE_TTL_MS, newEmail });
  const link = `${opts.baseUrl}/confirm-email?token=${encodeURIComponent(token)}`;
  await sendEmail({
    accountId: opts.accountId,
    to: newEmail,
    subject: 'Confirm your new Parley email address',
    text: `You asked to sign in to Parley with ${newEmail} instead of ${user.email}.\n\nConfirm the change: ${link}\n\nThe link works once, for 24 hours. Until then nothing changes. If it was not you, ignore this email.`,
  });
  return { ok: true };
}

async function emailTaken(opts: Scope & { email: string }) {
  const [row] = await getDb()
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), ne(schema.users.id, opts.userId), sql`lower(${schema.users.email}) = ${opts.email.toLowerCase()}`));
  return Boolean(row);
}

/** What the confirmation page shows before the user confirms; undefined for a used, expired or unknown link. */
export async function describeEmailChange(opts: { accountId: number; token: string }) {
  const row = await findLinkToken({ ...opts, purposes: ['email_change'] });
  if (!row?.newEmail) return undefined;
  const [user] = await getDb().select({ email: schema.users.email }).from(schema.users).where(byUser({ accountId: opts.accountId, userId: row.userId }));
  return user ? { oldEmail: user.email, newEmail: row.newEmail } : undefined;
}

export type EmailChangeResult = { ok: true; userId: number; oldEmail: string; newEmail: string } | { ok: false; message: string };

/** Follows the link: the address changes, the old address is told, the link is spent. */
export async function confirmEmailChange(opts: { accountId: number; token: string }): Promise<EmailChangeResult> {
  const row = await findLinkToken({ ...opts, purposes: ['email_change'] });
  if (!row?.newEmail) return { ok: false, message: 'This link has expired or was already used. Ask for the change again from your profile.' };
  const newEmail = row.newEmail;
  const scope = { accountId: opts.accountId, userId: row.userId };
  if (await emailTaken({ ...scope, email: newEmail })) return { ok: false, message: 'This email is already used by another user of this account.' };
  const result = await getDb()
    .transaction(async (tx) => {
      await markTokenConsumed(row.id, tx);
      const [before] = await tx.select({ email: schema.users.email }).from(schema.users).where(byUser(scope)).for('update');
      await tx.update(schema.users).set({ email: newEmail, emailVerifiedAt: new Date(), updatedAt: new Date() }).where(byUser(scope));
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'user_updated',
        subjectType: 'user',
        subjectId: row.userId,
        payload: { changed: ['email'], before: { email: before.email }, after: { email: newEmail } },
        actor: { type: 'user', id: row.userId },
      });
      return { ok: true as const, userId: row.userId, oldEmail: before.email, newEmail };
    })
    .catch((err: { cause?: { code?: string } }) => {
      // Another user took the address in between (the unique index says so).
      if (err.cause?.code === '23505') return { ok: false as const, message: 'This email is already used by another user of this account.' };
      throw err;
    });
  if (result.ok) {
    await sendEmail({
      accountId: opts.accountId,
      to: result.oldEmail,
      subject: 'Your Parley email address was changed',
      text: `The email address you sign in to Parley with was changed from ${result.oldEmail} to ${result.newEmail}.\n\nIf you did not ask for this, contact your account administrator at once.`,
    });
  }
  return result;
}
