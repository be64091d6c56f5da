import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { hashPassword, verifyPassword } from '../../utils/password.server';
import { emitEvent } from '../events/events.server';
import { sendEmail } from '../mail/mail.server';
import { listAccountsOfEmail } from '../accounts/accounts.server';
import { consumeCode, findLinkToken, issueToken, markTokenConsumed, type CodeCheck } from './tokens.server';
import { revokeUserSessions } from './sessions.server';

export async function findUserByEmail(opts: { accountId: number; email: string }) {
  const [user] = await getDb()
    .select()
    .from(schema.users)
    .where(and(eq(schema.users.accountId, opts.accountId), sql`lower(${schema.users.email}) = ${opts.email.toLowerCase()}`));
  return user;
}

export type CredentialCheck =
  | { ok: true; user: typeof schema.users.$inferSelect }
  | { ok: false; reason: 'invalid' | 'unverified' | 'no_access' };

/** Same answer and roughly the same time whether the email exists or not. */
export async function verifyCredentials(opts: { accountId: number; email: string; password: string }): Promise<CredentialCheck> {
  const user = await findUserByEmail(opts);
  const valid = await verifyPassword(opts.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !valid || !user.passwordHash) return { ok: false, reason: 'invalid' };
  if (user.status !== 'active') return { ok: false, reason: 'unverified' };
  if (!user.hasAccess) return { ok: false, reason: 'no_access' };
  return { ok: true, user };
}
// A real scrypt hash of a random string: verifying against it costs what a real check costs.
const DUMMY_HASH = 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA==$3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export async function sendSignupCode(opts: { accountId: number; userId: number; email: string; domain: string }) {
  const code = await issueToken({ accountId: opts.accountId, userId: opts.userId, purpose: 'email_verification', kind: 'code' });
  await sendEmail({
    accountId: opts.accountId,
    to: opts.email,
    subject: `Your Parley verification code: ${code}`,
    text: `Your verification code for ${opts.domain} is ${code}.\n\nIt expires in 15 minutes. If you did not sign up for Parley, ignore this email.`,
  });
}

/** Confirms the owner's email with the emailed code; the user becomes active. */
export async function confirmEmailCode(opts: { accountId: number; email: string; code: string }): Promise<CodeCheck | 'ok'> {
  const user = await findUserByEmail(opts);
  if (!user) return 'invalid';
  const db = getDb();
  return db.transaction(async (tx) => {
    const result = await consumeCode({ accountId: opts.accountId, userId: user.id, purpose: 'email_verification', code: opts.code }, tx);
    if (result !== 'ok') return result;
    await tx
      .update(schema.users)
      .set({ status: 'active', emailVerifiedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(schema.users.id, user.id), eq(schema.users.accountId, opts.accountId)));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'user_activated',
      subjectType: 'user',
      subjectId: user.id,
      payload: { via: 'email_verification' },
      actor: { type: 'user', id: user.id },
    });
    return 'ok';
  });
}

export async function sendPasswordReset(opts: { accountId: number; email: string; baseUrl: string }) {
  const user = await findUserByEmail(opts);
  // Say nothing about whether the address exists: the page answers the same either way.
  if (!user || !user.hasAccess) return;
  const token = await issueToken({ accountId: opts.accountId, userId: user.id, purpose: 'password_reset', kind: 'link', ttlMs: 3600_000 });
  const link = `${opts.baseUrl}/set-password?token=${encodeURIComponent(token)}`;
  await sendEmail({
    accountId: opts.accountId,
    to: user.email,
    subject: 'Reset your Parley password',
    text: `Someone asked to reset the password of ${user.email}.\n\nSet a new password: ${link}\n\nThe link works for one hour. If it was not you, ignore this email.`,
  });
}

/** Sets a password from an invitation or reset link; an invited user becomes active and their email confirmed. */
export async function setPasswordWithToken(opts: { accountId: number; token: string; password: string }) {
  const db = getDb();
  const row = await findLinkToken({ accountId: opts.accountId, token: opts.token, purposes: ['invitation', 'password_reset'] });
  if (!row) return { ok: false as const };
  const passwordHash = await hashPassword(opts.password);
  const user = await db.transaction(async (tx) => {
    await markTokenConsumed(row.id, tx);
    const [user] = await tx
      .update(schema.users)
      .set({ passwordHash, status: 'active', emailVerifiedAt: sql`coalesce(${schema.users.emailVerifiedAt}, now())`, updatedAt: new Date() })
      .where(and(eq(schema.users.id, row.userId), eq(schema.users.accountId, opts.accountId)))
      .returning();
    if (row.purpose === 'invitation') {
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'user_activated',
        subjectType: 'user',
        subjectId: user.id,
        payload: { via: 'invitation' },
        actor: { type: 'user', id: user.id },
      });
    }
    return user;
  });
  await revokeUserSessions({ userId: user.id, accountId: opts.accountId });
  return { ok: true as const, user, purpose: row.purpose };
}

export async function describeLinkToken(opts: { accountId: number; token: string }) {
  const row = await findLinkToken({ accountId: opts.accountId, token: opts.token, purposes: ['invitation', 'password_reset'] });
  if (!row) return undefined;
  const [user] = await getDb().select().from(schema.users).where(and(eq(schema.users.id, row.userId), eq(schema.users.accountId, opts.accountId)));
  return { purpose: row.purpose, email: user.email, firstName: user.firstName };
}

/** Emails the list of account domains an address belongs to. Silent when there are none. */
export async function sendDomainReminder(opts: { email: string; accountUrl: (domain: string) => string }) {
  const accounts = await listAccountsOfEmail(opts.email);
  if (accounts.length === 0) return;
  await sendEmail({
    to: opts.email,
    subject: 'Your Parley accounts',
    text: `You belong to these Parley accounts:\n\n${accounts.map((a) => `- ${a.name}: ${opts.accountUrl(a.domain)}`).join('\n')}\n`,
  });
}
