import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getDb, schema } from '../../db/client';
import { createApp } from '../../server/app';
import { startLiveServer } from '../../server/ws';
import { startWidgetSocket } from '../../server/widget-ws';
// The engine's job table loads every sending channel, as the engine does.
import '../../engine/jobs/index';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { userHashFor } from '../../app/models/channels/widget.server';
import { createContact } from '../../app/models/crm/contacts.server';
import { NO_CHAT_MESSAGE, NO_CONTACT_MESSAGE, NO_PHONE_MESSAGE } from '../../app/models/inbox/tickets.server';
import { createTestAccount } from '../factories';
import { sessionCookie } from '../helpers/http';
import { startTwilioStandIn, type TwilioAccount } from '../helpers/stand-ins/twilio';

/**
 * Starting an SMS or a chat with a known contact (issue 39): through the real app, the SMS leaving through the Twilio
 * stand-in (Twilio's wire format) and the chat reaching the contact's open widget over the visitor socket.
 */

let server: http.Server;
let port: number;
let closers: (() => Promise<unknown>)[] = [];
let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
const appHost = process.env.APP_HOST ?? 'localhost:3000';

beforeAll(async () => {
  twilio = await startTwilioStandIn();
  process.env.TWILIO_API_BASE = twilio.baseUrl;
  (globalThis as { __parleySingletons?: Map<string, unknown> }).__parleySingletons?.delete('config');
  const build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  const app = await createApp({ build, publicDir: path.resolve('public') });
  server = http.createServer(app);
  const live = await startLiveServer(server);
  const widget = await startWidgetSocket(server);
  closers = [() => widget.close(), () => live.close(), () => twilio.close()];
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  for (const close of closers) await close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

type Res = { status: number; headers: http.IncomingHttpHeaders; text: string };
function request(pathname: string, opts: { domain?: string; cookie?: string; form?: Record<string, string>; json?: unknown } = {}): Promise<Res> {
  const host = opts.domain ? `${opts.domain}.${appHost}` : appHost;
  const headers: Record<string, string> = { host };
  let body: string | undefined;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers.origin = `http://${host}`;
  }
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
    headers.origin = 'http://customer.example';
  }
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: body !== undefined ? 'POST' : 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const conversations = () => getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id)).orderBy(schema.conversations.id);
  return { ...a, cookie, conversations };
}

const outgoingOf = async (conversationId: number) =>
  (await getDb().select().from(schema.messages).where(and(eq(schema.messages.conversationId, conversationId), eq(schema.messages.kind, 'outgoing'))))[0];

describe('start an SMS with a known contact', () => {
  it('from the contact page: the SMS leaves through Twilio to their phone and their answer threads back; a contact without a phone is told so, nothing made', async () => {
    const s = await setup();
    const twilioAccount: TwilioAccount = {
      accountSid: `AC${s.account.id}${'1'.repeat(32)}`.slice(0, 34),
      authToken: `token-${s.domain}`,
      numbers: [{ phone_number: '+15005550006', friendly_name: 'Support line' }],
    };
    twilio.addAccount(twilioAccount);
    const made = await request('/settings/sms/new', {
      domain: s.domain,
      cookie: s.cookie,
      form: {
        intent: 'save',
        name: 'Texts',
        provider: 'twilio',
        accountSID: twilioAccount.accountSid,
        sid: twilioAccount.accountSid,
        authToken: twilioAccount.authToken,
        phoneNumber: '+15005550006',
        threadingInterval: '1',
        autoResolvedDays: '0',
        assigneeIds: String(s.owner.id),
      },
    });
    expect(made.status).toBe(302);
    const [inbox] = await getDb()
      .select()
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, s.account.id), eq(schema.inboxes.channelType, 'sms')));
    const who = { accountId: s.account.id, actorId: s.owner.id };
    const ana = await createContact({ ...who, input: { firstName: 'Ana', lastName: 'Phone', email: 'ana@example.test', phone: '+14155550123' } });
    const nophone = await createContact({ ...who, input: { firstName: 'Nell', lastName: 'Nophone', email: 'nell@example.test' } });

    const contactPage = await request(`/customers/${ana.id}`, { domain: s.domain, cookie: s.cookie });
    expect(contactPage.text).toContain(`href="/inbox/message?channel=sms&amp;contact=${ana.id}"`);
    const page = await request(`/inbox/message?channel=sms&contact=${ana.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Texts');
    expect(page.text).not.toContain('data-testid="unreachable"');

    const sent = await request('/inbox/message', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'send', channel: 'sms', contactId: String(ana.id), inboxId: String(inbox.id), message: 'Your parcel left today.' },
    });
    expect(sent.status).toBe(302);
    const [conv] = await s.conversations();
    expect(sent.headers.location).toBe(`/inbox/${conv.id}`);
    expect(conv).toMatchObject({ inboxId: inbox.id, contactId: ana.id, sourceType: 'twilio', assigneeId: s.owner.id });
    const reply = await outgoingOf(conv.id);
    expect(reply).toMatchObject({ text: 'Your parcel left today.', deliveryStatus: 'queued' });
    await deliverMessage({ messageId: reply.id });
    const out = twilio.sent.at(-1)!;
    expect(out.params).toMatchObject({ To: '+14155550123', From: '+15005550006', Body: 'Your parcel left today.' });
    expect((await outgoingOf(conv.id)).deliveryStatus).toBe('sent');
    // Their answer comes back into the same conversation.
    await twilio.incomingSms(`http://${appHost}/webhooks/twilio/${inbox.id}`, { account: twilioAccount, from: '+14155550123', to: '+15005550006', body: 'Thanks!', connectPort: port });
    const thread = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conv.id)).orderBy(schema.messages.id);
    expect(thread.filter((m) => m.kind === 'incoming').map((m) => m.text)).toEqual(['Thanks!']);
    expect(await s.conversations()).toHaveLength(1);

    // By a typed phone number written another way, from the inbox's screen.
    const typed = await request('/inbox/message', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'send', channel: 'sms', contactKey: '+1 (415) 555-0123', inboxId: String(inbox.id), message: 'One more thing' },
    });
    expect(typed.status).toBe(302);
    expect((await s.conversations()).at(-1)!.contactId).toBe(ana.id);
    const unknown = await request('/inbox/message', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'send', channel: 'sms', contactKey: '+44 20 7946 0000', inboxId: String(inbox.id), message: 'Hello?' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain(NO_CONTACT_MESSAGE);
    expect(unknown.text).toContain('Hello?');

    // No phone number: the page says so before, and the post is refused with the same words; nothing is created.
    const before = (await s.conversations()).length;
    const noPage = await request(`/inbox/message?channel=sms&contact=${nophone.id}`, { domain: s.domain, cookie: s.cookie });
    expect(noPage.text).toContain(NO_PHONE_MESSAGE);
    const refused = await request('/inbox/message', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'send', channel: 'sms', contactId: String(nophone.id), inboxId: String(inbox.id), message: 'Hi Nell' },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(NO_PHONE_MESSAGE);
    expect(await s.conversations()).toHaveLength(before);
    // Another account's contact is not found.
    const other = await createTestAccount();
    const stranger = await createContact({ accountId: other.account.id, actorId: other.owner.id, input: { firstName: 'X', lastName: 'Y', phone: '+14155550999' } });
    expect((await request(`/inbox/message?channel=sms&contact=${stranger.id}`, { domain: s.domain, cookie: s.cookie })).status).toBe(404);
  });
});

describe('start a chat with a known contact', () => {
  it('reaches the open widget at once and shows in the widget session next time; without a widget session the form says so, nothing made', async () => {
    const s = await setup();
    const inbox = await createWebInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Website' });
    const [web] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    // Jo signed in on the site: the widget knows her as a contact.
    const session = await request('/public/widget/session', {
      json: { inboxId: inbox.id, user: { id: 'jo-1', hash: userHashFor(web.secret!, 'jo-1'), name: 'Jo Visitor', email: 'jo@example.test' } },
    });
    expect(session.status).toBe(200);
    const { token } = JSON.parse(session.text) as { token: string };
    const [visitor] = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.accountId, s.account.id));
    expect(visitor.contactId).not.toBeNull();
    const got: Record<string, unknown>[] = [];
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(token)}`, { headers: { origin: 'http://customer.example' } });
      socket.on('message', (raw) => got.push(JSON.parse(raw.toString())));
      socket.on('open', () => resolve(socket));
      socket.on('error', reject);
    });
    try {
      const page = await request(`/inbox/message?channel=chat&contact=${visitor.contactId}`, { domain: s.domain, cookie: s.cookie });
      expect(page.text).toContain('Website');
      expect(page.text).not.toContain('data-testid="unreachable"');
      const sent = await request('/inbox/message', {
        domain: s.domain,
        cookie: s.cookie,
        form: { intent: 'send', channel: 'chat', contactId: String(visitor.contactId), inboxId: String(inbox.id), message: 'Hi Jo, your refund is done.' },
      });
      expect(sent.status).toBe(302);
      const [conv] = await s.conversations();
      expect(conv).toMatchObject({ inboxId: inbox.id, contactId: visitor.contactId, sourceType: 'web' });
      const deadline = Date.now() + 5000;
      while (!got.some((m) => m.type === 'message') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(got.filter((m) => m.type === 'message').map((m) => (m.message as { text: string }).text)).toEqual(['Hi Jo, your refund is done.']);
      // The visitor is there: the web channel marks it delivered through the widget.
      const reply = await outgoingOf(conv.id);
      await deliverMessage({ messageId: reply.id });
      expect(await outgoingOf(conv.id)).toMatchObject({ deliveryStatus: 'sent', deliveredVia: 'widget' });
      // The next time the widget opens, the session shows the new chat.
      const again = await request('/public/widget/session', { json: { inboxId: inbox.id, token } });
      const reopened = JSON.parse(again.text) as { conversationId: number; messages: { text: string; from: string }[] };
      expect(reopened.conversationId).toBe(conv.id);
      expect(reopened.messages).toEqual([expect.objectContaining({ from: 'agent', text: 'Hi Jo, your refund is done.' })]);
    } finally {
      ws.close();
    }

    // A contact who never used the chat: told so plainly, and nothing is created.
    const stranger = await createContact({ accountId: s.account.id, actorId: s.owner.id, input: { firstName: 'Sid', lastName: 'Nochat', email: 'sid@example.test' } });
    const page = await request(`/inbox/message?channel=chat&contact=${stranger.id}`, { domain: s.domain, cookie: s.cookie });
    expect(page.text).toContain('data-testid="unreachable"');
    expect(page.text).toContain(NO_CHAT_MESSAGE);
    const before = (await s.conversations()).length;
    const refused = await request('/inbox/message', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'send', channel: 'chat', contactId: String(stranger.id), inboxId: String(inbox.id), message: 'Hi Sid' },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(NO_CHAT_MESSAGE);
    expect(await s.conversations()).toHaveLength(before);
  });
});
