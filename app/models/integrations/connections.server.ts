import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { getLogger } from '../../utils/logger.server';
import { emitEvent } from '../events/events.server';
import { openSecret, sealSecret } from '../../utils/secret-box.server';
import { safeEqual } from './crypto.server';
import type { ProviderId } from './providers';

/**
 * The shared base of every integration (ADR 078): the signed OAuth `state`, the connection row with its sealed
 * tokens, refresh before expiry and revoke on disconnect. Provider clients plug in through `OAuthAdapter`.
 */

const c = schema.integrationConnections;
export type ConnectionRow = typeof c.$inferSelect;

export type TokenSet = { accessToken: string; refreshToken: string | null; expiresAt: Date | null; scopes?: string };

export type OAuthAdapter = {
  /** Trades a refresh token for a new token set; absent when the provider's tokens do not expire. */
  refresh?: (refreshToken: string) => Promise<TokenSet>;
  /** Revokes the grant at the provider. */
  revoke?: (conn: OpenConnection) => Promise<void>;
};

/** A connection with its tokens opened: kept in server memory, never sent to a page or a log. */
export type OpenConnection = Omit<ConnectionRow, 'accessTokenSealed' | 'refreshTokenSealed' | 'webhookSecretSealed'> & {
  accessToken: string;
  refreshToken: string | null;
  webhookSecret: string | null;
};

/** What a page may show about a connection. */
export type ConnectionSummary = { provider: ProviderId; externalAccount: string; connectedAt: Date; settings: Record<string, unknown> };

const STATE_TTL_MS = 10 * 60_000;

/** `state` for the provider's consent page: the account, user and provider it was started for, signed and dated. */
export function signIntegrationState(opts: { accountId: number; userId: number; provider: ProviderId; extra?: string }) {
  const payload = [opts.accountId, opts.userId, opts.provider, Date.now(), crypto.randomBytes(6).toString('base64url'), Buffer.from(opts.extra ?? '').toString('base64url')].join('.');
  return `${payload}.${stateMac(payload)}`;
}

function stateMac(payload: string) {
  return crypto.createHmac('sha256', getConfig().sessionSecret).update(`integration-oauth:${payload}`).digest('base64url').slice(0, 32);
}

/** The state's extra value when it is this account's, user's and provider's and not older than ten minutes; else null. */
export function verifyIntegrationState(state: string, opts: { accountId: number; userId: number; provider: ProviderId }): { extra: string } | null {
  const parts = state.split('.');
  if (parts.length !== 7) return null;
  const mac = parts.pop()!;
  if (!safeEqual(mac, stateMac(parts.join('.')))) return null;
  const [a, u, p, t, , extra] = parts;
  if (Number(a) !== opts.accountId || Number(u) !== opts.userId || p !== opts.provider) return null;
  if (!(Date.now() - Number(t) < STATE_TTL_MS)) return null;
  return { extra: Buffer.from(extra, 'base64url').toString('utf8') };
}

const purpose = (provider: string, what: string) => `integration:${provider}:${what}`;

function open(row: ConnectionRow): OpenConnection {
  const { accessTokenSealed, refreshTokenSealed, webhookSecretSealed, ...rest } = row;
  const ctx = (what: string) => ({ accountId: row.accountId, purpose: purpose(row.provider, what) });
  return {
    ...rest,
    accessToken: openSecret(accessTokenSealed, ctx('access')),
    refreshToken: refreshTokenSealed ? openSecret(refreshTokenSealed, ctx('refresh')) : null,
    webhookSecret: webhookSecretSealed ? openSecret(webhookSecretSealed, ctx('webhook')) : null,
  };
}

export async function listConnections(opts: { accountId: number }): Promise<ConnectionSummary[]> {
  const rows = await getDb()
    .select({ provider: c.provider, externalAccount: c.externalAccount, createdAt: c.createdAt, settings: c.settings })
    .from(c)
    .where(eq(c.accountId, opts.accountId));
  return rows.map((r) => ({ provider: r.provider as ProviderId, externalAccount: r.externalAccount, connectedAt: r.createdAt, settings: r.settings }));
}

export async function getConnectionSummary(opts: { accountId: number; provider: ProviderId }) {
  return (await listConnections(opts)).find((r) => r.provider === opts.provider) ?? null;
}

/** The connection with its tokens opened, or null when the provider is not connected. */
export async function getOpenConnection(opts: { accountId: number; provider: ProviderId }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.accountId, opts.accountId), eq(c.provider, opts.provider)));
  return row ? open(row) : null;
}

/** A connection by its id for a provider's webhook: the id is in the webhook's address, the secret proves the sender. */
export async function getOpenConnectionById(opts: { id: number; provider: ProviderId }) {
  const [row] = await getDb()
    .select()
    .from(c)
    .where(and(eq(c.id, opts.id), eq(c.provider, opts.provider)));
  return row ? open(row) : null;
}

/** The accounts connected to one shop or workspace (several Parley accounts may connect the same one). */
export async function listConnectionAccountsByExternal(opts: { provider: ProviderId; externalAccount: string }) {
  const rows = await getDb()
    .select({ accountId: c.accountId })
    .from(c)
    .where(and(eq(c.provider, opts.provider), eq(c.externalAccount, opts.externalAccount)));
  return rows.map((r) => r.accountId);
}

/** Keeps (or replaces) the account's connection to a provider, tokens sealed, and records `integration_connected`. */
export async function saveConnection(opts: {
  accountId: number;
  userId: number;
  provider: ProviderId;
  externalAccount: string;
  tokens: TokenSet;
  webhookSecret?: string | null;
  settings?: Record<string, unknown>;
}) {
  const seal = (v: string, what: string) => sealSecret(v, { accountId: opts.accountId, purpose: purpose(opts.provider, what) });
  const values = {
    externalAccount: opts.externalAccount,
    accessTokenSealed: seal(opts.tokens.accessToken, 'access'),
    refreshTokenSealed: opts.tokens.refreshToken ? seal(opts.tokens.refreshToken, 'refresh') : null,
    tokenExpiresAt: opts.tokens.expiresAt,
    scopes: opts.tokens.scopes ?? '',
    webhookSecretSealed: opts.webhookSecret ? seal(opts.webhookSecret, 'webhook') : null,
    settings: opts.settings ?? {},
    connectedByUserId: opts.userId,
    updatedAt: new Date(),
  };
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(c)
      .values({ accountId: opts.accountId, provider: opts.provider, ...values })
      .onConflictDoUpdate({ target: [c.accountId, c.provider], set: { ...values, createdAt: new Date() } })
      .returning({ id: c.id });
    await emitEvent(tx, { accountId: opts.accountId, type: 'integration_connected', subjectType: 'integration', subjectId: row.id, payload: { provider: opts.provider, account: opts.externalAccount }, actor: { type: 'user', id: opts.userId } });
    return row;
  });
}

export async function updateConnectionSettings(opts: { accountId: number; provider: ProviderId; settings: Record<string, unknown> }) {
  const [row] = await getDb()
    .update(c)
    .set({ settings: opts.settings, updatedAt: new Date() })
    .where(and(eq(c.accountId, opts.accountId), eq(c.provider, opts.provider)))
    .returning({ id: c.id });
  return Boolean(row);
}

/** Merges keys into the connection's settings in one statement (a concurrent writer's other keys are kept). */
export async function mergeConnectionSettings(opts: { accountId: number; provider: ProviderId; settings: Record<string, unknown> }) {
  const [row] = await getDb()
    .update(c)
    .set({ settings: sql`${c.settings} || ${JSON.stringify(opts.settings)}::jsonb`, updatedAt: new Date() })
    .where(and(eq(c.accountId, opts.accountId), eq(c.provider, opts.provider)))
    .returning({ id: c.id });
  return Boolean(row);
}

/**
 * An access token valid for the next two minutes: refreshed first (and the new tokens sealed and saved) when the
 * provider's tokens expire and this one is about to.
 */
export async function freshAccessToken(conn: OpenConnection, adapter: OAuthAdapter) {
  if (!conn.tokenExpiresAt || conn.tokenExpiresAt.getTime() > Date.now() + 120_000) return conn.accessToken;
  if (!conn.refreshToken || !adapter.refresh) return conn.accessToken;
  const tokens = await adapter.refresh(conn.refreshToken);
  const seal = (v: string, what: string) => sealSecret(v, { accountId: conn.accountId, purpose: purpose(conn.provider, what) });
  const refreshToken = tokens.refreshToken ?? conn.refreshToken;
  await getDb()
    .update(c)
    .set({ accessTokenSealed: seal(tokens.accessToken, 'access'), refreshTokenSealed: seal(refreshToken, 'refresh'), tokenExpiresAt: tokens.expiresAt, updatedAt: new Date() })
    .where(and(eq(c.accountId, conn.accountId), eq(c.id, conn.id)));
  conn.accessToken = tokens.accessToken;
  conn.refreshToken = refreshToken;
  conn.tokenExpiresAt = tokens.expiresAt;
  return tokens.accessToken;
}

/**
 * Disconnect: the row (and its tokens) is deleted here in one transaction with `integration_disconnected`, then the
 * grant is revoked at the provider. A failed revoke is logged and told to the caller; the tokens are gone either way.
 */
export async function disconnectIntegration(opts: { accountId: number; userId: number | null; provider: ProviderId; adapter: OAuthAdapter }) {
  const conn = await getOpenConnection(opts).catch(() => null);
  const deleted = await getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(c)
      .where(and(eq(c.accountId, opts.accountId), eq(c.provider, opts.provider)))
      .returning({ id: c.id });
    if (row) await emitEvent(tx, { accountId: opts.accountId, type: 'integration_disconnected', subjectType: 'integration', subjectId: row.id, payload: { provider: opts.provider }, actor: opts.userId ? { type: 'user', id: opts.userId } : { type: 'system' } });
    return row;
  });
  if (!deleted) return { disconnected: false, revoked: false };
  if (!conn || !opts.adapter.revoke) return { disconnected: true, revoked: false };
  try {
    await opts.adapter.revoke(conn);
    return { disconnected: true, revoked: true };
  } catch (err) {
    getLogger().warn({ provider: opts.provider, accountId: opts.accountId, err: (err as Error).message }, 'integration revoke failed');
    return { disconnected: true, revoked: false };
  }
}
