import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import '../../app/models/channels/sms.server';
import { SMS_MESSAGES } from '../../app/models/channels/sms-schemas';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { gatewaySign, startSmsGateway } from '../helpers/stand-ins/sms-gateway';

let app: Awaited<ReturnType<typeof startTestApp>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
let secret = '';
let gateway: Awaited<ReturnType<typeof startSmsGateway>>;

beforeAll(async () => {
  app = await startTestApp();
  gateway = await startSmsGateway({ secret: () => secret, answerId: (n) => (n === 1 ? `gw-${n}` : null) });
});
afterAll(async () => {
  await app.close();
  await gateway.close();
});

const PATH = '/settings/sms';

async function setup() {
  const a = await createTestAccount();
  return { ...a, cookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }) };
}
type Setup = Awaited<ReturnType<typeof setup>>;

/** The create form for the custom provider, as the page renders it; returns the shared secret it shows. */
async function openCustomForm(s: Setup) {
  const page = await app.request(`${PATH}/new?provider=custom_sms`, { domain: s.domain, cookie: s.cookie });
  expect(page.status).toBe(200);
  const shown = /<input id="sms-shared-secret" disabled="" readonly="" value="([^"]+)"/.exec(page.text);
  const hidden = /<input type="hidden" name="authToken" value="([^"]+)"/.exec(page.text);
  return { page, shown: shown?.[1], hidden: hidden?.[1] };
}

async function createCustomInbox(s: Setup) {
  const { hidden } = await openCustomForm(s);
  const res = await app.request(`${PATH}/new`, {
    domain: s.domain,
    cookie: s.cookie,
    form: {
      intent: 'save',
      name: 'Gateway',
      provider: 'custom_sms',
      phoneNumber: '+4915112345',
      authToken: hidden!,
      webhookUrl: gateway.url,
      threadingInterval: '7',
      autoResolvedDays: '0',
      assigneeIds: String(s.owner.id),
    },
  });
  expect(res.status).toBe(302);
  const [inbox] = await getDb().select().from(schema.inboxes).where(and(eq(schema.inboxes.accountId, s.account.id), eq(schema.inboxes.channelType, 'sms')));
  return inbox;
}

function post(inboxId: number, body: string, signature: string | null) {
  return fetch(`http://127.0.0.1:${app.port}/webhooks/sms/${inboxId}`, {
    method: 'POST',
    headers: { host: APP_HOST, 'content-type': 'application/json', ...(signature ? { 'x-parley-signature': signature } : {}) },
    body,
  });
}

describe('custom SMS form', () => {
  it('shows the shared secret Parley generated in a disabled field, caps the phone at 14, and stores it as the inbox secret', async () => {
    const s = await setup();
    const { page, shown, hidden } = await openCustomForm(s);
    expect(shown).toBeTruthy();
    expect(hidden).toBe(shown);
    expect(page.text).toMatch(/<input[^>]*name="phoneNumber"[^>]*maxLength="14"/i);
    const inbox = await createCustomInbox(s);
    expect(inbox.settings).toMatchObject({ provider: 'custom_sms', phoneNumber: '+4915112345', webhookUrl: gateway.url, threadingInterval: 7 });
    expect(inbox.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Before it was saved, the gateway got a check signed with the inbox's secret.
    const check = gateway.checks.at(-1)!;
    expect(check.body).toMatchObject({ type: 'check', from: '+4915112345' });
    const t = Number(/t=(\d+)/.exec(check.header)![1]);
    expect(check.header).toBe(gatewaySign(inbox.secret!, check.raw, t));
    const [health] = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, inbox.id));
    expect(health).toMatchObject({ part: 'sms', failingSince: null });
    // A gateway that does not answer 2xx: a 400 on the form, nothing saved (create and update alike).
    gateway.answerChecksWith(401);
    try {
      const refused = await app.request(`${PATH}/${inbox.id}`, {
        domain: s.domain,
        cookie: s.cookie,
        form: { intent: 'save', name: 'Renamed', webhookUrl: gateway.url, threadingInterval: '7', autoResolvedDays: '0', assigneeIds: String(s.owner.id) },
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('The SMS gateway answered 401 to Parley&#x27;s signed check');
      const [same] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
      expect(same.name).toBe('Gateway');
    } finally {
      gateway.answerChecksWith(null);
    }
    // The edit page never shows it again.
    const edit = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(edit.text).not.toContain(inbox.secret!);
    expect(edit.text).toContain(`/webhooks/sms/${inbox.id}`);
  });

  it('requires the webhook URL for custom_sms (at most 200, http or https) and refuses a typed-in token', async () => {
    const s = await setup();
    const { hidden } = await openCustomForm(s);
    const base = { intent: 'save', name: 'Gateway', provider: 'custom_sms', phoneNumber: '+4915112345', authToken: hidden!, threadingInterval: '0', autoResolvedDays: '0', assigneeIds: String(s.owner.id) };
    const cases: [Record<string, string>, string][] = [
      [{ webhookUrl: '' }, SMS_MESSAGES.webhookUrlRequired],
      [{ webhookUrl: `https://x.test/${'a'.repeat(200)}` }, SMS_MESSAGES.webhookUrlMax],
      [{ webhookUrl: 'ftp://gateway.test/x' }, SMS_MESSAGES.webhookUrlInvalid],
      [{ webhookUrl: gateway.url, authToken: 'short' }, SMS_MESSAGES.authTokenRequired],
    ];
    for (const [over, message] of cases) {
      const res = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: { ...base, ...over } });
      expect(res.status, message).toBe(400);
      expect(res.text).toContain(message);
    }
    // Without JavaScript, choosing the provider re-renders the draft with that provider's fields and saves nothing.
    const chosen = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: { intent: 'provider', name: 'Kept', provider: 'custom_sms' } });
    expect(chosen.status).toBe(200);
    expect(chosen.text).toContain('value="Kept"');
    expect(chosen.text).toContain('data-testid="custom-fields"');
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id))).toHaveLength(0);
  });
});

describe('custom SMS webhook', () => {
  it('accepts signed messages (once), refuses bad, missing and replayed signatures with 401, and malformed bodies with 400', async () => {
    const s = await setup();
    const inbox = await createCustomInbox(s);
    const body = JSON.stringify({ type: 'message', id: 'in-1', from: '+4917000001', to: '+4915112345', text: 'Hallo', name: 'Greta Gateway' });
    const ok = await post(inbox.id, body, gatewaySign(inbox.secret!, body));
    expect(ok.status).toBe(201);
    const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, inbox.id));
    expect(conversation).toMatchObject({ sourceType: 'custom_sms', assigneeId: s.owner.id, lastMessagePreview: 'Hallo' });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conversation.contactId!));
    expect(contact).toMatchObject({ phone: '+4917000001', firstName: 'Greta' });

    expect((await post(inbox.id, body, gatewaySign(inbox.secret!, body))).status).toBe(200);
    const count = async () => (await getDb().select().from(schema.messages).where(eq(schema.messages.accountId, s.account.id))).length;
    expect(await count()).toBe(1);

    const forged = JSON.stringify({ type: 'message', id: 'in-2', from: '+4917000002', text: 'forged' });
    expect((await post(inbox.id, forged, gatewaySign('wrong-secret', forged))).status).toBe(401);
    expect((await post(inbox.id, forged, null)).status).toBe(401);
    expect((await post(inbox.id, forged, gatewaySign(inbox.secret!, forged, Math.floor(Date.now() / 1000) - 600))).status).toBe(401);
    expect(await count()).toBe(1);

    const notJson = 'type=message';
    expect((await post(inbox.id, notJson, gatewaySign(inbox.secret!, notJson))).status).toBe(400);
    const badPhone = JSON.stringify({ type: 'message', id: 'in-3', from: 'not a phone', text: 'x' });
    expect((await post(inbox.id, badPhone, gatewaySign(inbox.secret!, badPhone))).status).toBe(400);
    expect((await post(2_000_000_000, body, gatewaySign(inbox.secret!, body))).status).toBe(404);
    expect(await count()).toBe(1);
  });

  it('posts replies to the gateway signed with the shared secret, and takes delivery reports', async () => {
    const s = await setup();
    const inbox = await createCustomInbox(s);
    secret = inbox.secret!;
    const body = JSON.stringify({ type: 'message', id: 'in-10', from: '+4917000010', text: 'Need help' });
    await post(inbox.id, body, gatewaySign(secret, body));
    const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, inbox.id));
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversation.id, kind: 'outgoing', text: 'Sure!' });
    const before = gateway.received.length;
    await deliverMessage({ messageId: reply.id });
    expect(gateway.received).toHaveLength(before + 1);
    const got = gateway.received.at(-1)!;
    expect(got.signatureValid).toBe(true);
    expect(got.body).toMatchObject({ type: 'message', id: String(reply.id), inboxId: inbox.id, conversationId: conversation.id, from: '+4915112345', to: '+4917000010', text: 'Sure!' });
    const [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('sent');

    const report = JSON.stringify({ type: 'status', id: stored.externalId, status: 'delivered' });
    const res = await post(inbox.id, report, gatewaySign(secret, report));
    expect(res.status).toBe(200);
    const [after] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(after.deliveryStatus).toBe('delivered');
    const unknown = JSON.stringify({ type: 'status', id: 'nope', status: 'delivered' });
    expect((await post(inbox.id, unknown, gatewaySign(secret, unknown))).status).toBe(404);
  });
});
