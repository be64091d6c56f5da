import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import { randomCode, randomToken, sha256 } from '../../utils/password.server';

type Purpose = NonNullable<typeof schema.verificationTokens.$inferSelect.purpose>;

export const CODE_TTL_MS = 15 * 60_000;
export const LINK_TTL_MS = 3 * 24 * 3600_000;
export const MAX_CODE_ATTEMPTS = 5;

/** Issues a six-digit code (email verification) or a long link token; earlier unused ones of the same purpose stop working. */
export async function issueToken(
  opts: { accountId: number; userId: number; purpose: Purpose; kind: 'code' | 'link'; ttlMs?: number; newEmail?: string },
  db: DbOrTx = getDb(),
) {
  const token = opts.kind === 'code' ? randomCode() : randomToken();
  await db
    .update(schema.verificationTokens)
    .set({ consumedAt: new Date() })
    .where(
      and(
        eq(schema.verificationTokens.userId, opts.userId),
        eq(schema.verificationTokens.purpose, opts.purpose),
        isNull(schema.verificationTokens.consumedAt),
      ),
    );
  // Codes are short, so each is hashed with its own salt (`salt$hash`); link tokens are long and random.
  const salt = randomToken(8);
  const tokenHash = opts.kind === 'code' ? `${salt}$${sha256(`${salt}:${token}`)}` : sha256(token);
  await db.insert(schema.verificationTokens).values({
    accountId: opts.accountId,
    userId: opts.userId,
    purpose: opts.purpose,
    tokenHash,
    newEmail: opts.newEmail ?? null,
    expiresAt: new Date(Date.now() + (opts.ttlMs ?? (opts.kind === 'code' ? CODE_TTL_MS : LINK_TTL_MS))),
  });
  return token;
}

export type CodeCheck = 'ok' | 'invalid' | 'expired' | 'too_many_attempts';

/** Checks a six-digit code; wrong guesses count, and after five the code is dead. */
export async function consumeCode(opts: { accountId: number; userId: number; purpose: Purpose; code: string }, db: DbOrTx = getDb()): Promise<CodeCheck> {
  const [row] = await db
    .select()
    .from(schema.verificationTokens)
    .where(
      and(
        eq(schema.verificationTokens.accountId, opts.accountId),
        eq(schema.verificationTokens.userId, opts.userId),
        eq(schema.verificationTokens.purpose, opts.purpose),
        isNull(schema.verificationTokens.consumedAt),
      ),
    )
    .orderBy(desc(schema.verificationTokens.id))
    .limit(1);
  if (!row) return 'invalid';
  if (row.expiresAt.getTime() < Date.now()) return 'expired';
  if (row.attempts >= MAX_CODE_ATTEMPTS) return 'too_many_attempts';
  const [salt, hash] = row.tokenHash.split('$');
  if (sha256(`${salt}:${opts.code}`) !== hash) {
    await db
      .update(schema.verificationTokens)
      .set({ attempts: row.attempts + 1 })
      .where(eq(schema.verificationTokens.id, row.id));
    return row.attempts + 1 >= MAX_CODE_ATTEMPTS ? 'too_many_attempts' : 'invalid';
  }
  await db.update(schema.verificationTokens).set({ consumedAt: new Date() }).where(eq(schema.verificationTokens.id, row.id));
  return 'ok';
}

/** Finds the live link token (invitation, password reset) without consuming it. */
export async function findLinkToken(opts: { accountId: number; token: string; purposes: Purpose[] }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(schema.verificationTokens)
    .where(
      and(
        eq(schema.verificationTokens.accountId, opts.accountId),
        eq(schema.verificationTokens.tokenHash, sha256(opts.token)),
        isNull(schema.verificationTokens.consumedAt),
        gt(schema.verificationTokens.expiresAt, new Date()),
      ),
    );
  if (!row || !opts.purposes.includes(row.purpose)) return undefined;
  return row;
}

export async function markTokenConsumed(id: number, db: DbOrTx = getDb()) {
  await db.update(schema.verificationTokens).set({ consumedAt: new Date() }).where(eq(schema.verificationTokens.id, id));
}
