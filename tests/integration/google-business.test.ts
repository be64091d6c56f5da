import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import '../../app/models/channels/google-business.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
const CLIENT_TOKEN = 'gbm-client-token';

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Google's documented signature of its Business Messages webhooks: base64 HMAC-SHA512 of the body with the client token. */
const googleSign = (body: string) => crypto.createHmac('sha512', CLIENT_TOKEN).update(body).digest('base64');

const post = (inboxId: number, body: string, signature: string | null) =>
  fetch(`http://127.0.0.1:${app.port}/webhooks/google-business/${inboxId}`, {
    method: 'POST',
    headers: { host: APP_HOST, 'content-type': 'application/json', ...(signature ? { 'x-goog-signature': signature } : {}) },
    body,
  });

describe('Google Business Messages (ingestion only)', () => {
  it('says plainly that Google shut it down, ingests its payloads, and cannot reply', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const page = await app.request('/settings/google-business', { domain: a.domain, cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Google shut down Google Business Messages on 31 July 2024');
    const created = await app.request('/settings/google-business?index', { domain: a.domain, cookie, form: { intent: 'save', name: 'GBM archive', clientToken: CLIENT_TOKEN } });
    expect(created.status).toBe(302);
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
    expect(inbox.channelType).toBe('google_business');

    const body = JSON.stringify({
      agent: 'brands/1/agents/2',
      conversationId: 'conv-123',
      requestId: 'req-1',
      message: { messageId: 'msg-1', name: 'conversations/conv-123/messages/msg-1', text: 'Are you open today?', createTime: '2024-05-01T10:00:00Z' },
      context: { userInfo: { displayName: 'Gina Goog' } },
      sendTime: '2024-05-01T10:00:00Z',
    });
    expect((await post(inbox.id, body, googleSign(body))).status).toBe(200);
    expect((await post(inbox.id, body, googleSign(body))).status).toBe(200);
    expect((await post(inbox.id, body, 'bad')).status).toBe(401);
    const conversations = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, inbox.id));
    expect(conversations).toHaveLength(1);
    expect(conversations[0]).toMatchObject({ sourceType: 'google_business_message', lastMessagePreview: 'Are you open today?' });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conversations[0].contactId!));
    expect(contact.firstName).toBe('Gina');

    const reply = await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: conversations[0].id, kind: 'outgoing', text: 'Yes' });
    // Failed for good with the reason on the message (ADR 033): no retry can mend it.
    expect(await deliverMessage({ messageId: reply.id })).toMatchObject({ failed: true, reason: expect.stringMatching(/shut down/) });
    const [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('failed');
    expect(stored.deliveryError).toMatch(/shut down/);
  });

  it('an inbox is edited on its own page, which says replies stay impossible; a blank token keeps the stored one', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    await app.request('/settings/google-business?index', { domain: a.domain, cookie, form: { intent: 'save', name: 'GBM archive', clientToken: CLIENT_TOKEN } });
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, a.account.id));
    const page = await app.request(`/settings/google-business/${inbox.id}`, { domain: a.domain, cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Replies stay impossible');
    expect(page.text).toContain(`/webhooks/google-business/${inbox.id}`);
    expect(page.text).not.toContain(CLIENT_TOKEN);
    const list = await app.request('/settings/google-business', { domain: a.domain, cookie });
    expect(list.text).toContain(`href="/settings/google-business/${inbox.id}"`);

    const bad = await app.request(`/settings/google-business/${inbox.id}`, { domain: a.domain, cookie, form: { intent: 'save', name: '', clientToken: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Inbox Name is required');
    expect(bad.text).toContain('Client Token must be at least 8 characters');
    const saved = await app.request(`/settings/google-business/${inbox.id}`, { domain: a.domain, cookie, form: { intent: 'save', name: 'GBM relay', clientToken: '' } });
    expect(saved.status).toBe(302);
    const [renamed] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(renamed.name).toBe('GBM relay');
    expect((renamed.settings as { clientToken: string }).clientToken).toBe(CLIENT_TOKEN);
    // The kept token still verifies payloads.
    const body = JSON.stringify({ conversationId: 'conv-9', message: { messageId: 'm-9', text: 'Still there?' } });
    expect((await post(inbox.id, body, googleSign(body))).status).toBe(200);
    await app.request(`/settings/google-business/${inbox.id}`, { domain: a.domain, cookie, form: { intent: 'save', name: 'GBM relay', clientToken: 'a-new-client-token' } });
    const [rotated] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect((rotated.settings as { clientToken: string }).clientToken).toBe('a-new-client-token');

    // Another account's inbox, or one of another kind, is not found here.
    const other = await createTestAccount();
    const otherCookie = await sessionCookie({ domain: other.domain, accountId: other.account.id, userId: other.owner.id });
    expect((await app.request(`/settings/google-business/${inbox.id}`, { domain: other.domain, cookie: otherCookie })).status).toBe(404);
    const del = await app.request(`/settings/google-business/${inbox.id}`, { domain: a.domain, cookie, form: { intent: 'delete' } });
    expect(del.headers.location).toBe('/settings/google-business');
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id))).toHaveLength(0);
  });
});
