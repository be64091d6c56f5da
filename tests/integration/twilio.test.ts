import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { setAccountPlan } from '../../app/models/accounts/accounts.server';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { autoResolveConversation } from '../../app/models/channels/inbound.server';
import '../../app/models/channels/sms.server';
import { SMS_MESSAGES } from '../../app/models/channels/sms-schemas';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startTwilioStandIn, type TwilioAccount } from '../helpers/stand-ins/twilio';

let app: Awaited<ReturnType<typeof startTestApp>>;
let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';

beforeAll(async () => {
  twilio = await startTwilioStandIn();
  // Parley reads TWILIO_API_BASE once, at boot: set it before anything reads the configuration.
  process.env.TWILIO_API_BASE = twilio.baseUrl;
  (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons?.delete('config');
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await twilio.close();
});

const PATH = '/settings/sms';

async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ada' });
  const twilioAccount: TwilioAccount = {
    accountSid: `AC${a.account.id}${'0'.repeat(30)}`.slice(0, 34),
    authToken: `token-${a.domain}`,
    numbers: [
      { phone_number: '+15005550006', friendly_name: '(500) 555-0006' },
      { phone_number: '+15005550007', friendly_name: 'Support line' },
    ],
  };
  twilio.addAccount(twilioAccount);
  return { ...a, agent, twilioAccount, cookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }) };
}
type Setup = Awaited<ReturnType<typeof setup>>;

function twilioForm(s: Setup, over: Record<string, string | string[]> = {}) {
  return {
    intent: 'save',
    name: 'Texts',
    provider: 'twilio',
    accountSID: s.twilioAccount.accountSid,
    sid: s.twilioAccount.accountSid,
    authToken: s.twilioAccount.authToken,
    phoneNumber: '+15005550006',
    threadingInterval: '1',
    autoResolvedDays: '0',
    assigneeIds: [String(s.owner.id), String(s.agent.id)],
    ...over,
  };
}

async function createTwilioInbox(s: Setup, over: Record<string, string | string[]> = {}) {
  const res = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, over) });
  expect(res.status).toBe(302);
  const [inbox] = await getDb()
    .select()
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, s.account.id), eq(schema.inboxes.name, String(over.name ?? 'Texts'))));
  return inbox;
}

const inboundUrl = (inboxId: number) => `http://${APP_HOST}/webhooks/twilio/${inboxId}`;

async function conversationsOf(accountId: number, inboxId: number) {
  return getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.inboxId, inboxId)))
    .orderBy(schema.conversations.id);
}

async function messagesOf(conversationId: number) {
  return getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conversationId)).orderBy(schema.messages.id);
}

describe('SMS form (Twilio)', () => {
  it('fetches the phone numbers from Twilio with the typed credentials, keeping the draft', async () => {
    const s = await setup();
    const res = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: { ...twilioForm(s, { name: 'Draft name' }), intent: 'fetch-numbers', phoneNumber: '' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<option value="+15005550006">');
    expect(res.text).toContain('+15005550007 (Support line)');
    expect(res.text).toContain('value="Draft name"');

    const bad = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: { ...twilioForm(s), intent: 'fetch-numbers', authToken: 'wrong' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Twilio answered 401: Authenticate (error 20003)');
    expect(bad.text).not.toContain('<option value="+15005550006">');

    const missing = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: { ...twilioForm(s), intent: 'fetch-numbers', accountSID: '' } });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain(SMS_MESSAGES.accountSidRequired);
  });

  it('answers every section-5 message with a 400 and stores nothing', async () => {
    const s = await setup();
    const cases: [Record<string, string | string[]>, string][] = [
      [{ name: '' }, SMS_MESSAGES.nameRequired],
      [{ name: 'x'.repeat(21) }, SMS_MESSAGES.nameMax],
      [{ provider: '' }, SMS_MESSAGES.providerRequired],
      [{ authToken: '' }, SMS_MESSAGES.authTokenRequired],
      [{ authToken: 'x'.repeat(201) }, SMS_MESSAGES.authTokenMax],
      [{ sid: '' }, SMS_MESSAGES.sidRequired],
      [{ sid: 'x'.repeat(201) }, SMS_MESSAGES.sidMax],
      [{ accountSID: '' }, SMS_MESSAGES.accountSidRequired],
      [{ phoneNumber: '15005550006' }, SMS_MESSAGES.phone],
      [{ phoneNumber: '+123' }, SMS_MESSAGES.phone],
      [{ phoneNumber: '+123456789012345' }, SMS_MESSAGES.phone],
      [{ assigneeIds: [] }, SMS_MESSAGES.assignees],
      [{ threadingInterval: '' }, SMS_MESSAGES.threading],
      [{ threadingInterval: '3' }, SMS_MESSAGES.threading],
      [{ autoResolvedDays: 'abc' }, SMS_MESSAGES.autoResolve],
      [{ autoResolvedDays: '-1' }, SMS_MESSAGES.autoResolve],
    ];
    for (const [over, message] of cases) {
      const res = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, over) });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.text, JSON.stringify(over)).toContain(message);
    }
    // An assignee of another account is refused, not stored.
    const other = await setup();
    const foreign = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, { assigneeIds: [String(other.owner.id)] }) });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain(SMS_MESSAGES.assignees);
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id))).toHaveLength(0);
  });

  it('creates, then updates without the provider, number or credentials; the token is never shown back', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s);
    expect(inbox).toMatchObject({ channelType: 'sms', name: 'Texts' });
    expect(inbox.settings).toMatchObject({
      provider: 'twilio',
      phoneNumber: '+15005550006',
      accountSID: s.twilioAccount.accountSid,
      authToken: s.twilioAccount.authToken,
      threadingInterval: 1,
      autoResolvedDays: 0,
      assigneeIds: [s.owner.id, s.agent.id],
      publicBase: `http://${APP_HOST}`,
    });
    const events = await getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'inbox_created'))).orderBy(schema.domainEvents.id);
    expect(events).toHaveLength(1);

    const page = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(s.twilioAccount.authToken);
    expect(page.text).toContain(`/webhooks/twilio/${inbox.id}`);

    const updated = await app.request(`${PATH}/${inbox.id}`, {
      domain: s.domain,
      cookie: s.cookie,
      form: {
        intent: 'save',
        name: 'Renamed',
        provider: 'custom_sms',
        phoneNumber: '+19999999999',
        authToken: 'stolen',
        accountSID: 'ACother',
        sid: 'other',
        threadingInterval: '7',
        autoResolvedDays: '3',
        assigneeIds: [String(s.agent.id)],
      },
    });
    expect(updated.status).toBe(302);
    const [after] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(after.name).toBe('Renamed');
    expect(after.settings).toMatchObject({
      provider: 'twilio',
      phoneNumber: '+15005550006',
      accountSID: s.twilioAccount.accountSid,
      sid: s.twilioAccount.accountSid,
      authToken: s.twilioAccount.authToken,
      threadingInterval: 7,
      autoResolvedDays: 3,
      assigneeIds: [s.agent.id],
    });

    // Another account cannot open or change it.
    const other = await setup();
    expect((await app.request(`${PATH}/${inbox.id}`, { domain: other.domain, cookie: other.cookie })).status).toBe(404);
    expect((await app.request(`${PATH}/${inbox.id}`, { domain: other.domain, cookie: other.cookie, form: { intent: 'delete' } })).status).toBe(404);
  });

  it('refuses users without manage_sms and plans without channels/sms', async () => {
    const s = await setup();
    const agentCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.agent.id });
    const page = await app.request(`${PATH}/new`, { domain: s.domain, cookie: agentCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('locked-note');
    const post = await app.request(`${PATH}/new`, { domain: s.domain, cookie: agentCookie, form: twilioForm(s) });
    expect(post.status).toBe(403);
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id))).toHaveLength(0);

    // The starter plan has no channels/sms: the owner is refused too.
    await setAccountPlan({ domain: s.domain, planKey: 'starter', status: 'active' });
    expect((await app.request(PATH, { domain: s.domain, cookie: s.cookie })).status).toBe(403);
    expect((await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s) })).status).toBe(403);
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id))).toHaveLength(0);
  });
});

describe('Twilio inbound webhook', () => {
  it('a good signature opens an assigned conversation; a redelivery is dropped; a bad signature is a 403 and stores nothing', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s);
    const res = await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550100', to: '+15005550006', body: 'Hello, my order?', connectPort: app.port });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/xml');
    expect(res.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    const [conversation] = await conversationsOf(s.account.id, inbox.id);
    expect(conversation).toMatchObject({ sourceType: 'twilio', status: 'open', lastMessagePreview: 'Hello, my order?' });
    // The assignee with the fewest open conversations: both have none, so the first listed.
    expect(conversation.assigneeId).toBe(s.owner.id);
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conversation.contactId!));
    expect(contact.phone).toBe('+14155550100');
    const [message] = await messagesOf(conversation.id);
    expect(message).toMatchObject({ kind: 'incoming', text: 'Hello, my order?', externalId: res.sid });

    // Twilio retries a webhook it thinks failed: same MessageSid, nothing new.
    const again = await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550100', to: '+15005550006', body: 'Hello, my order?', sid: res.sid, connectPort: app.port });
    expect(again.status).toBe(200);
    expect(await messagesOf(conversation.id)).toHaveLength(1);

    // A second sender goes to the other assignee (fewest open conversations).
    await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550101', to: '+15005550006', body: 'Hi', connectPort: app.port });
    const both = await conversationsOf(s.account.id, inbox.id);
    expect(both.map((c) => c.assigneeId)).toEqual([s.owner.id, s.agent.id]);

    // Forged: signed with another token, or over another URL, or unsigned.
    const forged = { ...s.twilioAccount, authToken: 'not-the-token' };
    const before = (await getDb().select({ n: sql<number>`count(*)::int` }).from(schema.messages).where(eq(schema.messages.accountId, s.account.id)))[0].n;
    const bad = await twilio.incomingSms(inboundUrl(inbox.id), { account: forged, from: '+14155550102', to: '+15005550006', body: 'forged', connectPort: app.port });
    expect(bad.status).toBe(403);
    const wrongUrl = await twilio.incomingSms(inboundUrl(inbox.id), {
      account: s.twilioAccount,
      from: '+14155550102',
      to: '+15005550006',
      body: 'forged',
      connectPort: app.port,
      signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    expect(wrongUrl.status).toBe(403);
    const after = (await getDb().select({ n: sql<number>`count(*)::int` }).from(schema.messages).where(eq(schema.messages.accountId, s.account.id)))[0].n;
    expect(after).toBe(before);

    // Another account's inbox id with this account's (valid) Twilio signature: not its token, 403.
    const other = await setup();
    const otherInbox = await createTwilioInbox(other);
    const cross = await twilio.incomingSms(inboundUrl(otherInbox.id), { account: s.twilioAccount, from: '+14155550103', to: '+15005550006', body: 'cross', connectPort: app.port });
    expect(cross.status).toBe(403);
    expect(await conversationsOf(other.account.id, otherInbox.id)).toHaveLength(0);

    // Unknown inbox, not a number, a GET: no 500.
    expect((await twilio.incomingSms(inboundUrl(2_000_000_000), { account: s.twilioAccount, from: '+1415', to: '+1', body: 'x', connectPort: app.port })).status).toBe(404);
    expect((await app.request('/webhooks/twilio/abc', { method: 'POST', origin: null })).status).toBe(404);
    expect((await app.request(`/webhooks/twilio/${inbox.id}`)).status).toBe(405);
  });

  it("an inbox set up with an API key asks for the account's Auth Token and accepts webhooks Twilio signs with it", async () => {
    const s = await setup();
    const apiKey = { sid: `SK${'1'.repeat(32)}`, authToken: 'api-key-secret' };
    twilio.addAccount({ ...s.twilioAccount, apiKeys: [{ sid: apiKey.sid, secret: apiKey.authToken }] });
    // Without the account's Auth Token, nothing could check Twilio's signatures: refused with the reason.
    const missing = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, { name: 'Keyed', ...apiKey }) });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Auth Token is required with an API key');
    // Twilio is asked whether it is the account's Auth Token; a wrong one is refused and not sent back into the page.
    const wrong = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, { name: 'Keyed', ...apiKey, webhookAuthToken: 'typo-token' }) });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Twilio refused this Auth Token: it is not the account&#x27;s Auth Token');
    expect(wrong.text).not.toContain('typo-token');
    const inbox = await createTwilioInbox(s, { name: 'Keyed', ...apiKey, webhookAuthToken: s.twilioAccount.authToken });
    // Signed the way Twilio signs: HMAC-SHA1 of the URL and sorted parameters with the account's Auth Token.
    const res = await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550150', to: '+15005550006', body: 'Keyed hello', connectPort: app.port });
    expect(res.status).toBe(200);
    expect(await conversationsOf(s.account.id, inbox.id)).toHaveLength(1);
    // Signed with the key's secret (which Twilio never does): refused.
    const byKey = await twilio.incomingSms(inboundUrl(inbox.id), { account: { ...s.twilioAccount, authToken: apiKey.authToken }, from: '+14155550151', to: '+15005550006', body: 'x', connectPort: app.port });
    expect(byKey.status).toBe(403);
  });

  it("an existing API-key inbox without the account's Auth Token adds it from its settings page, checked with Twilio and never shown back", async () => {
    const s = await setup();
    const apiKey = { sid: `SK${'2'.repeat(32)}`, secret: 'api-key-secret-2' };
    twilio.addAccount({ ...s.twilioAccount, apiKeys: [apiKey] });
    // As inboxes made before the Auth Token was asked for: the key alone, every webhook refused.
    const { createSmsInbox } = await import('../../app/models/channels/sms.server');
    const inbox = await createSmsInbox({
      accountId: s.account.id,
      actorId: s.owner.id,
      publicBase: `http://${APP_HOST}`,
      input: { provider: 'twilio', name: 'Old keyed', phoneNumber: '+15005550006', accountSID: s.twilioAccount.accountSid, sid: apiKey.sid, authToken: apiKey.secret, threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [s.owner.id] },
    });
    const hello = () => twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550160', to: '+15005550006', body: 'Old keyed hello', connectPort: app.port });
    expect((await hello()).status).toBe(403);

    const page = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.text).toContain('Webhook Auth Token');
    const form = { intent: 'save', name: 'Old keyed', threadingInterval: '1', autoResolvedDays: '0', assigneeIds: String(s.owner.id) };
    const missing = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie, form });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Auth Token is required with an API key');
    const wrong = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { ...form, webhookAuthToken: 'not-the-account-token' } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Twilio refused this Auth Token: it is not the account&#x27;s Auth Token');
    expect(wrong.text).not.toContain('not-the-account-token');

    const added = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { ...form, webhookAuthToken: s.twilioAccount.authToken } });
    expect(added.status).toBe(302);
    const [after] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(after.settings).toMatchObject({ sid: apiKey.sid, authToken: apiKey.secret, webhookAuthToken: s.twilioAccount.authToken });
    const [health] = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, inbox.id));
    expect(health).toMatchObject({ part: 'sms', failingSince: null });
    expect((await hello()).status).toBe(200);
    // Left empty on a later save, the saved one is kept; the page says it is saved without showing it.
    expect((await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie, form: { ...form, name: 'Keyed again' } })).status).toBe(302);
    const [kept] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(kept.settings).toMatchObject({ webhookAuthToken: s.twilioAccount.authToken });
    const edit = await app.request(`${PATH}/${inbox.id}`, { domain: s.domain, cookie: s.cookie });
    expect(edit.text).toContain('Saved: leave empty to keep it');
    expect(edit.text).not.toContain(s.twilioAccount.authToken);
    expect(edit.text).not.toContain(apiKey.secret);
  });

  it('settings are tried with Twilio before they are saved: refused credentials or a number not on the account are a 400 that saves nothing', async () => {
    const s = await setup();
    const refused = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, { authToken: 'revoked-token' }) });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Twilio refused these credentials (Authentication Key and Auth Token)');
    const notOurs = await app.request(`${PATH}/new`, { domain: s.domain, cookie: s.cookie, form: twilioForm(s, { phoneNumber: '+15005550999' }) });
    expect(notOurs.status).toBe(400);
    expect(notOurs.text).toContain('+15005550999 is not an SMS number of this Twilio account');
    expect(await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.accountId, s.account.id))).toHaveLength(0);
    // A good one is saved, and its health says it works.
    const inbox = await createTwilioInbox(s);
    const [health] = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, inbox.id));
    expect(health.lastSuccessAt).toBeInstanceOf(Date);
  });

  it('verifies the https URL Parley gave Twilio when a TLS proxy forwards plain http', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s);
    await getDb()
      .update(schema.inboxes)
      .set({ settings: { ...inbox.settings, publicBase: `https://${APP_HOST}` } })
      .where(eq(schema.inboxes.id, inbox.id));
    // Twilio signed https://…; the request reaches Parley as http through the proxy.
    const { twilioSign } = await import('../helpers/stand-ins/twilio');
    const params = { MessageSid: 'SMproxy1', AccountSid: s.twilioAccount.accountSid, From: '+14155550199', To: '+15005550006', Body: 'via proxy' };
    const signature = twilioSign(s.twilioAccount.authToken, `https://${APP_HOST}/webhooks/twilio/${inbox.id}`, params);
    const res = await fetch(`http://127.0.0.1:${app.port}/webhooks/twilio/${inbox.id}`, {
      method: 'POST',
      headers: { host: APP_HOST, 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status).toBe(200);
    expect(await conversationsOf(s.account.id, inbox.id)).toHaveLength(1);
  });
});

describe('Twilio outbound and delivery status', () => {
  it('sends an agent reply through the REST API with a status callback that marks it delivered', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s);
    await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550110', to: '+15005550006', body: 'Where is it?', connectPort: app.port });
    const [conversation] = await conversationsOf(s.account.id, inbox.id);
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversation.id, kind: 'outgoing', text: 'On its way!' });
    const sentBefore = twilio.sent.length;
    await deliverMessage({ messageId: reply.id });
    expect(twilio.sent).toHaveLength(sentBefore + 1);
    const sent = twilio.sent.at(-1)!;
    expect(sent.auth).toBe(s.twilioAccount.accountSid);
    expect(sent.params).toMatchObject({ To: '+14155550110', From: '+15005550006', Body: 'On its way!', StatusCallback: `http://${APP_HOST}/webhooks/twilio/${inbox.id}/status` });
    let [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored).toMatchObject({ externalId: sent.sid, deliveryStatus: 'sent' });

    const delivered = await twilio.statusCallback(sent, 'delivered', s.twilioAccount, app.port);
    expect(delivered.status).toBe(200);
    [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('delivered');
    // A late "sent" does not undo "delivered".
    await twilio.statusCallback(sent, 'sent', s.twilioAccount, app.port);
    [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('delivered');
    // A forged callback changes nothing.
    const forged = await twilio.statusCallback(sent, 'failed', { ...s.twilioAccount, authToken: 'nope' }, app.port);
    expect(forged.status).toBe(403);
    [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('delivered');
  });

  it("records Twilio's refusal on the message and an undelivered report as failed", async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s);
    await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550111', to: '+15005550006', body: 'hi', connectPort: app.port });
    const [conversation] = await conversationsOf(s.account.id, inbox.id);
    const reply = await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: conversation.id, kind: 'outgoing', text: 'first' });
    twilio.failNextSend({ status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    await expect(deliverMessage({ messageId: reply.id })).rejects.toThrow(/21610/);
    let [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored.deliveryStatus).toBe('failed');
    expect(stored.deliveryError).toContain('unsubscribed recipient');
    expect(stored.deliveryError).not.toContain(s.twilioAccount.authToken);

    // A refused recipient is about that message, not the channel: its health stays as it was.
    const { getChannelHealth } = await import('../../app/models/channels/health.server');
    // (working since the settings were saved and tried).
    const health = await getChannelHealth({ accountId: s.account.id, inboxId: inbox.id });
    expect(health.map((h) => [h.part, h.failingSince, h.lastError])).toEqual([['sms', null, null]]);
    // Refused credentials are about the channel: the SMS inbox is failing, in Twilio's words.
    twilio.failNextSend({ status: 401, code: 20003, message: 'Authenticate' });
    await expect(deliverMessage({ messageId: reply.id })).rejects.toThrow(/20003/);
    expect(await getChannelHealth({ accountId: s.account.id, inboxId: inbox.id })).toMatchObject([
      { part: 'sms', lastError: 'Twilio answered 401: Authenticate (error 20003)', failingSince: expect.any(Date) },
    ]);

    await deliverMessage({ messageId: reply.id });
    expect((await getChannelHealth({ accountId: s.account.id, inboxId: inbox.id }))[0]).toMatchObject({ failingSince: null, lastSuccessAt: expect.any(Date) });
    const sent = twilio.sent.at(-1)!;
    await twilio.statusCallback(sent, 'undelivered', s.twilioAccount, app.port, '30003');
    [stored] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, reply.id));
    expect(stored).toMatchObject({ deliveryStatus: 'failed', deliveryError: 'Twilio: undelivered (error 30003)' });
  });
});

describe('threading interval and auto-resolve', () => {
  const DAY = 24 * 60 * 60 * 1000;
  async function age(conversationId: number, days: number) {
    const at = new Date(Date.now() - days * DAY);
    await getDb().update(schema.conversations).set({ lastMessageAt: at }).where(eq(schema.conversations.id, conversationId));
  }

  it('01 Day: within a day the SMS continues the conversation, after a day it opens a new one', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s, { threadingInterval: '1' });
    const send = (body: string) => twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550120', to: '+15005550006', body, connectPort: app.port });
    await send('one');
    await send('two');
    let list = await conversationsOf(s.account.id, inbox.id);
    expect(list).toHaveLength(1);
    expect(await messagesOf(list[0].id)).toHaveLength(2);
    await age(list[0].id, 0.9);
    await send('three');
    expect(await conversationsOf(s.account.id, inbox.id)).toHaveLength(1);
    await age(list[0].id, 1.1);
    await send('four');
    list = await conversationsOf(s.account.id, inbox.id);
    expect(list).toHaveLength(2);
    expect(list[1].lastMessagePreview).toBe('four');
  });

  it('Never: an SMS always continues the last conversation, reopening it when resolved', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s, { threadingInterval: '0' });
    const send = (body: string) => twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550121', to: '+15005550006', body, connectPort: app.port });
    await send('one');
    const [conversation] = await conversationsOf(s.account.id, inbox.id);
    await getDb().update(schema.conversations).set({ status: 'resolved', resolvedAt: new Date() }).where(eq(schema.conversations.id, conversation.id));
    await age(conversation.id, 90);
    await send('two');
    const list = await conversationsOf(s.account.id, inbox.id);
    expect(list).toHaveLength(1);
    expect(list[0].status).toBe('open');
  });

  it('auto-resolve: a timer job at last message + N days resolves a quiet conversation, and 0 disables it', async () => {
    const s = await setup();
    const inbox = await createTwilioInbox(s, { autoResolvedDays: '2' });
    await twilio.incomingSms(inboundUrl(inbox.id), { account: s.twilioAccount, from: '+14155550130', to: '+15005550006', body: 'hi', connectPort: app.port });
    const [conversation] = await conversationsOf(s.account.id, inbox.id);
    const jobs = (await getDb().execute(
      sql`select start_after from pgboss.job where name = 'channel.auto-resolve' and data->>'conversationId' = ${String(conversation.id)}`,
    )) as unknown as { start_after: Date }[];
    expect(jobs).toHaveLength(1);
    // The timer is due exactly two days after the message, not found by scanning the table.
    expect(Math.abs(new Date(jobs[0].start_after).getTime() - (conversation.lastMessageAt.getTime() + 2 * DAY))).toBeLessThan(5_000);

    expect(await autoResolveConversation({ accountId: s.account.id, conversationId: conversation.id })).toEqual({ resolved: false });
    await age(conversation.id, 2.01);
    // Another account's id does nothing.
    const other = await setup();
    expect(await autoResolveConversation({ accountId: other.account.id, conversationId: conversation.id })).toEqual({ resolved: false });
    expect(await autoResolveConversation({ accountId: s.account.id, conversationId: conversation.id })).toEqual({ resolved: true });
    const [resolved] = await conversationsOf(s.account.id, inbox.id);
    expect(resolved.status).toBe('resolved');

    const off = await createTwilioInbox(s, { name: 'No timer', autoResolvedDays: '0' });
    await twilio.incomingSms(inboundUrl(off.id), { account: s.twilioAccount, from: '+14155550131', to: '+15005550006', body: 'hi', connectPort: app.port });
    const [quiet] = await conversationsOf(s.account.id, off.id);
    const none = (await getDb().execute(sql`select 1 from pgboss.job where name = 'channel.auto-resolve' and data->>'conversationId' = ${String(quiet.id)}`)) as unknown as unknown[];
    expect(none).toHaveLength(0);
  });
});
