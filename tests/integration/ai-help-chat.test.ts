import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { AI_KEY_PURPOSE } from '../../app/models/ai/settings.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { sealSecret } from '../../app/utils/secret-box.server';
import { createTestAccount, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startOpenAiStandin } from '../helpers/openai-standin';

/** The chat channel's two AI calls end to end (ADR 081, 101): the page and the stream route against the OpenAI-format stand-in. */
let app: Awaited<ReturnType<typeof startTestApp>>;
let ai: Awaited<ReturnType<typeof startOpenAiStandin>>;
beforeAll(async () => {
  app = await startTestApp();
  ai = await startOpenAiStandin({ apiKey: 'sk-chat-secret-456' });
});
afterAll(async () => {
  await app?.close();
  await ai?.close();
});

async function setup() {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat', channelType: 'web' });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'web',
    subject: 'Chat with Cara',
    contact: { email: `cara@${a.domain}.test`, name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'Hi, my parcel has not arrived, when does shipping happen?' },
  });
  await getDb().insert(schema.cannedResponses).values({ accountId: a.account.id, name: 'Shipping times', message: 'Parcels ship within two working days.' });
  await getDb()
    .insert(schema.aiSettings)
    .values({ accountId: a.account.id, baseUrl: ai.baseUrl, model: 'chat-model', apiKeySealed: sealSecret('sk-chat-secret-456', { accountId: a.account.id, purpose: AI_KEY_PURPOSE }) });
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const post = (path: string, form: Record<string, string>) => app.request(path, { domain: a.domain, cookie, form });
  const get = (path: string) => app.request(path, { domain: a.domain, cookie });
  return { ...a, conversation, post, get };
}

const requestsOf = (accountId: number) => getDb().select().from(schema.aiRequests).where(eq(schema.aiRequests.accountId, accountId));

describe('AI help in a chat conversation', () => {
  it('chat-reply-ai suggests the next chat message, with no instruction needed, on the page and streamed', async () => {
    const s = await setup();
    const page = await s.get(`/inbox/${s.conversation.id}`);
    expect(page.text).toContain('Suggest a reply');
    const before = ai.requests.length;
    const res = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-write', aiInstruction: '' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Hello! Your parcel ships within two working days.');
    const prompt = ai.requests[before].body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain("Suggest the agent's next chat message to the customer");
    expect(prompt).toContain('my parcel has not arrived');
    expect(prompt).toContain('Shipping times: Parcels ship within two working days.');
    expect(ai.requests[before].headers.authorization).toBe('Bearer sk-chat-secret-456');
    const streamed = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-write', aiInstruction: 'mention tracking' });
    expect(streamed.status).toBe(200);
    expect(streamed.headers['content-type']).toContain('text/plain');
    expect(streamed.text).toContain('Hello! Your parcel ships within two working days.');
    expect(ai.requests.at(-1)!.body.stream).toBe(true);
    expect(ai.requests.at(-1)!.body.messages.at(-1)!.content).toContain('The agent\'s instruction: "mention tracking"');
    // Nothing was sent to the customer.
    const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, s.conversation.id));
    expect(messages).toHaveLength(1);
    const logged = await requestsOf(s.account.id);
    expect(logged.map((r) => r.call)).toEqual(['chat-reply-ai', 'chat-reply-ai']);
    expect(logged.every((r) => r.status === 'ok' && r.completionTokens > 0)).toBe(true);
  });

  it('modify-chat-reply rewrites the chat draft as a chat message, on the page and streamed', async () => {
    const s = await setup();
    const before = ai.requests.length;
    const res = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-rewrite', text: 'it ships in 2 days k', aiStyle: 'formal' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Rewritten (make it more formal and polite): Thanks for waiting, your parcel is on its way.');
    const prompt = ai.requests[before].body.messages.at(-1)!.content;
    expect(prompt).toContain("Rewrite the agent's draft chat reply below");
    expect(prompt).toContain('it ships in 2 days k');
    const streamed = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-rewrite', text: 'it ships in 2 days k', aiStyle: 'translate', aiLanguage: 'German' });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('Rewritten (translate it into german)');
    const logged = await requestsOf(s.account.id);
    expect(logged.map((r) => r.call)).toEqual(['modify-chat-reply', 'modify-chat-reply']);
    // Settings → AI Help lists each request, without its text.
    const settings = await s.get('/settings/ai-help');
    expect(settings.text).toContain('data-testid="ai-requests"');
    expect(settings.text.match(/<td>modify-chat-reply<\/td>/g)).toHaveLength(2);
    expect(settings.text).toContain('<td>chat-model</td>');
    expect(settings.text).not.toContain('it ships in 2 days k');
  });

  it('a plan without conversation/aiHelp never calls the AI server: the buttons suggest canned responses instead', async () => {
    const s = await setup();
    await givePlan(s.account.id, { conversation: { enabled: true }, support: { enabled: true }, channels: { enabled: true } });
    const before = ai.requests.length;
    const res = await s.post(`/inbox/${s.conversation.id}`, { intent: 'ai-write', aiInstruction: 'shipping' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Suggestions (not AI)');
    expect(res.text).toContain('Parcels ship within two working days.');
    const streamed = await s.post(`/inbox/${s.conversation.id}/ai`, { intent: 'ai-rewrite', text: 'draft', aiStyle: 'shorter' });
    expect(streamed.text).not.toContain('Rewritten');
    expect(ai.requests.length).toBe(before);
    expect(await requestsOf(s.account.id)).toHaveLength(0);
    const settings = await s.get('/settings/ai-help');
    expect(settings.text).toContain('Your plan does not include AI help');
    expect(settings.text).toContain('No AI requests yet.');
  });
});
