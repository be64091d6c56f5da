import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { AiServerError, streamChatCompletion } from '../../app/models/ai/client.server';
import { AI_KEY_PURPOSE } from '../../app/models/ai/settings.server';
import { sealSecret } from '../../app/utils/secret-box.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startOpenAiStandin } from '../helpers/openai-standin';

let app: Awaited<ReturnType<typeof startTestApp>>;
let ai: Awaited<ReturnType<typeof startOpenAiStandin>>;
beforeAll(async () => {
  app = await startTestApp();
  ai = await startOpenAiStandin({ apiKey: 'sk-test-secret-123' });
});
afterAll(async () => {
  await app?.close();
  await ai?.close();
});
afterEach(() => {
  ai.setMode('ok');
});

async function setup(opts: { server?: boolean; cap?: number } = {}) {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Where is my parcel?',
    contact: { email: `cara@${a.domain}.test`, name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'My parcel has not arrived yet, when does shipping happen?' },
  });
  await getDb().insert(schema.cannedResponses).values({ accountId: a.account.id, name: 'Shipping times', message: 'Parcels ship within two working days.' });
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, actorId: a.owner.id, knowledgeBaseId: kb.id };
  const cat = await createCategory({ ...who, name: 'Orders' });
  const article = await createArticle({ ...who, title: 'Shipping and delivery', categoryId: cat.id, body: '<p>Every parcel ships within two working days by tracked post.</p>', publish: true });
  if (opts.server !== false) {
    await getDb()
      .insert(schema.aiSettings)
      .values({ accountId: a.account.id, baseUrl: ai.baseUrl, model: 'test-model', apiKeySealed: sealSecret('sk-test-secret-123', { accountId: a.account.id, purpose: AI_KEY_PURPOSE }), monthlyTokenCap: opts.cap ?? null });
  }
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const post = (path: string, form: Record<string, string>) => app.request(path, { domain: a.domain, cookie, form });
  const get = (path: string) => app.request(path, { domain: a.domain, cookie });
  return { ...a, conversation, article, post, get };
}

const requestsOf = (accountId: number) => getDb().select().from(schema.aiRequests).where(eq(schema.aiRequests.accountId, accountId));

describe('OpenAI chat-completions client', () => {
  const base = () => ({ baseUrl: ai.baseUrl, apiKey: 'sk-test-secret-123', model: 'm', messages: [{ role: 'user' as const, content: 'Hello there' }], timeoutMs: 2000 });
  const collect = async (opts: Parameters<typeof streamChatCompletion>[0]) => {
    let text = '';
    let usage;
    for await (const c of streamChatCompletion(opts)) {
      if ('delta' in c) text += c.delta;
      else usage = c.usage;
    }
    return { text, usage };
  };

  it('streams server-sent events up to [DONE], with the usage chunk', async () => {
    const out = await collect(base());
    expect(out.text).toBe('Hello! Your parcel ships within two working days.');
    expect(out.usage).toEqual({ promptTokens: 3, completionTokens: 13 });
    const last = ai.requests.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer sk-test-secret-123');
    expect(last.body).toMatchObject({ model: 'm', stream: true, stream_options: { include_usage: true } });
  });

  it('says what went wrong: 401, 429 with Retry-After, 500, a timeout, a stream that stops', async () => {
    const failure = async () => {
      try {
        await collect(base());
      } catch (err) {
        return err as AiServerError;
      }
      throw new Error('no error');
    };
    ai.setMode('unauthorized');
    expect(await failure()).toMatchObject({ kind: 'auth', status: 401 });
    ai.setMode('rate_limited');
    const busy = await failure();
    expect(busy).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterSeconds: 20 });
    expect(busy.message).toContain('try again in 20 seconds');
    ai.setMode('server_error');
    expect(await failure()).toMatchObject({ kind: 'server', status: 500 });
    ai.setMode('hang');
    expect(await failure()).toMatchObject({ kind: 'timeout' });
    ai.setMode('hang_mid_stream');
    expect(await failure()).toMatchObject({ kind: 'timeout' });
    ai.setMode('ok');
    await expect(collect({ ...base(), apiKey: 'wrong' })).rejects.toMatchObject({ kind: 'auth' });
  });

  it('refuses a private address unless the installation allows it', async () => {
    process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'false';
    resetSingleton('config');
    try {
      await expect(collect(base())).rejects.toMatchObject({ kind: 'refused' });
      await expect(collect({ ...base(), baseUrl: 'http://169.254.169.254/v1' })).rejects.toMatchObject({ kind: 'refused' });
    } finally {
      process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
      resetSingleton('config');
    }
  });
});

describe('AI reply help on the conversation page', () => {
  it('rewrites a reply without JavaScript: the answer, with the cited article, goes into the reply box; nothing is sent; tokens are logged without text', async () => {
    const s = await setup();
    const before = ai.requests.length;
    const res = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: 'ur parcel is coming', aiStyle: 'friendlier', cc: 'boss@example.test' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Rewritten (make it warmer and friendlier): Thanks for waiting, your parcel is on its way. [1]');
    expect(res.text).toMatch(/Sources:\n\[1\] Shipping and delivery: http:\/\/[^\s]+\/hc\/[^\s]+\/articles\/\d+-shipping-and-delivery/);
    expect(res.text).toContain('boss@example.test');
    expect(res.text).toContain('review it before you send');
    // The prompt carried the conversation, the article and the canned response.
    const sent = ai.requests[before].body.messages.map((m) => m.content).join('\n');
    expect(sent).toContain('My parcel has not arrived yet');
    expect(sent).toContain('[1] Shipping and delivery');
    expect(sent).toContain('Shipping times: Parcels ship within two working days.');
    expect(sent).toContain('ur parcel is coming');
    const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, s.conversation.id));
    expect(messages).toHaveLength(1);
    const [logged] = await requestsOf(s.account.id);
    expect(logged).toMatchObject({ call: 'modify-email-reply', model: 'test-model', status: 'ok' });
    expect(logged.promptTokens).toBeGreaterThan(0);
    expect(logged.completionTokens).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toContain('parcel');
  });

  it('streams with JavaScript through the resource route, as plain text', async () => {
    const s = await setup();
    const res = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: 'tell her when it ships' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('Hello! Your parcel ships within two working days. [1]');
    expect(res.text).toContain('Sources:');
    expect((await requestsOf(s.account.id))[0]).toMatchObject({ call: 'help-me-write', status: 'ok' });
    const missing = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toBe('Say in a few words what the reply should say');
    ai.setMode('rate_limited');
    const busy = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: 'x' });
    expect(busy.status).toBe(429);
    expect(busy.text).toContain('try again in 20 seconds');
  });

  it('without a server, the same button suggests the matching canned response and article', async () => {
    const s = await setup({ server: false });
    const before = ai.requests.length;
    const res = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-write', aiInstruction: 'shipping times' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Suggestions (not AI)');
    expect(res.text).toContain('Parcels ship within two working days.');
    expect(res.text).toContain('Shipping and delivery');
    expect(ai.requests.length).toBe(before);
    expect(await requestsOf(s.account.id)).toHaveLength(0);
  });

  it('an AI server error leaves the draft and offers suggestions; the monthly cap stops calls with a clear message', async () => {
    const s = await setup({ cap: 10 });
    ai.setMode('unauthorized');
    const refused = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: 'my own draft', aiStyle: 'shorter' });
    expect(refused.status).toBe(502);
    expect(refused.text).toContain('The AI server refused the API key (401)');
    expect(refused.text).toContain('my own draft');
    expect(refused.text).toContain('Suggestions (not AI)');
    ai.setMode('ok');
    await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: 'my own draft', aiStyle: 'shorter' });
    const capped = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: 'my own draft', aiStyle: 'shorter' });
    expect(capped.status).toBe(429);
    expect(capped.text).toContain('This account has used its AI allowance for this month');
    const statuses = (await requestsOf(s.account.id)).map((r) => r.status).sort();
    expect(statuses).toEqual(['capped', 'error', 'ok']);
  });

  it('validates the rewrite form and keeps what was typed; another account cannot use it', async () => {
    const s = await setup();
    const empty = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: '', aiStyle: 'translate', aiLanguage: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Write a reply first: the AI rewrites what is in the box');
    const other = await setup();
    const res = await other.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: 'x' });
    expect(res.status).toBe(404);
  });

  it('Settings → AI Help stores the key encrypted, never shows it back, and refuses a bad address', async () => {
    const s = await setup({ server: false });
    const saved = await s.post('/settings/ai-help', { intent: 'save', baseUrl: ai.baseUrl, model: 'local-llm', apiKey: 'sk-test-secret-123', monthlyTokenCap: '1000' });
    expect(saved.status).toBe(302);
    const [row] = await getDb().select().from(schema.aiSettings).where(eq(schema.aiSettings.accountId, s.account.id));
    expect(row).toMatchObject({ baseUrl: ai.baseUrl, model: 'local-llm', monthlyTokenCap: 1000 });
    expect(row.apiKeySealed).not.toContain('sk-test-secret-123');
    const page = await s.get('/settings/ai-help');
    expect(page.text).toContain('A key is stored (encrypted)');
    expect(page.text).not.toContain('sk-test-secret-123');
    const bad = await s.post('/settings/ai-help', { intent: 'save', baseUrl: 'ftp://x', apiKey: 'sk-other-secret' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter the server address');
    expect(bad.text).not.toContain('sk-other-secret');
    // The stored key still works: the page's button now asks the stand-in.
    const res = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: 'x' });
    expect(res.status).toBe(200);
  });
});
