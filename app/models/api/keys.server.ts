import crypto from 'node:crypto';
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { API_SCOPES, type ApiScope } from './scopes';

/** Tokens: `prly_` and 32 random bytes in base64url. Only their SHA-256 is stored (ADR 076). */
const TOKEN_PREFIX = 'prly_';

export function hashToken(token: string) {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export type ApiKeyRow = typeof schema.apiKeys.$inferSelect;

/** Creates a key; the token is in the answer and nowhere else, ever. */
export async function createApiKey(opts: { accountId: number; actorId: number; name: string; scopes: ApiScope[] }) {
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  const scopes = opts.scopes.filter((s) => API_SCOPES.includes(s));
  const [key] = await getDb().transaction(async (tx) => {
    const rows = await tx
      .insert(schema.apiKeys)
      .values({ accountId: opts.accountId, name: opts.name.trim(), prefix: token.slice(0, 12), tokenHash: hashToken(token), scopes, createdById: opts.actorId })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'api_key_created',
      subjectType: 'api_key',
      subjectId: rows[0].id,
      payload: { name: rows[0].name, scopes },
      actor: { type: 'user', id: opts.actorId },
    });
    return rows;
  });
  return { key: publicKey(key), token };
}

export function publicKey(k: ApiKeyRow) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  };
}

export async function listApiKeys(opts: { accountId: number }) {
  const rows = await getDb().select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, opts.accountId)).orderBy(desc(schema.apiKeys.createdAt), desc(schema.apiKeys.id));
  return rows.map(publicKey);
}

/** Revokes a key of the account; false when it has no such live key. */
export async function revokeApiKey(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(schema.apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(schema.apiKeys.accountId, opts.accountId), eq(schema.apiKeys.id, opts.id), isNull(schema.apiKeys.revokedAt)))
      .returning();
    if (!row) return false;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'api_key_revoked',
      subjectType: 'api_key',
      subjectId: row.id,
      payload: { name: row.name },
      actor: { type: 'user', id: opts.actorId },
    });
    return true;
  });
}

/**
 * The live key a bearer token names, or null. The last-used time is written at most once a minute per key (a
 * conditional update that touches no row otherwise), so a busy key costs one read per request.
 */
export async function authenticateApiKey(token: string) {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const db = getDb();
  const [key] = await db
    .select()
    .from(schema.apiKeys)
    .where(and(eq(schema.apiKeys.tokenHash, hashToken(token)), isNull(schema.apiKeys.revokedAt)));
  if (!key) return null;
  const stale = !key.lastUsedAt || Date.now() - new Date(key.lastUsedAt).getTime() > 60_000;
  if (stale)
    await db
      .update(schema.apiKeys)
      .set({ lastUsedAt: new Date() })
      .where(
        and(
          eq(schema.apiKeys.accountId, key.accountId),
          eq(schema.apiKeys.id, key.id),
          or(isNull(schema.apiKeys.lastUsedAt), lt(schema.apiKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
        ),
      );
  return key;
}
