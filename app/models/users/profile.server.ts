import { and, eq } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import { getDb, schema } from '../../../db/client';
import type { NotificationPreferences } from '../../../db/schema/users';
import { hashPassword, verifyPassword } from '../../utils/password.server';
import { revokeUserSessions } from '../auth/sessions.server';
import { emitEvent } from '../events/events.server';
import { AVATAR_TYPES, MAX_AVATAR_BYTES } from './schemas';

const byUser = (opts: { accountId: number; userId: number }) =>
  and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId));

/** Changes the user's own row and records `user_updated` with what changed, in one transaction. */
async function updateOwnRow(opts: { accountId: number; userId: number }, set: Partial<typeof schema.users.$inferInsert>, changed: string[]) {
  await getDb().transaction(async (tx) => {
    await tx
      .update(schema.users)
      .set({ ...set, updatedAt: new Date() })
      .where(byUser(opts));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'user_updated',
      subjectType: 'user',
      subjectId: opts.userId,
      payload: { changed },
      actor: { type: 'user', id: opts.userId },
    });
  });
}

/** The signed-in user's own profile: names and how dates and times are shown to them. */
export async function updateProfile(opts: {
  accountId: number;
  userId: number;
  firstName: string;
  lastName: string;
  dateFormat: string;
  timeFormat: '12' | '24';
  timezone: string;
}) {
  const { accountId, userId, ...changes } = opts;
  await updateOwnRow({ accountId, userId }, changes, Object.keys(changes));
}

export type ChangePasswordResult = { ok: true; revokedSessions: number } | { ok: false; reason: 'wrong_password' };

/** Checks the current password, stores the new one and signs the user out everywhere except here. */
export async function changePassword(opts: {
  accountId: number;
  userId: number;
  currentSessionId: string;
  currentPassword: string;
  newPassword: string;
}): Promise<ChangePasswordResult> {
  const db = getDb();
  const [user] = await db.select({ passwordHash: schema.users.passwordHash }).from(schema.users).where(byUser(opts));
  if (!user || !(await verifyPassword(opts.currentPassword, user.passwordHash))) return { ok: false, reason: 'wrong_password' };
  const passwordHash = await hashPassword(opts.newPassword);
  await updateOwnRow(opts, { passwordHash }, ['password']);
  const revokedSessions = await revokeUserSessions({ accountId: opts.accountId, userId: opts.userId, exceptId: opts.currentSessionId });
  return { ok: true, revokedSessions };
}

export type AvatarCheck = { ok: true; type: (typeof AVATAR_TYPES)[number] } | { ok: false; reason: 'type' | 'size' };

/** What the bytes are, whatever the file was called: only real JPEG and PNG images of at most 1 MB pass. */
export async function checkAvatarBytes(bytes: Uint8Array): Promise<AvatarCheck> {
  if (bytes.byteLength > MAX_AVATAR_BYTES) return { ok: false, reason: 'size' };
  const sniffed = await fileTypeFromBuffer(bytes);
  const type = AVATAR_TYPES.find((t) => t === sniffed?.mime);
  return type ? { ok: true, type } : { ok: false, reason: 'type' };
}

export async function setAvatar(opts: { accountId: number; userId: number; bytes: Uint8Array }): Promise<AvatarCheck> {
  const check = await checkAvatarBytes(opts.bytes);
  if (!check.ok) return check;
  await updateOwnRow(opts, { avatar: Buffer.from(opts.bytes), avatarType: check.type }, ['avatar']);
  return check;
}

export async function removeAvatar(opts: { accountId: number; userId: number }) {
  await updateOwnRow(opts, { avatar: null, avatarType: null }, ['avatar']);
}

/** A user's avatar bytes, only within the account asking. */
export async function getAvatar(opts: { accountId: number; userId: number }) {
  const [row] = await getDb()
    .select({ bytes: schema.users.avatar, type: schema.users.avatarType, updatedAt: schema.users.updatedAt })
    .from(schema.users)
    .where(byUser(opts));
  if (!row?.bytes || !row.type) return undefined;
  return { bytes: row.bytes, type: row.type, updatedAt: row.updatedAt };
}

export async function updateNotificationPreferences(opts: { accountId: number; userId: number; preferences: NotificationPreferences }) {
  await updateOwnRow(opts, { notificationPreferences: opts.preferences }, ['notificationPreferences']);
}
