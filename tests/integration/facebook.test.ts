import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import '../../app/models/channels/facebook.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { metaSign, pageMessageEvent, startMetaStandIn } from '../helpers/stand-ins/meta';

let app: Awaited<ReturnType<typeof startTestApp>>;
let meta: Awaited<ReturnType<typeof startMetaStandIn>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
const PAGE_TOKEN = 'EAAB-page-token-0123456789';

beforeAll(async () => {
  meta = await startMetaStandIn({ pageAccessToken: PAGE_TOKEN, pageId: '1122334455', pageName: 'Our Shop', appSecret: 'meta-app-secret' });
  process.env.META_GRAPH_API_BASE = meta.baseUrl;
  (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons?.delete('config');
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await meta.close();
});

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const res = await app.request('/settings/facebook/new', {
    domain: a.domain,
    cookie,
    form: { intent: 'save', name: 'Our page', pageId: '1122334455', pageAccessToken: PAGE_TOKEN, appSecret: 'meta-app-secret' },
  });
  expect(res.status).toBe(302);
  const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
  return { ...a, cookie, inbox };
}

const hook = (inboxId: number, query = '') => `http://127.0.0.1:${app.port}/webhooks/facebook/${inboxId}${query}`;
const postEvent = (inboxId: number, body: string, signature: string | null) =>
  fetch(hook(inboxId), { method: 'POST', headers: { host: APP_HOST, 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) }, body });

describe('Facebook Messenger channel', () => {
  it('settings: validation, secrets never shown back, kept when left empty, manage_facebook required', async () => {
    const s = await setup();
    expect(s.inbox).toMatchObject({ channelType: 'facebook', name: 'Our page' });
    const page = await app.request(`/settings/facebook/${s.inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.text).not.toContain(PAGE_TOKEN);
    expect(page.text).not.toContain('meta-app-secret');
    expect(page.text).toContain(`/webhooks/facebook/${s.inbox.id}`);
    expect(page.text).toContain((s.inbox.settings as { verifyToken: string }).verifyToken);

    const bad = await app.request('/settings/facebook/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', name: '', pageId: 'abc' } });
    expect(bad.status).toBe(400);
    for (const m of ['Inbox Name is required', 'Page ID is the number Meta shows for the page', 'Page Access Token is required', 'App Secret is required']) expect(bad.text).toContain(m);

    const upd = await app.request(`/settings/facebook/${s.inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'save', name: 'Renamed', pageId: '1122334455', pageAccessToken: '', appSecret: '' } });
    expect(upd.status).toBe(302);
    const [after] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, s.inbox.id));
    expect(after.settings).toMatchObject({ pageAccessToken: PAGE_TOKEN, appSecret: 'meta-app-secret' });

    const agent = await createTestUser({ accountId: s.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: agent.id });
    expect((await app.request(`/settings/facebook/${s.inbox.id}`, { domain: s.domain, cookie: agentCookie, form: { intent: 'delete' } })).status).toBe(403);
  });

  it('settings are tried with the Graph API before they are saved: a refused token, another page or a wrong app secret is a 400 that saves nothing', async () => {
    const s = await setup();
    // The inbox created by setup() was tried: its health says it works.
    const [health] = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, s.inbox.id));
    expect(health).toMatchObject({ part: 'facebook', failingSince: null });
    expect(health.lastSuccessAt).toBeInstanceOf(Date);

    const form = { intent: 'save', name: 'Second', pageId: '1122334455', pageAccessToken: PAGE_TOKEN, appSecret: 'meta-app-secret' };
    const cases: [Record<string, string>, string][] = [
      [{ pageAccessToken: 'EAAB-revoked-token' }, 'Facebook refused the Page Access Token: Invalid OAuth access token - Cannot parse access token'],
      [{ pageId: '999' }, 'This Page Access Token is for the page Our Shop (1122334455), not for Page ID 999'],
      [{ appSecret: 'another-apps-secret' }, "Facebook refused the App Secret: it is not the secret of the token&#x27;s app"],
    ];
    for (const [over, message] of cases) {
      const res = await app.request('/settings/facebook/new', { domain: s.domain, cookie: s.cookie, form: { ...form, ...over } });
      expect(res.status, message).toBe(400);
      expect(res.text).toContain(message);
      // Secrets typed are not sent back into the page.
      expect(res.text).not.toContain(PAGE_TOKEN);
      expect(res.text).not.toContain('another-apps-secret');
    }
    // An update is tried with what it would leave (the saved token when the field is empty): refused, nothing changes.
    const upd = await app.request(`/settings/facebook/${s.inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { ...form, name: 'Renamed', pageAccessToken: '', appSecret: '', pageId: '999' } });
    expect(upd.status).toBe(400);
    const inboxes = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id));
    expect(inboxes.map((i) => i.name)).toEqual(['Our page']);
  });

  it('answers the verify-token handshake only with the right token', async () => {
    const s = await setup();
    const token = (s.inbox.settings as { verifyToken: string }).verifyToken;
    const ok = await fetch(hook(s.inbox.id, `?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`), { headers: { host: APP_HOST } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    expect((await fetch(hook(s.inbox.id, '?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1'), { headers: { host: APP_HOST } })).status).toBe(403);
    expect((await fetch(hook(s.inbox.id), { headers: { host: APP_HOST } })).status).toBe(400);
    expect((await fetch(hook(2_000_000_000, `?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1`), { headers: { host: APP_HOST } })).status).toBe(404);
  });

  it('ingests signed page messages once, refuses bad signatures, and replies through the Send API', async () => {
    const s = await setup();
    const body = JSON.stringify(pageMessageEvent({ pageId: '1122334455', psid: '24680', mid: 'm_abc', text: 'Hi page' }));
    const res = await postEvent(s.inbox.id, body, metaSign('meta-app-secret', body));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('EVENT_RECEIVED');
    expect((await postEvent(s.inbox.id, body, metaSign('meta-app-secret', body))).status).toBe(200);
    const conversations = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, s.inbox.id));
    expect(conversations).toHaveLength(1);
    expect(conversations[0]).toMatchObject({ sourceType: 'facebook', lastMessagePreview: 'Hi page' });
    expect(await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversations[0].id))).toHaveLength(1);

    const forged = JSON.stringify(pageMessageEvent({ pageId: '1122334455', psid: '1', mid: 'm_forged', text: 'x' }));
    expect((await postEvent(s.inbox.id, forged, metaSign('other-secret', forged))).status).toBe(401);
    expect((await postEvent(s.inbox.id, forged, null)).status).toBe(401);
    expect((await postEvent(s.inbox.id, '{not json', metaSign('meta-app-secret', '{not json'))).status).toBe(400);
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, s.inbox.id))).toHaveLength(1);

    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversations[0].id, kind: 'outgoing', text: 'Hello from Parley' });
    await deliverMessage({ messageId: reply.id });
    expect(meta.sent.at(-1)).toMatchObject({ recipient: '24680', text: 'Hello from Parley', messagingType: 'RESPONSE' });
    const [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored).toMatchObject({ deliveryStatus: 'sent', externalId: meta.sent.at(-1)!.messageId });

    // The page's own echo of that reply is not a new incoming message.
    const echo = JSON.stringify({ object: 'page', entry: [{ id: '1122334455', messaging: [{ sender: { id: '1122334455' }, recipient: { id: '24680' }, message: { mid: 'm_echo', text: 'Hello from Parley', is_echo: true } }] }] });
    await postEvent(s.inbox.id, echo, metaSign('meta-app-secret', echo));
    expect(await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversations[0].id))).toHaveLength(2);
  });
});
