import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import '../../app/models/channels/twitter.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { dmEvent, startXStandIn, xSign } from '../helpers/stand-ins/x';

let app: Awaited<ReturnType<typeof startTestApp>>;
let x: Awaited<ReturnType<typeof startXStandIn>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
const TOKEN = 'x-user-token-0123456789';
const SECRET = 'x-consumer-secret';
const ME = '9000001';

beforeAll(async () => {
  x = await startXStandIn({ accessToken: TOKEN, userId: ME, username: 'ourshop' });
  process.env.TWITTER_API_BASE = x.baseUrl;
  (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons?.delete('config');
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await x.close();
});

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const res = await app.request('/settings/twitter/new', { domain: a.domain, cookie, form: { intent: 'save', name: 'Our X', userId: ME, consumerSecret: SECRET, accessToken: TOKEN } });
  expect(res.status).toBe(302);
  const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
  return { ...a, cookie, inbox };
}

const hook = (inboxId: number, query = '') => `http://127.0.0.1:${app.port}/webhooks/twitter/${inboxId}${query}`;
const postEvent = (inboxId: number, body: string, signature: string | null) =>
  fetch(hook(inboxId), { method: 'POST', headers: { host: APP_HOST, 'content-type': 'application/json', ...(signature ? { 'x-twitter-webhooks-signature': signature } : {}) }, body });

describe('X (Twitter) direct messages channel', () => {
  it('settings validate and never show the secrets back', async () => {
    const s = await setup();
    const page = await app.request(`/settings/twitter/${s.inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(TOKEN);
    expect(page.text).not.toContain(SECRET);
    expect(page.text).toContain(`/webhooks/twitter/${s.inbox.id}`);
    const bad = await app.request('/settings/twitter/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', name: 'x'.repeat(21), userId: '@me' } });
    expect(bad.status).toBe(400);
    for (const m of ['Length must be less than or equal to 20 characters', 'Account User ID is the numeric id of the X account', 'API Key Secret is required', 'User Access Token is required']) expect(bad.text).toContain(m);
  });

  it('settings are tried with X before they are saved: a refused token or another account is a 400 that saves nothing; a good save marks the channel working', async () => {
    const s = await setup();
    const [health] = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, s.inbox.id));
    expect(health).toMatchObject({ part: 'twitter', failingSince: null });
    expect(health.lastSuccessAt).toBeInstanceOf(Date);
    const form = { intent: 'save', name: 'Second', userId: ME, consumerSecret: SECRET, accessToken: TOKEN };
    const refused = await app.request('/settings/twitter/new', { domain: s.domain, cookie: s.cookie, form: { ...form, accessToken: 'expired-token' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('X refused the User Access Token: Unauthorized');
    expect(refused.text).not.toContain('expired-token');
    const other = await app.request(`/settings/twitter/${s.inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { ...form, name: 'Renamed', accessToken: '', userId: '42' } });
    expect(other.status).toBe(400);
    expect(other.text).toContain('This User Access Token acts for @ourshop (9000001), not for Account User ID 42');
    const inboxes = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id));
    expect(inboxes.map((i) => [i.name, (i.settings as { userId: string }).userId])).toEqual([['Our X', ME]]);
  });

  it('answers the CRC challenge with the HMAC of the token', async () => {
    const s = await setup();
    const res = await fetch(hook(s.inbox.id, '?crc_token=challenge-123'), { headers: { host: APP_HOST } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response_token: xSign(SECRET, 'challenge-123') });
    expect((await fetch(hook(s.inbox.id), { headers: { host: APP_HOST } })).status).toBe(400);
    expect((await fetch(hook(2_000_000_000, '?crc_token=a'), { headers: { host: APP_HOST } })).status).toBe(404);
  });

  it('ingests signed DMs once (not our own), refuses bad signatures, and replies as a DM', async () => {
    const s = await setup();
    const body = JSON.stringify(dmEvent({ forUserId: ME, senderId: '5550001', id: '1700000000000000001', text: 'DM hello', name: 'Xavier Q' }));
    expect((await postEvent(s.inbox.id, body, xSign(SECRET, body))).status).toBe(200);
    expect((await postEvent(s.inbox.id, body, xSign(SECRET, body))).status).toBe(200);
    const own = JSON.stringify(dmEvent({ forUserId: ME, senderId: ME, id: '1700000000000000002', text: 'our reply' }));
    await postEvent(s.inbox.id, own, xSign(SECRET, own));
    const conversations = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, s.inbox.id));
    expect(conversations).toHaveLength(1);
    expect(conversations[0]).toMatchObject({ sourceType: 'twitter', lastMessagePreview: 'DM hello' });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conversations[0].contactId!));
    expect(contact).toMatchObject({ firstName: 'Xavier', lastName: 'Q' });

    const forged = JSON.stringify(dmEvent({ forUserId: ME, senderId: '5550002', id: '1700000000000000003', text: 'forged' }));
    expect((await postEvent(s.inbox.id, forged, xSign('wrong', forged))).status).toBe(401);
    expect((await postEvent(s.inbox.id, forged, null)).status).toBe(401);
    expect(await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, s.inbox.id))).toHaveLength(1);

    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversations[0].id, kind: 'outgoing', text: 'Reply by DM' });
    await deliverMessage({ messageId: reply.id });
    expect(x.sent.at(-1)).toMatchObject({ participant: '5550001', text: 'Reply by DM' });
    const [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored).toMatchObject({ deliveryStatus: 'sent', externalId: x.sent.at(-1)!.eventId });
  });
});
