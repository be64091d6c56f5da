import { and, asc, eq } from 'drizzle-orm';
import { getDb, schema } from './client';

/**
 * Demo AI requests (ADR 101): a few weeks of the four calls by the demo's agents on real demo conversations, as
 * Settings → AI Help lists them — counts and outcomes only, as Parley stores them (no text). Deterministic for `now`.
 */
export async function seedDemoAiRequests(opts: { accountId: number; now?: Date }) {
  const now = (opts.now ?? new Date()).getTime();
  const db = getDb();
  const users = await db.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.accountId, opts.accountId)).orderBy(asc(schema.users.id)).limit(4);
  const conversations = await db
    .select({ id: schema.conversations.id })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, opts.accountId)))
    .orderBy(asc(schema.conversations.id))
    .limit(30);
  if (!users.length || !conversations.length) return;
  const calls = ['help-me-write', 'modify-email-reply', 'chat-reply-ai', 'modify-chat-reply'] as const;
  const rows = Array.from({ length: 36 }, (_, i) => {
    const status: 'ok' | 'error' = i % 17 === 5 ? 'error' : 'ok';
    return {
      accountId: opts.accountId,
      userId: users[i % users.length].id,
      conversationId: conversations[(i * 7) % conversations.length].id,
      call: calls[(i * 3) % calls.length],
      model: 'gpt-4o-mini',
      status,
      promptTokens: status === 'ok' ? 900 + ((i * 137) % 1400) : 0,
      completionTokens: status === 'ok' ? 60 + ((i * 53) % 240) : 0,
      durationMs: status === 'ok' ? 1200 + ((i * 311) % 4200) : 30_000,
      error: status === 'error' ? 'timeout' : null,
      createdAt: new Date(now - (i * 14 + 3) * 3600_000),
    };
  });
  await db.insert(schema.aiRequests).values(rows);
}
