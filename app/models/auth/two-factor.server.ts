import crypto from 'node:crypto';
import { and, eq, isNull, or, lt, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { checkRateLimit, hitRateLimit } from '../../utils/rate-limit.server';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { sha256, verifyPassword } from '../../utils/password.server';
import { emitEvent } from '../events/events.server';
import { sendEmail } from '../mail/mail.server';
import { consumeCode, issueToken } from './tokens.server';
import QRCode from 'qrcode';
import { generateTotpSecret, matchTotp, otpauthUri } from './totp.server';

/**
 * Two-factor sign-in (ADR 148): a code from an authenticator app (TOTP) or one mailed at sign-in, and ten recovery
 * codes for a lost phone or mailbox. Secrets are sealed with the secret box; recovery codes are kept as hashes.
 */
export const RECOVERY_CODE_COUNT = 10;
export const EMAIL_CODE_TTL_MS = 10 * 60_000;
/** Wrong second-step codes: 5 per 15 minutes per user, whichever way they were entered. */
export const CODE_LIMIT = { limit: 5, windowMs: 15 * 60_000 };

/** The name an authenticator app shows above the code. */
export const totpIssuer = (domain: string) => `Parley (${domain})`;

type Scope = { accountId: number; userId: number };

const byUser = (opts: Scope) => and(eq(schema.users.id, opts.userId), eq(schema.users.accountId, opts.accountId));
const totpContext = (opts: Scope) => ({ accountId: opts.accountId, purpose: `totp:${opts.userId}` });
const limitKey = (opts: Scope) => `two-factor:${opts.accountId}:${opts.userId}`;

export class TwoFactorError extends Error {}

export async function getTwoFactorState(opts: Scope) {
  const [user] = await getDb()
    .select({ method: schema.users.twoFactorMethod, email: schema.users.email })
    .from(schema.users)
    .where(byUser(opts));
  if (!user) throw new TwoFactorError('Unknown user');
  const [{ left }] = await getDb()
    .select({ left: sql<number>`count(*)::int` })
    .from(schema.recoveryCodes)
    .where(and(eq(schema.recoveryCodes.accountId, opts.accountId), eq(schema.recoveryCodes.userId, opts.userId), isNull(schema.recoveryCodes.usedAt)));
  return { method: user.method, email: user.email, recoveryCodesLeft: left };
}

/**
 * The secret an authenticator app is being set up with: made and sealed on first call, the same one until the
 * user confirms it or starts over. Refused while the app is already on (turn it off first).
 */
export async function getTotpSetup(opts: Scope & { issuer: string }) {
  const [user] = await getDb()
    .select({ method: schema.users.twoFactorMethod, secret: schema.users.totpSecret, email: schema.users.email })
    .from(schema.users)
    .where(byUser(opts));
  if (!user) throw new TwoFactorError('Unknown user');
  if (user.method === 'totp') throw new TwoFactorError('Two-factor sign-in with an authenticator app is already on.');
  let secret: string | null = null;
  if (user.secret) {
    try {
      secret = openSecret(user.secret, totpContext(opts));
    } catch {
      secret = null;
    }
  }
  if (!secret) {
    secret = generateTotpSecret();
    await getDb().update(schema.users).set({ totpSecret: sealSecret(secret, totpContext(opts)), totpLastStep: null }).where(byUser(opts));
  }
  const uri = otpauthUri({ secret, issuer: opts.issuer, accountName: user.email });
  return { secret, uri, qrSvg: await qrSvg(uri) };
}

/**
 * The setup link as a QR code, drawn on the server as SVG (an authenticator app scans it; no JavaScript needed). The
 * SVG holds only paths made by the qrcode package from the link, never the link's text.
 */
async function qrSvg(uri: string) {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#111827', light: '#ffffff' } });
}

/** Turns the authenticator app on once the user proves it works with a code; answers the new recovery codes. */
export async function confirmTotpSetup(opts: Scope & { code: string }) {
  await checkRateLimit(limitKey(opts), CODE_LIMIT);
  const [user] = await getDb()
    .select({ method: schema.users.twoFactorMethod, secret: schema.users.totpSecret })
    .from(schema.users)
    .where(byUser(opts));
  if (!user?.secret || user.method === 'totp') return { ok: false as const, message: 'Start the setup again.' };
  const step = matchTotp({ secret: openSecret(user.secret, totpContext(opts)), code: opts.code });
  if (step === null) {
    await hitRateLimit(limitKey(opts), CODE_LIMIT);
    return { ok: false as const, message: 'The code is not right. Enter the 6-digit code your app shows now.' };
  }
  const codes = await getDb().transaction(async (tx) => {
    await tx.update(schema.users).set({ twoFactorMethod: 'totp', totpLastStep: step, updatedAt: new Date() }).where(byUser(opts));
    await recordChange(tx, opts, 'totp');
    return replaceRecoveryCodes(opts, tx);
  });
  return { ok: true as const, codes };
}

/** Mails a code that confirms the address can receive sign-in codes (setup) or signs in (second step). */
export async function sendEmailCode(opts: Scope & { accountName: string }) {
  const [user] = await getDb().select({ email: schema.users.email }).from(schema.users).where(byUser(opts));
  if (!user) throw new TwoFactorError('Unknown user');
  // Sending is counted too, so the page cannot be used to flood a mailbox.
  await checkRateLimit(`${limitKey(opts)}:send`, { limit: 5, windowMs: 15 * 60_000 });
  await hitRateLimit(`${limitKey(opts)}:send`, { limit: 5, windowMs: 15 * 60_000 });
  const code = await issueToken({ ...opts, purpose: 'signin_code', kind: 'code', ttlMs: EMAIL_CODE_TTL_MS });
  await sendEmail({
    accountId: opts.accountId,
    to: user.email,
    subject: `Your Parley sign-in code: ${code}`,
    text: `Your sign-in code for ${opts.accountName} is ${code}.\n\nIt expires in 10 minutes and works once. If you did not try to sign in, change your password.`,
  });
  return { to: user.email };
}

/** Turns on codes by email once the user enters the code just mailed to them. */
export async function confirmEmailSetup(opts: Scope & { code: string }) {
  await checkRateLimit(limitKey(opts), CODE_LIMIT);
  const result = await consumeCode({ ...opts, purpose: 'signin_code', code: opts.code.trim() });
  if (result !== 'ok') {
    await hitRateLimit(limitKey(opts), CODE_LIMIT);
    return { ok: false as const, message: result === 'expired' ? 'The code has expired. Send a new one.' : 'The code is not right.' };
  }
  const codes = await getDb().transaction(async (tx) => {
    await tx.update(schema.users).set({ twoFactorMethod: 'email', totpSecret: null, totpLastStep: null, updatedAt: new Date() }).where(byUser(opts));
    await recordChange(tx, opts, 'email');
    return replaceRecoveryCodes(opts, tx);
  });
  return { ok: true as const, codes };
}

export type SecondStepResult = { ok: true; via: 'totp' | 'email' | 'recovery' } | { ok: false; message: string };

/**
 * The second step of sign-in: the app's code (each 30-second step accepted once), the mailed code, or an unused
 * recovery code. Throws the 429 once five wrong codes were entered within 15 minutes.
 */
export async function verifySecondFactor(opts: Scope & { code: string }): Promise<SecondStepResult> {
  await checkRateLimit(limitKey(opts), CODE_LIMIT);
  const result = await checkSecondFactor(opts);
  if (!result.ok) await hitRateLimit(limitKey(opts), CODE_LIMIT);
  return result;
}

const RECOVERY_PATTERN = /^[a-z2-7]{5}-?[a-z2-7]{5}$/;

async function checkSecondFactor(opts: Scope & { code: string }): Promise<SecondStepResult> {
  const code = opts.code.trim().toLowerCase().replace(/\s/g, '');
  const [user] = await getDb()
    .select({ method: schema.users.twoFactorMethod, secret: schema.users.totpSecret, lastStep: schema.users.totpLastStep })
    .from(schema.users)
    .where(byUser(opts));
  if (!user?.method) return { ok: false, message: 'Two-factor sign-in is not on for this user.' };
  if (RECOVERY_PATTERN.test(code)) {
    const used = await getDb()
      .update(schema.recoveryCodes)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(schema.recoveryCodes.accountId, opts.accountId),
          eq(schema.recoveryCodes.userId, opts.userId),
          eq(schema.recoveryCodes.codeHash, hashRecoveryCode(code)),
          isNull(schema.recoveryCodes.usedAt),
        ),
      )
      .returning({ id: schema.recoveryCodes.id });
    return used.length ? { ok: true, via: 'recovery' } : { ok: false, message: 'This recovery code is not valid or was already used.' };
  }
  if (!/^\d{6}$/.test(code)) return { ok: false, message: 'Enter the 6-digit code or a recovery code.' };
  if (user.method === 'email') {
    const result = await consumeCode({ ...opts, purpose: 'signin_code', code });
    if (result === 'ok') return { ok: true, via: 'email' };
    return { ok: false, message: result === 'expired' ? 'The code has expired. Send a new one.' : 'The code is not right.' };
  }
  if (!user.secret) return { ok: false, message: 'The code is not right.' };
  const step = matchTotp({ secret: openSecret(user.secret, totpContext(opts)), code, lastUsedStep: user.lastStep });
  if (step === null) return { ok: false, message: 'The code is not right, or it was already used. Wait for the next code.' };
  // The step is recorded only if no other request recorded it (or a later one) first: two requests racing with the
  // same code cannot both pass.
  const taken = await getDb()
    .update(schema.users)
    .set({ totpLastStep: step })
    .where(and(byUser(opts), or(isNull(schema.users.totpLastStep), lt(schema.users.totpLastStep, step))))
    .returning({ id: schema.users.id });
  return taken.length ? { ok: true, via: 'totp' } : { ok: false, message: 'The code is not right, or it was already used. Wait for the next code.' };
}

/** Turning two-factor off needs the password or a current code (or a recovery code). */
export async function disableTwoFactor(opts: Scope & { password?: string; code?: string; required: boolean }) {
  if (opts.required) return { ok: false as const, message: 'Your account requires two-factor sign-in: it cannot be turned off.' };
  let proven = false;
  if (opts.password) {
    const [user] = await getDb().select({ hash: schema.users.passwordHash }).from(schema.users).where(byUser(opts));
    proven = Boolean(user) && (await verifyPassword(opts.password, user.hash));
  } else if (opts.code) {
    proven = (await verifySecondFactor({ ...opts, code: opts.code })).ok;
  }
  if (!proven) return { ok: false as const, message: 'Enter your current password or a code to turn two-factor sign-in off.' };
  await getDb().transaction(async (tx) => {
    await tx.update(schema.users).set({ twoFactorMethod: null, totpSecret: null, totpLastStep: null, updatedAt: new Date() }).where(byUser(opts));
    await tx.delete(schema.recoveryCodes).where(and(eq(schema.recoveryCodes.accountId, opts.accountId), eq(schema.recoveryCodes.userId, opts.userId)));
    await recordChange(tx, opts, null);
  });
  return { ok: true as const };
}

/** New recovery codes (the old ones stop working); only for a user with two-factor on. */
export async function regenerateRecoveryCodes(opts: Scope) {
  const { method } = await getTwoFactorState(opts);
  if (!method) throw new TwoFactorError('Turn two-factor sign-in on first.');
  return getDb().transaction((tx) => replaceRecoveryCodes(opts, tx));
}

async function replaceRecoveryCodes(opts: Scope, tx: DbOrTx) {
  await tx.delete(schema.recoveryCodes).where(and(eq(schema.recoveryCodes.accountId, opts.accountId), eq(schema.recoveryCodes.userId, opts.userId)));
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.insert(schema.recoveryCodes).values(codes.map((c) => ({ accountId: opts.accountId, userId: opts.userId, codeHash: hashRecoveryCode(c) })));
  return codes;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** Ten letters and digits (50 bits), shown as `xxxxx-xxxxx`. */
function newRecoveryCode() {
  const chars = Array.from(crypto.randomBytes(10), (b) => ALPHABET[b & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
// 50 random bits cannot be guessed offline in any useful time even from a bare hash, and the 5-per-15-minutes limit guards online guessing.
const hashRecoveryCode = (code: string) => sha256(code.replace('-', ''));

async function recordChange(tx: Tx, opts: Scope, method: 'totp' | 'email' | null) {
  await emitEvent(tx, {
    accountId: opts.accountId,
    type: 'user_updated',
    subjectType: 'user',
    subjectId: opts.userId,
    payload: { changed: ['twoFactor'], twoFactor: method ?? 'off' },
    actor: { type: 'user', id: opts.userId },
  });
}

/**
 * What a user who gave the right password must still do: the second step if two-factor is on, the setup if the
 * account requires two-factor and they have none, or nothing. With codes by email, the code is mailed now.
 */
export async function signinStepFor(opts: Scope & { requireTwoFactor: boolean; accountName: string }) {
  const [user] = await getDb().select({ method: schema.users.twoFactorMethod }).from(schema.users).where(byUser(opts));
  if (user?.method === 'email') await sendEmailCode(opts).catch(rethrowUnlessLimited);
  if (user?.method) return 'two_factor' as const;
  return opts.requireTwoFactor ? ('two_factor_setup' as const) : null;
}

// A full sending window must not stop the sign-in: the second step page offers to send again later.
function rethrowUnlessLimited(err: unknown) {
  if (err instanceof Response && err.status === 429) return;
  throw err;
}
