import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getDb, schema } from '../../db/client';
import { createApp } from '../../server/app';
import { startLiveServer } from '../../server/ws';
import { startWidgetSocket } from '../../server/widget-ws';
import { buildWidgetBundle, WIDGET_GZIP_BUDGET } from '../../app/models/channels/widget-bundle.server';
import { createWebInbox, saveMessengerSection } from '../../app/models/channels/messenger-settings.server';
import { MESSENGER_DEFAULTS } from '../../app/models/channels/messenger-settings';
import { publishAgentTyping, signVisitorToken, userHashFor } from '../../app/models/channels/widget.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { editMessage } from '../../app/models/inbox/messages.server';
import { createChatbot, saveChatbotFlow, updateChatbotSettings } from '../../app/models/chatbots/chatbots.server';
import { DEFAULT_CONDITIONS } from '../../app/models/chatbots/constants';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie } from '../helpers/http';

/**
 * The messenger widget's server side through the real Express app: the script and its size, the visitor API
 * (CORS, tokens, tenancy), the visitor socket, identity verification, the offline ticket, the chat page without
 * JavaScript, and the Messenger settings pages' guards.
 */

let server: http.Server;
let port: number;
let closers: (() => Promise<unknown>)[] = [];
const appHost = process.env.APP_HOST ?? 'localhost:3000';

beforeAll(async () => {
  const build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  const app = await createApp({ build, publicDir: path.resolve('public') });
  server = http.createServer(app);
  const live = await startLiveServer(server);
  const widget = await startWidgetSocket(server);
  closers = [() => widget.close(), () => live.close()];
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  for (const close of closers) await close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

type Res = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; text: string; json: () => Record<string, unknown> };

function request(
  pathname: string,
  opts: {
    method?: string;
    host?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    json?: unknown;
    token?: string;
    form?: Record<string, string>;
  } = {},
): Promise<Res> {
  const headers: Record<string, string> = { host: opts.host ?? appHost, ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
  }
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        const text = buf.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A multipart body as a browser's FormData would send it. */
function multipart(fields: Record<string, string>, file?: { name: string; type: string; bytes: Buffer }) {
  const boundary = '----parleytest' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
    );
    parts.push(file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function setup() {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website' });
  return { ...a, inbox };
}

/** An agent of the account with an open socket, as server/ws.ts records it. */
async function agentOnline(accountId: number, userId: number) {
  await getDb()
    .insert(schema.agentPresence)
    .values({ accountId, userId, connections: 1, lastSeenAt: new Date() })
    .onConflictDoUpdate({
      target: schema.agentPresence.userId,
      set: { connections: 1, lastSeenAt: new Date() },
    });
}

async function startSession(inboxId: number, extra: Record<string, unknown> = {}) {
  const res = await request('/public/widget/session', { json: { inboxId, ...extra }, headers: { origin: 'http://customer.example' } });
  expect(res.status).toBe(200);
  return res.json() as {
    token: string;
    online: boolean;
    conversationId: number | null;
    messages: { id: number; from: string; text: string }[];
    config: Record<string, unknown>;
  };
}

async function send(token: string, text: string) {
  const form = multipart({ text });
  return request('/public/widget/messages', { method: 'POST', body: form.body, headers: form.headers, token });
}

describe('widget script', () => {
  it('is built without a framework and stays under 20 KB compressed', async () => {
    const bundle = await buildWidgetBundle();
    const gzipped = zlib.gzipSync(bundle.code, { level: 9 }).length;
    console.info(`widget.js: ${bundle.code.length} bytes, ${gzipped} bytes gzip (budget ${WIDGET_GZIP_BUDGET})`);
    expect(gzipped).toBeLessThan(WIDGET_GZIP_BUDGET);
    expect(bundle.code).not.toMatch(/react|__REACT|preact/i);
    expect(bundle.code).toContain('attachShadow');
  });

  it('is served gzip-compressed at /public/widget.js for any site', async () => {
    const res = await request('/public/widget.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('javascript');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body.length).toBeLessThan(WIDGET_GZIP_BUDGET);
    expect(zlib.gunzipSync(res.body).toString()).toContain('/public/widget/');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('widget API', () => {
  it('answers CORS preflights for any origin', async () => {
    const res = await request('/public/widget/messages', {
      method: 'OPTIONS',
      headers: { origin: 'http://customer.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers'])).toContain('authorization');
  });

  it('starts a visitor, opens a web conversation with the first message and shows the agent reply but never notes', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    expect(s.token).toMatch(/\./);
    expect(s.conversationId).toBeNull();
    expect(s.config).toMatchObject({ teamName: 'Support', color: '#2563eb' });
    expect(JSON.stringify(s.config)).not.toContain(a.inbox.secret!);

    const first = await send(s.token, 'Hello, is anyone there?');
    expect(first.status).toBe(200);
    const { conversationId, messages } = first.json() as { conversationId: number; messages: { text: string; from: string }[] };
    expect(messages.map((m) => m.text)).toEqual(['Hello, is anyone there?']);
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId));
    expect(conv).toMatchObject({ accountId: a.account.id, inboxId: a.inbox.id, sourceType: 'web' });

    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'outgoing', text: 'Hi! How can I help?' });
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'note', text: 'internal: VIP' });
    const second = await send(s.token, 'My order is late');
    expect(second.status).toBe(200);

    // A page change: the stored token resumes the same visitor and conversation.
    const again = await startSession(a.inbox.id, { token: s.token });
    expect(again.token).toBe(s.token);
    expect(again.conversationId).toBe(conversationId);
    expect(again.messages.map((m) => `${m.from}:${m.text}`)).toEqual([
      'visitor:Hello, is anyone there?',
      'agent:Hi! How can I help?',
      'visitor:My order is late',
    ]);

    const poll = await request(`/public/widget/messages?after=${again.messages[0].id}`, { token: s.token });
    expect((poll.json().messages as { text: string }[]).map((m) => m.text)).toEqual(['Hi! How can I help?', 'My order is late']);
  });

  it('keeps a message sent again with the same key once, the first of a chat and a later one (ADR 143)', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const sendKeyed = (text: string, clientId: string) => {
      const form = multipart({ text, clientId });
      return request('/public/widget/messages', { method: 'POST', body: form.body, headers: form.headers, token: s.token });
    };
    // Its answer lost (the node died after the commit): the widget sends it again with the same key, at once twice.
    const [first, retried] = await Promise.all([sendKeyed('Where is my parcel?', 'key-00000001'), sendKeyed('Where is my parcel?', 'key-00000001')]);
    expect([first.status, retried.status]).toEqual([200, 200]);
    const conversationId = first.json().conversationId as number;
    expect(retried.json().conversationId).toBe(conversationId);
    expect((await sendKeyed('It was due Monday', 'key-00000002')).status).toBe(200);
    expect((await sendKeyed('It was due Monday', 'key-00000002')).status).toBe(200);
    // Another message with the same words and no key (or another key) is a message of its own.
    expect((await sendKeyed('It was due Monday', 'key-00000003')).status).toBe(200);
    const kept = await getDb().select({ text: schema.messages.text }).from(schema.messages).where(eq(schema.messages.conversationId, conversationId)).orderBy(schema.messages.id);
    expect(kept.map((m) => m.text)).toEqual(['Where is my parcel?', 'It was due Monday', 'It was due Monday']);
    const conversations = await getDb().select({ id: schema.conversations.id }).from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id));
    expect(conversations).toHaveLength(1);
    const bad = await sendKeyed('Hello', 'not a key!');
    expect(bad.status).toBe(400);
    expect(bad.json().error).toBe('The request is not valid');
  });

  it('refuses empty messages, unknown tokens and forged tokens', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const empty = await send(s.token, '   ');
    expect(empty.status).toBe(400);
    expect(empty.json().error).toBe('Message is not allowed to be empty');
    expect((await send('nonsense', 'hi')).status).toBe(401);
    const [body] = s.token.split('.');
    expect((await send(`${body}.AAAA`, 'hi')).status).toBe(401);
    expect((await request('/public/widget/session', { json: { inboxId: 999999999 } })).status).toBe(404);
    expect((await request('/public/widget/session', { body: '{not json', headers: { 'content-type': 'application/json' } })).status).toBe(400);
  });

  it("keeps one account's visitors out of another account's conversations", async () => {
    const a = await setup();
    const b = await setup();
    const sa = await startSession(a.inbox.id);
    const sb = await startSession(b.inbox.id);
    const fromB = (await send(sb.token, 'B secret order 42')).json() as { conversationId: number };
    await send(sa.token, 'hello from A');

    // A's token presented with B's inbox starts a fresh visitor of B: nothing of A's visitor travels.
    const crossed = await startSession(b.inbox.id, { token: sa.token });
    expect(crossed.token).not.toBe(sa.token);
    expect(crossed.messages).toEqual([]);
    // A token naming B's account with A's visitor id cannot be made without the server's key...
    const claims = Buffer.from(sa.token.split('.')[0], 'base64url').toString().split('.');
    const forgedBody = Buffer.from(`${b.account.id}.${b.inbox.id}.${claims[2]}`).toString('base64url');
    expect((await request('/public/widget/messages', { token: `${forgedBody}.${sa.token.split('.')[1]}` })).status).toBe(401);
    // ...and even a correctly signed token for a visitor id of another account finds no visitor.
    const signedCross = signVisitorToken({ accountId: b.account.id, inboxId: b.inbox.id, visitorId: claims[2] });
    expect((await request('/public/widget/messages', { token: signedCross })).status).toBe(401);
    expect((await send(signedCross, 'write into B')).status).toBe(401);
    // A's visitor reads only A's thread; B's conversation gained nothing.
    const readA = await request('/public/widget/messages', { token: sa.token });
    expect(readA.text).not.toContain('B secret');
    const bMessages = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, fromB.conversationId));
    expect(bMessages.map((m) => m.text)).toEqual(['B secret order 42']);
    // Two visitors of the same inbox do not see each other either.
    const other = await startSession(a.inbox.id);
    expect((await request('/public/widget/messages', { token: other.token })).json().messages).toEqual([]);
  });

  it('rate-limits message posting per visitor', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await send(s.token, `message ${i}`)).status);
    expect(statuses.slice(0, 20).every((st) => st === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('accepts an attachment within the limits and refuses other files', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const ok = multipart({ text: '' }, { name: 'order.txt', type: 'text/plain', bytes: Buffer.from('Order 1234, two items') });
    const res = await request('/public/widget/messages', { method: 'POST', body: ok.body, headers: ok.headers, token: s.token });
    expect(res.text).toContain('order.txt');
    expect(res.status).toBe(200);
    const [file] = (res.json().messages as { attachments: { name: string; url: string }[] }[])[0].attachments;
    expect(file.name).toBe('order.txt');
    // The thread hands out a signed, expiring link: it downloads without a session; a changed one is a 404.
    const download = await request(file.url);
    expect(download.status).toBe(200);
    expect(download.text).toBe('Order 1234, two items');
    expect(download.headers['content-disposition']).toContain('attachment;');
    expect((await request(file.url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).status).toBe(404);
    expect((await request('/public/widget/file/not-a-link')).status).toBe(404);
    const exe = multipart({ text: 'x' }, { name: 'tool.exe', type: 'application/octet-stream', bytes: Buffer.from('MZ\x90\x00binary') });
    const bad = await request('/public/widget/messages', { method: 'POST', body: exe.body, headers: exe.headers, token: s.token });
    expect(bad.status).toBe(400);
  });

  it('holds allowed sites on every request: the session, messages and the socket', async () => {
    const a = await setup();
    const settings = { ...(a.inbox.settings ?? {}), advanced: { requireIdentity: false, allowedDomains: 'customer.example', attachments: true } };
    await getDb().update(schema.inboxes).set({ settings }).where(eq(schema.inboxes.id, a.inbox.id));
    const visitorsBefore = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.inboxId, a.inbox.id));
    const refused = await request('/public/widget/session', { json: { inboxId: a.inbox.id }, headers: { origin: 'http://elsewhere.example' } });
    expect(refused.status).toBe(403);
    // Refused before anything is made.
    expect(await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.inboxId, a.inbox.id))).toHaveLength(visitorsBefore.length);
    const s = await startSession(a.inbox.id);
    const form = multipart({ text: 'hello' });
    const fromHome = await request('/public/widget/messages', {
      method: 'POST',
      body: form.body,
      headers: { ...form.headers, origin: 'http://customer.example' },
      token: s.token,
    });
    expect(fromHome.status).toBe(200);
    // The same token carried to another site stops working there.
    const carried = await request('/public/widget/messages', {
      method: 'POST',
      body: form.body,
      headers: { ...form.headers, origin: 'http://elsewhere.example' },
      token: s.token,
    });
    expect(carried.status).toBe(403);
    const socketStatus = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(s.token)}`, { headers: { origin: 'http://elsewhere.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('error', () => undefined);
    });
    expect(socketStatus).toBe(403);
  });

  it('records page views for the live view', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const res = await request('/public/widget/pageview', {
      json: { url: 'https://shop.example/pricing', title: 'Pricing', referrer: 'https://google.com/' },
      token: s.token,
    });
    expect(res.status).toBe(200);
    const rows = await getDb().select().from(schema.pageViews).where(eq(schema.pageViews.accountId, a.account.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ url: 'https://shop.example/pricing', referrer: 'https://google.com/' });
    expect((await request('/public/widget/pageview', { json: { url: 'javascript:alert(1)' }, token: s.token })).status).toBe(400);
  });
});

describe('identity verification', () => {
  it('matches a signed site user to a contact and ignores a bad hash', async () => {
    const a = await setup();
    const hash = userHashFor(a.inbox.secret!, 'user-77');
    const s = await startSession(a.inbox.id, { user: { id: 'user-77', hash, name: 'Grace Hopper', email: 'grace@navy.example' } });
    const [visitor] = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.accountId, a.account.id));
    expect(visitor.externalUserId).toBe('user-77');
    const [identity] = await getDb()
      .select()
      .from(schema.contactIdentities)
      .where(and(eq(schema.contactIdentities.accountId, a.account.id), eq(schema.contactIdentities.channel, 'site_user')));
    expect(identity).toMatchObject({ externalId: 'user-77', contactId: visitor.contactId });
    const first = (await send(s.token, 'logged-in question')).json() as { conversationId: number };
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, first.conversationId));
    expect(conv.contactId).toBe(visitor.contactId);

    // The same user on another browser continues the same conversation.
    const elsewhere = await startSession(a.inbox.id, { user: { id: 'user-77', hash } });
    expect(elsewhere.conversationId).toBe(first.conversationId);

    // A wrong hash claims nothing.
    const forged = await startSession(a.inbox.id, { user: { id: 'user-77', hash: 'deadbeef' } });
    expect(forged.conversationId).toBeNull();
    expect(forged.messages).toEqual([]);
  });

  it('refuses a bad hash when the inbox requires verification', async () => {
    const a = await setup();
    await saveMessengerSection({
      accountId: a.account.id,
      actorId: a.owner.id,
      inboxId: a.inbox.id,
      section: 'advanced',
      value: { ...MESSENGER_DEFAULTS.advanced, requireIdentity: true },
    });
    const res = await request('/public/widget/session', { json: { inboxId: a.inbox.id, user: { id: 'u1', hash: 'bad' } } });
    expect(res.status).toBe(400);
    expect(res.json().error).toBe('Identity verification failed');
  });
});

describe('offline experience', () => {
  it('is offline without agents online and opens a support_widget ticket from the form', async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    expect(s.online).toBe(false);
    const bad = multipart({ name: 'Ada', email: 'not-an-email', subject: 'Refund', message: 'Please call me' });
    const refused = await request('/public/widget/ticket', { method: 'POST', body: bad.body, headers: bad.headers, token: s.token });
    expect(refused.status).toBe(400);
    expect(refused.json().fieldErrors).toMatchObject({ email: ['Enter a valid email address'] });
    const good = multipart({ name: 'Ada Lovelace', email: 'ada@example.test', subject: 'Refund', message: 'Please call me' });
    const res = await request('/public/widget/ticket', { method: 'POST', body: good.body, headers: good.headers, token: s.token });
    expect(res.status).toBe(200);
    const [conv] = await getDb()
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, a.account.id), eq(schema.conversations.sourceType, 'support_widget')));
    expect(conv).toMatchObject({ subject: 'Refund', inboxId: a.inbox.id });
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conv.contactId!));
    expect(contact.email).toBe('ada@example.test');
  });

  it('is online when an agent is connected', async () => {
    const a = await setup();
    await agentOnline(a.account.id, a.owner.id);
    expect((await startSession(a.inbox.id)).online).toBe(true);
  });
});

describe('visitor socket', () => {
  it("gets a chatbot's replies straight from its turn, each once, as the thread shows them (ADR 124)", async () => {
    const a = await setup();
    const bot = await createChatbot({ accountId: a.account.id, actorId: a.owner.id, name: 'Greeter' });
    await saveChatbotFlow({
      accountId: a.account.id,
      id: bot.id,
      steps: [
        { id: 's1', type: 'message', text: 'Hello from the bot', next: 's2' },
        { id: 's2', type: 'question', text: 'Sales or support?', choices: [{ label: 'Sales', next: 's3' }, { label: 'Support', next: 's3' }], next: null },
        { id: 's3', type: 'handover', text: 'Connecting you', teamId: null, userId: null },
      ],
    });
    await updateChatbotSettings({ accountId: a.account.id, id: bot.id, name: 'Greeter', enabled: true, inboxIds: [a.inbox.id], priority: 1, conditions: DEFAULT_CONDITIONS });
    const s = await startSession(a.inbox.id);
    const got: { type: string; message: { id: number; text: string; from: string } }[] = [];
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(s.token)}`, { headers: { origin: 'http://customer.example' } });
      socket.on('message', (raw) => got.push(JSON.parse(raw.toString())));
      socket.on('open', () => resolve(socket));
      socket.on('error', reject);
    });
    const first = (await send(s.token, 'Hi there')).json() as { conversationId: number; messages: { id: number; from: string }[] };
    const answer = (await send(s.token, 'Sales')).json() as { messages: { id: number; from: string }[] };
    const bots = [...first.messages, ...answer.messages].filter((m) => m.from === 'agent');
    expect(bots.map((m) => (m as unknown as { text: string }).text)).toEqual(['Hello from the bot', 'Sales or support?', 'Connecting you']);
    // Pushed when the turn committed, and the NOTIFY that follows adds nothing.
    const pushed = () => got.filter((m) => m.type === 'message' && m.message.from === 'agent').map((m) => m.message);
    const deadline = Date.now() + 5000;
    while (pushed().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(pushed().map((m) => m.id)).toEqual(bots.map((m) => m.id));
    // What was pushed is what the thread shows (the question's buttons while it waited included).
    expect(pushed()[1]).toEqual({ ...first.messages.find((m) => m.id === bots[1].id), buttons: ['Sales', 'Support'] });
    expect(pushed()[2]).toEqual(answer.messages.find((m) => m.id === bots[2].id));
    // The visitor's own messages still come by the NOTIFY, once each; nothing arrives twice.
    const until = Date.now() + 5000;
    while (got.length < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    expect(pushed().map((m) => m.id)).toEqual(bots.map((m) => m.id));
    expect(got.filter((m) => m.type === 'message').map((m) => m.message.id)).toHaveLength(5);
    ws.close();
  });

  it("delivers the agent's reply and typing live, only to the conversation's visitor", async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const { conversationId } = (await send(s.token, 'live?')).json() as { conversationId: number };
    const bystander = await startSession(a.inbox.id);
    await send(bystander.token, 'other chat');

    const open = (token: string) =>
      new Promise<{ ws: WebSocket; got: Record<string, unknown>[] }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(token)}`, { headers: { origin: 'http://customer.example' } });
        const got: Record<string, unknown>[] = [];
        ws.on('message', (raw) => got.push(JSON.parse(raw.toString())));
        ws.on('open', () => resolve({ ws, got }));
        ws.on('error', reject);
      });
    const mine = await open(s.token);
    const theirs = await open(bystander.token);

    await publishAgentTyping({ accountId: a.account.id, conversationId, name: 'Olive Owner', typing: true });
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'note', text: 'secret note' });
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'outgoing', text: 'Live answer' });
    const deadline = Date.now() + 5000;
    while (!mine.got.some((m) => m.type === 'message') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(mine.got).toContainEqual({ type: 'typing', typing: true, name: 'Olive' });
    const delivered = mine.got.filter((m) => m.type === 'message').map((m) => (m.message as { text: string }).text);
    expect(delivered).toEqual(['Live answer']);
    expect(theirs.got).toEqual([]);

    // An open socket makes the visitor present (ADR 033); the agent's edit reaches the widget, marked edited.
    const [row] = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.conversationId, conversationId));
    expect(row.presentUntil!.getTime()).toBeGreaterThan(Date.now());
    const [reply] = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.conversationId, conversationId), eq(schema.messages.kind, 'outgoing')));
    await editMessage({ accountId: a.account.id, actorId: a.owner.id, id: reply.id, text: 'Live answer, corrected' });
    const until = Date.now() + 5000;
    const edited = () => mine.got.find((m) => m.type === 'message' && (m.message as { text: string }).text === 'Live answer, corrected');
    while (!edited() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(edited()?.message).toMatchObject({ id: reply.id, edited: true });
    expect(theirs.got).toEqual([]);
    mine.ws.close();
    theirs.ws.close();
    // The last socket closed: the visitor is gone.
    const gone = Date.now() + 5000;
    const present = async () => (await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.id, row.id)))[0].presentUntil!.getTime() > Date.now();
    while ((await present()) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(await present()).toBe(false);
  });

  it("passes the visitor's typing to the agents viewing the conversation", async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const { conversationId } = (await send(s.token, 'typing test')).json() as { conversationId: number };
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const agentGot: Record<string, unknown>[] = [];
    const agent = await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { host: `${a.domain}.${appHost}`, cookie } });
      ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString());
        agentGot.push(m);
        if (m.type === 'hello') resolve(ws);
      });
      ws.on('error', reject);
    });
    // Typing is for the conversation's viewers only (ADR 045).
    agent.send(JSON.stringify({ type: 'viewing', conversationId }));
    const visitor = await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=${encodeURIComponent(s.token)}`);
      ws.on('open', () => resolve(ws));
      ws.on('error', reject);
    });
    visitor.send(JSON.stringify({ type: 'typing', typing: true }));
    const deadline = Date.now() + 5000;
    while (!agentGot.some((m) => m.type === 'widget.typing') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(agentGot).toContainEqual({ type: 'widget.typing', conversationId, who: 'visitor', typing: true });
    // The HTTP fallback says the same.
    expect((await request('/public/widget/typing', { json: { typing: false }, token: s.token })).status).toBe(200);
    agent.close();
    visitor.close();
  });

  it('refuses a socket without a valid token', async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/widget/ws?token=forged.token`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
    expect(status).toBe(401);
  });

  it("leaves the agents' socket at /ws working", async () => {
    const a = await setup();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { host: `${a.domain}.${appHost}`, cookie } });
      ws.on('message', (raw) => {
        resolve(JSON.parse(raw.toString()));
        ws.close();
      });
      ws.on('error', reject);
    });
    expect(hello.type).toBe('hello');
  });
});

describe('chat page (no JavaScript)', () => {
  it('takes a first message with name and email, then shows the thread after a reload', async () => {
    const a = await setup();
    await saveMessengerSection({
      accountId: a.account.id,
      actorId: a.owner.id,
      inboxId: a.inbox.id,
      section: 'chatPage',
      value: { enabled: true, heading: 'Talk to Acme', subHeading: '' },
    });
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, a.inbox.id));
    const code = (inbox.settings as { chatPage: { code: string } }).chatPage.code;
    const host = `${a.domain}.${appHost}`;
    const page = await request(`/public/chat/${code}`, { host });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Talk to Acme');

    const bad = await request(`/public/chat/${code}`, { host, form: { name: 'Ada', email: '', message: 'Hi' }, headers: { origin: `http://${host}` } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid email address');
    expect(bad.text).toContain('value="Ada"');

    const sent = await request(`/public/chat/${code}`, {
      host,
      form: { name: 'Ada', email: 'ada@example.test', message: 'Hello from a plain page' },
      headers: { origin: `http://${host}` },
    });
    expect(sent.status).toBe(302);
    const cookie = String(sent.headers['set-cookie']).split(';')[0];
    expect(String(sent.headers['set-cookie'])).toContain('HttpOnly');
    const thread = await request(`/public/chat/${code}`, { host, headers: { cookie } });
    expect(thread.text).toContain('Hello from a plain page');

    // Another site cannot post as this visitor (Remix itself aborts a cross-origin document post).
    const foreign = await request(`/public/chat/${code}`, { host, form: { message: 'spoof' }, headers: { cookie, origin: 'http://evil.example' } });
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    const again = await request(`/public/chat/${code}`, { host, headers: { cookie } });
    expect(again.text).not.toContain('spoof');
    // Another account's host does not serve this page.
    const b = await createTestAccount();
    expect((await request(`/public/chat/${code}`, { host: `${b.domain}.${appHost}` })).status).toBe(404);
  });

  it('is not served while switched off', async () => {
    const a = await setup();
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, a.inbox.id));
    const code = (inbox.settings as { chatPage: { code: string } }).chatPage.code;
    expect((await request(`/public/chat/${code}`, { host: `${a.domain}.${appHost}` })).status).toBe(404);
  });
});

describe('Messenger settings pages', () => {
  async function withUsers() {
    const a = await setup();
    const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
    const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id });
    return {
      ...a,
      host: `${a.domain}.${appHost}`,
      ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
      viewerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
    };
  }
  const post = (a: { host: string }, cookie: string, pathname: string, form: Record<string, string>) =>
    request(pathname, { host: a.host, form, headers: { cookie, origin: `http://${a.host}` } });

  it('saves the appearance with an event, refuses bad input and users without the permission', async () => {
    const a = await withUsers();
    const form = { intent: 'save', inboxId: String(a.inbox.id), brandColor: 'teal', position: 'left', font: 'Georgia', fontSize: '20', greeting: 'Welcome!' };
    const ok = await post(a, a.ownerCookie, '/settings/appearance', form);
    expect(ok.status).toBe(302);
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, a.inbox.id));
    expect((inbox.settings as { appearance: unknown }).appearance).toEqual({
      brandColor: 'teal',
      position: 'left',
      font: 'Georgia',
      fontSize: '20',
      greeting: 'Welcome!',
    });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'inbox_updated'))).orderBy(schema.domainEvents.id);
    expect(events.length).toBeGreaterThan(0);
    const s = await startSession(a.inbox.id);
    expect(s.config).toMatchObject({ color: '#0d9488', position: 'left', font: 'Georgia', fontSize: 20, greeting: 'Welcome!' });

    const bad = await post(a, a.ownerCookie, '/settings/appearance', { ...form, brandColor: 'pink', greeting: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Greeting is not allowed to be empty');
    expect((await post(a, a.viewerCookie, '/settings/appearance', form)).status).toBe(403);
    const page = await request('/settings/appearance', { host: a.host, headers: { cookie: a.viewerCookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('locked-note');
  });

  it('creates a messenger inbox and shows its snippet', async () => {
    const a = await withUsers();
    const res = await post(a, a.ownerCookie, '/settings/chat-messenger', { intent: 'create', name: 'Store chat' });
    expect(res.status).toBe(302);
    const page = await request('/settings/chat-messenger', { host: a.host, headers: { cookie: a.ownerCookie } });
    const [created] = await getDb()
      .select()
      .from(schema.inboxes)
      .where(and(eq(schema.inboxes.accountId, a.account.id), eq(schema.inboxes.name, 'Store chat')));
    expect(created.channelType).toBe('web');
    expect(page.text).toContain(`data-inbox=&quot;${created.id}&quot;`);
    expect((await post(a, a.ownerCookie, '/settings/chat-messenger', { intent: 'create', name: 'x' })).status).toBe(400);
    expect((await post(a, a.viewerCookie, '/settings/chat-messenger', { intent: 'create', name: 'Nope' })).status).toBe(403);
  });

  it('saves the offline form flags with business hours of the account only, and needs the plan feature', async () => {
    const a = await withUsers();
    const form = {
      intent: 'save',
      inboxId: String(a.inbox.id),
      offlineMessage: 'Away',
      isEmail: 'on',
      isCaptcha: 'on',
      submitButton: 'Send',
      submitMessage: 'Thanks',
      ticketHeading: 'Write to us',
    };
    expect((await post(a, a.ownerCookie, '/settings/offline-experience', form)).status).toBe(302);
    const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, a.inbox.id));
    expect((inbox.settings as { offline: Record<string, unknown> }).offline).toMatchObject({
      isEmail: true,
      isCaptcha: true,
      isName: false,
      ticketHeading: 'Write to us',
    });
    const s = await startSession(a.inbox.id);
    expect(s.config.offline).toMatchObject({ heading: 'Write to us', fields: { email: true, name: false, captcha: true } });
    expect((s as unknown as { captcha: { question: string } }).captcha.question).toMatch(/What is/);

    // Business hours of another account: a 400 with the field's message, nothing saved.
    const other = await createTestAccount();
    const [foreign] = await getDb()
      .insert(schema.businessHours)
      .values({ accountId: other.account.id, name: 'Theirs', timezone: 'UTC', timings: [{ day: 1, startTime: '09:00', endTime: '17:00' }] })
      .returning();
    const refused = await post(a, a.ownerCookie, '/settings/offline-experience', { ...form, businessHoursId: String(foreign.id) });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose business hours of this account');
    const [unchanged] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, a.inbox.id));
    expect(unchanged.businessHoursId).toBeNull();

    const [starter] = await getDb().select().from(schema.plans).where(eq(schema.plans.key, 'starter'));
    await getDb().update(schema.accounts).set({ planId: starter.id }).where(eq(schema.accounts.id, a.account.id));
    expect((await post(a, a.ownerCookie, '/settings/offline-experience', form)).status).toBe(403);
    expect((await request('/settings/chat-pages', { host: a.host, headers: { cookie: a.ownerCookie } })).status).toBe(403);
  });
});

describe('help-centre search in the widget (issue 13)', () => {
  it("searches the chosen knowledge base's published articles only, and is refused without a chosen, public help centre", async () => {
    const s = await setup();
    const who = { accountId: s.account.id, actorId: s.owner.id };
    const kb = await createKnowledgeBase({ ...who, name: 'Help' });
    await createArticle({ ...who, knowledgeBaseId: kb.id, title: 'Resetting your password', body: '<p>Choose Forgot password on the sign-in page.</p>', publish: true });
    await createArticle({ ...who, knowledgeBaseId: kb.id, title: 'Password policy draft', body: '<p>internal password notes</p>' });
    // Another account's knowledge base with a matching article: never offered, never searchable.
    const other = await createTestAccount();
    const otherKb = await createKnowledgeBase({ accountId: other.account.id, actorId: other.owner.id, name: 'Theirs' });
    await createArticle({ accountId: other.account.id, actorId: other.owner.id, knowledgeBaseId: otherKb.id, title: 'Their password article', body: '<p>password</p>', publish: true });

    // No help centre chosen: no search.
    let session = await startSession(s.inbox.id);
    expect(session.config.help).toBe(false);
    expect((await request('/public/widget/help?q=password', { token: session.token })).status).toBe(404);

    await expect(
      saveMessengerSection({ ...who, inboxId: s.inbox.id, section: 'configure', value: { ...MESSENGER_DEFAULTS.configure, helpCentreId: otherKb.id } }),
    ).rejects.toThrow('Choose a knowledge base of this account');
    await saveMessengerSection({ ...who, inboxId: s.inbox.id, section: 'configure', value: { ...MESSENGER_DEFAULTS.configure, helpCentreId: kb.id } });

    session = await startSession(s.inbox.id);
    expect(session.config.help).toBe(true);
    const res = await request('/public/widget/help?q=pasword', { token: session.token, headers: { origin: 'http://customer.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const { results } = res.json() as { results: { title: string; text: string; url: string }[] };
    expect(results.map((r) => r.title)).toEqual(['Resetting your password']);
    expect(results[0].text).toContain('Forgot password');
    expect(results[0].url).toMatch(new RegExp(`^http://${s.domain}\\.${appHost.replace('.', '\\.')}/hc/${kb.slug}/articles/\\d+-resetting-your-password\\?s=\\d+$`));
    // Recorded like a help-centre search.
    const searches = () => getDb().select().from(schema.kbSearches).where(eq(schema.kbSearches.knowledgeBaseId, kb.id)).orderBy(schema.kbSearches.id);
    expect((await searches()).map((x) => [x.query, x.resultCount])).toEqual([['pasword', 1]]);
    // Typing on: the same search takes the longer query (one search per typed question, not one per pause).
    const { searchId } = res.json() as { searchId: number };
    const more = await request(`/public/widget/help?q=${encodeURIComponent('pasword sign')}&replaces=${searchId}`, { token: session.token });
    expect((more.json() as { searchId: number }).searchId).toBe(searchId);
    expect((await searches()).map((x) => [x.query, x.resultCount])).toEqual([['pasword sign', 1]]);
    // Another help centre's search id is not taken over: a new search is recorded.
    const [theirs] = await getDb().insert(schema.kbSearches).values({ accountId: other.account.id, knowledgeBaseId: otherKb.id, query: 'theirs', resultCount: 0 }).returning();
    await request(`/public/widget/help?q=reset&replaces=${theirs.id}`, { token: session.token });
    expect((await searches()).map((x) => x.query)).toEqual(['pasword sign', 'reset']);
    const [stillTheirs] = await getDb().select().from(schema.kbSearches).where(eq(schema.kbSearches.id, theirs.id));
    expect(stillTheirs.query).toBe('theirs');
    expect((await request('/public/widget/help?q=x&replaces=-1', { token: session.token })).status).toBe(400);
    expect((await request('/public/widget/help?q=x&replaces=99999999999', { token: session.token })).status).toBe(400);

    expect((await request('/public/widget/help?q=password')).status).toBe(401);
    expect((await request(`/public/widget/help?q=${'x'.repeat(201)}`, { token: session.token })).status).toBe(400);

    // The help centre switched off (docsVisible): the widget no longer offers or answers the search.
    await getDb().update(schema.knowledgeBases).set({ docsVisible: false }).where(eq(schema.knowledgeBases.id, kb.id));
    expect((await startSession(s.inbox.id)).config.help).toBe(false);
    expect((await request('/public/widget/help?q=password', { token: session.token })).status).toBe(404);
  });
});

describe('web push subscriptions through the widget (ADR 083)', () => {
  it("gives the account's VAPID key, stores a subscription with the browser's facts, refuses bad keys, and serves the service worker", async () => {
    const a = await setup();
    const s = await startSession(a.inbox.id);
    const key = await request('/public/widget/push', { token: s.token });
    expect(key.status).toBe(200);
    expect(Buffer.from(String(key.json().publicKey), 'base64url')).toHaveLength(65);
    expect((await request('/public/widget/push')).status).toBe(401);

    const ecdh = crypto.createECDH('prime256v1');
    const p256dh = ecdh.generateKeys().toString('base64url');
    const sub = { endpoint: 'https://push.example/send/abc', keys: { p256dh, auth: crypto.randomBytes(16).toString('base64url') } };
    const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
    const ok = await request('/public/widget/push', { token: s.token, headers: { 'user-agent': ua }, json: { ...sub, url: 'https://shop.example/pricing', referrer: 'https://www.google.com/', timezone: 'Europe/Berlin' } });
    expect(ok.status).toBe(201);
    const [row] = await getDb().select().from(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.accountId, a.account.id));
    expect(row).toMatchObject({ endpoint: sub.endpoint, browser: 'Firefox', os: 'Linux', platform: 'desktop', referrerType: 'searchEngine', pageUrl: 'https://shop.example/pricing', timezone: 'Europe/Berlin', inboxId: a.inbox.id });
    const bad = await request('/public/widget/push', { token: s.token, json: { ...sub, keys: { ...sub.keys, auth: 'short' } } });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/auth/);

    const sw = await request('/public/push-sw.js');
    expect(sw.status).toBe(200);
    expect(sw.headers['content-type']).toContain('javascript');
    expect(sw.text).toContain('showNotification');
    expect(sw.text).toContain(`importScripts('http://${appHost}/public/push-sw.js')`);
  });
});
