import { and, desc, eq, gte, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { accountHasFeature } from '../accounts/accounts.server';
import { isRefusedUrl, REFUSED_DESTINATION_MESSAGE } from '../../utils/outbound-guard.server';
import type { AiSettingsInput } from './forms';
import { openSecret, sealSecret } from '../../utils/secret-box.server';

const s = schema.aiSettings;
const r = schema.aiRequests;

export type AiServer = { baseUrl: string; model: string; apiKey: string | null; source: 'account' | 'installation' };

/** The page's view: the key is only ever "set" or "not set". */
export async function getAiSettings(opts: { accountId: number }) {
  const [row] = await getDb().select().from(s).where(eq(s.accountId, opts.accountId));
  const config = getConfig().ai;
  return {
    baseUrl: row?.baseUrl ?? '',
    model: row?.model ?? '',
    hasKey: Boolean(row?.apiKeySealed),
    monthlyTokenCap: row?.monthlyTokenCap ?? null,
    installation: config.server ? { baseUrl: config.server.baseUrl, model: config.server.model } : null,
    defaultCap: config.monthlyTokenCap,
    defaultModel: config.model,
  };
}

export class AiSettingsError extends Error {
  constructor(
    public readonly field: 'baseUrl' | 'model' | 'apiKey',
    message: string,
  ) {
    super(message);
  }
}

export const AI_KEY_PURPOSE = 'ai-api-key';

/** A key that no longer opens (the installation's key changed) counts as no key: the account enters it again. */
function openAiKey(sealed: string, accountId: number) {
  try {
    return openSecret(sealed, { accountId, purpose: AI_KEY_PURPOSE });
  } catch {
    return null;
  }
}

export async function saveAiSettings(opts: { accountId: number; input: AiSettingsInput }) {
  const { input } = opts;
  const baseUrl = input.baseUrl ? input.baseUrl.replace(/\/+$/, '') : null;
  if (baseUrl && (await isRefusedUrl(baseUrl))) throw new AiSettingsError('baseUrl', REFUSED_DESTINATION_MESSAGE);
  if (!baseUrl && (input.apiKey || input.model)) throw new AiSettingsError('baseUrl', 'Enter the server address the key and model are for');
  const sealed = input.removeKey || !baseUrl ? null : input.apiKey ? sealSecret(input.apiKey, { accountId: opts.accountId, purpose: AI_KEY_PURPOSE }) : undefined;
  const values = {
    baseUrl,
    model: input.model || null,
    monthlyTokenCap: input.monthlyTokenCap ?? null,
    updatedAt: new Date(),
    ...(sealed !== undefined ? { apiKeySealed: sealed } : {}),
  };
  await getDb()
    .insert(s)
    .values({ accountId: opts.accountId, ...values })
    .onConflictDoUpdate({ target: s.accountId, set: values });
}

/**
 * The account's own server when it set one, else the installation's, else null (suggestions without AI). Null too
 * when the account's plan lacks `conversation/aiHelp` (ADR 101): every AI call goes through here, so the plan is
 * enforced on the server for the page, the stream and the four calls alike.
 */
export async function resolveAiServer(opts: { accountId: number; allowed?: boolean }): Promise<AiServer | null> {
  // A page request already knows the plan (`allowed`, from the guard's context): no second read of it (ADR 110).
  if (!(opts.allowed ?? (await accountHasFeature({ accountId: opts.accountId, key: 'conversation/aiHelp' })))) return null;
  const [row] = await getDb().select().from(s).where(eq(s.accountId, opts.accountId));
  const config = getConfig().ai;
  if (row?.baseUrl) {
    return { baseUrl: row.baseUrl, model: row.model || config.model, apiKey: row.apiKeySealed ? openAiKey(row.apiKeySealed, opts.accountId) : null, source: 'account' };
  }
  if (config.server) return { ...config.server, source: 'installation' };
  return null;
}

/** The first instant of the current calendar month, UTC: caps renew then. */
export function monthStart(now = new Date()) {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export async function monthlyUsage(opts: { accountId: number; now?: Date }) {
  const [row] = await getDb()
    .select({
      requests: sql<number>`count(*)::int`,
      tokens: sql<number>`coalesce(sum(${r.promptTokens} + ${r.completionTokens}), 0)::int`,
    })
    .from(r)
    .where(and(eq(r.accountId, opts.accountId), gte(r.createdAt, monthStart(opts.now))));
  const [settings] = await getDb().select({ cap: s.monthlyTokenCap }).from(s).where(eq(s.accountId, opts.accountId));
  return { requests: row?.requests ?? 0, tokens: row?.tokens ?? 0, cap: settings?.cap ?? getConfig().ai.monthlyTokenCap };
}

export async function recordAiRequest(opts: {
  accountId: number;
  userId: number | null;
  conversationId: number | null;
  call: (typeof schema.aiRequests.$inferInsert)['call'];
  model: string;
  status: 'ok' | 'error' | 'capped';
  promptTokens?: number;
  completionTokens?: number;
  durationMs?: number;
  error?: string | null;
}) {
  await getDb()
    .insert(r)
    .values({
      accountId: opts.accountId,
      userId: opts.userId,
      conversationId: opts.conversationId,
      call: opts.call,
      model: opts.model.slice(0, 200),
      status: opts.status,
      promptTokens: opts.promptTokens ?? 0,
      completionTokens: opts.completionTokens ?? 0,
      durationMs: opts.durationMs ?? 0,
      error: opts.error ?? null,
    });
}

export const AI_REQUESTS_PAGE_SIZE = 25;

/**
 * The per-request usage list of Settings → AI Help (ADR 101): when, which call, who, model, outcome, tokens and
 * time, newest first. Parley stores no prompt or answer text, so there is none to show.
 */
export async function listAiRequests(opts: { accountId: number; page: number }) {
  const [rows, [count]] = await Promise.all([
    getDb()
      .select({
        id: r.id,
        createdAt: r.createdAt,
        call: r.call,
        model: r.model,
        status: r.status,
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        durationMs: r.durationMs,
        error: r.error,
        conversationId: r.conversationId,
        userFirstName: schema.users.firstName,
        userLastName: schema.users.lastName,
      })
      .from(r)
      .leftJoin(schema.users, and(eq(schema.users.id, r.userId), eq(schema.users.accountId, r.accountId)))
      .where(eq(r.accountId, opts.accountId))
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(AI_REQUESTS_PAGE_SIZE)
      .offset((opts.page - 1) * AI_REQUESTS_PAGE_SIZE),
    getDb().select({ n: sql<number>`count(*)::int` }).from(r).where(eq(r.accountId, opts.accountId)),
  ]);
  return { rows, total: count?.n ?? 0, page: opts.page, pageSize: AI_REQUESTS_PAGE_SIZE };
}
