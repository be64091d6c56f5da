import { and, eq, gte, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
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

/** The account's own server when it set one, else the installation's, else null (suggestions without AI). */
export async function resolveAiServer(opts: { accountId: number }): Promise<AiServer | null> {
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
