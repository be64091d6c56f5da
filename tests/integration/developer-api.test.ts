import http from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { startEngine } from '../../engine/index';
import { createApiKey, revokeApiKey } from '../../app/models/api/keys.server';
import { API_SCOPES } from '../../app/models/api/scopes';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { attemptWebhookDelivery, createWebhook, hasWebhookFor, listDeliveries, redeliverWebhook, rotateWebhookSecret } from '../../app/models/webhooks/webhooks.server';
import { FieldInputError } from '../../app/models/productivity/shared.server';
import { createTestAccount, createTestUser, givePlan } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { withPrivateDestinationsOff } from '../helpers/outbound';

let app: Awaited<ReturnType<typeof startTestApp>>;
let engine: Awaited<ReturnType<typeof startEngine>>;
beforeAll(async () => {
  app = await startTestApp();
  engine = await startEngine({ mode: 'inline', concurrency: 2 });
});
afterAll(async () => {
  await engine?.stop();
  await app?.close();
});

async function api(token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${app.port}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

async function waitFor<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function accountWithKey(scopes = API_SCOPES) {
  const s = await createTestAccount();
  const inbox = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Support', channelType: 'email' } as never);
  const { token, key } = await createApiKey({ accountId: s.account.id, actorId: s.owner.id, name: 'Test key', scopes });
  return { ...s, inbox, token, key };
}

/** Every documented operation's real answers are validated against the document; this set proves each was. */
const validated = new Set<string>();
let ajv: Ajv2020;
let doc: { paths: Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> }>> };

function check(method: string, path: string, res: { status: number; json: unknown }) {
  const op = doc.paths[path]?.[method];
  expect(op, `${method} ${path} is documented`).toBeDefined();
  const answer = op.responses[String(res.status)];
  expect(answer, `${method} ${path} documents status ${res.status}`).toBeDefined();
  const schemaOf = answer.content?.['application/json']?.schema as { $ref?: string } | undefined;
  if (schemaOf) {
    const validate = ajv.compile({ $ref: `openapi.json${schemaOf.$ref}` });
    const ok = validate(res.json);
    expect(ok, `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  } else expect(res.json).toBeNull();
  if (res.status < 300) validated.add(`${method} ${path}`);
}

describe('developer API', () => {
  it('serves an OpenAPI 3.1 document and a reference page without script', async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = await res.json();
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: (doc as unknown as { components: unknown }).components });
    const page = await fetch(`http://127.0.0.1:${app.port}/api/v1/reference`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('/api/v1/conversations/{id}/messages');
    expect(html).not.toContain('<script');
  });

  it('creates a conversation with a key and reads it back; every documented route answers as documented', async () => {
    const a = await accountWithKey();
    // Conversations and messages
    const created = await api(a.token, 'POST', '/conversations', { inboxId: a.inbox.id, subject: 'Order 1042 late', contact: { email: 'cora@example.test', name: 'Cora' }, message: 'Where is it?' }, { 'Idempotency-Key': 'conv-1' });
    expect(created.status).toBe(201);
    check('post', '/conversations', created);
    expect(created.headers.get('ratelimit-limit')).toBe('600');
    expect(Number(created.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
    expect(created.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    const id = created.json.id;
    // The same Idempotency-Key answers the first result and creates nothing more.
    const again = await api(a.token, 'POST', '/conversations', { inboxId: a.inbox.id, subject: 'Order 1042 late', contact: { email: 'cora@example.test', name: 'Cora' }, message: 'Where is it?' }, { 'Idempotency-Key': 'conv-1' });
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const reused = await api(a.token, 'POST', '/conversations', { inboxId: a.inbox.id, subject: 'Other', contact: { email: 'cora@example.test' }, message: 'x' }, { 'Idempotency-Key': 'conv-1' });
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe('idempotency_key_reused');
    const convs = await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id));
    expect(convs).toHaveLength(1);
    // The domain event came through the same domain function as the UI's.
    const [event] = await getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'conversation_created')));
    expect(event.subjectId).toBe(String(id));

    const read = await api(a.token, 'GET', `/conversations/${id}`);
    expect(read.json).toMatchObject({ id, subject: 'Order 1042 late', status: 'open', inboxId: a.inbox.id });
    check('get', '/conversations/{id}', read);
    check('get', '/conversations', await api(a.token, 'GET', '/conversations?limit=1'));
    const note = await api(a.token, 'POST', `/conversations/${id}/messages`, { kind: 'note', text: 'Checked the carrier' });
    expect(note.status).toBe(201);
    check('post', '/conversations/{id}/messages', note);
    const thread = await api(a.token, 'GET', `/conversations/${id}/messages?limit=1`);
    check('get', '/conversations/{id}/messages', thread);
    expect(thread.json.data[0]).toMatchObject({ kind: 'note', text: 'Checked the carrier' });
    const older = await api(a.token, 'GET', `/conversations/${id}/messages?limit=1&cursor=${thread.json.nextCursor}`);
    expect(older.json.data[0]).toMatchObject({ kind: 'incoming', text: 'Where is it?' });
    expect(older.json.nextCursor).toBeNull();
    // Status, priority and assignment: after the thread checks (they add system messages).
    const patched = await api(a.token, 'PATCH', `/conversations/${id}`, { status: 'resolved', priority: 'high', assigneeId: a.owner.id });
    expect(patched.json).toMatchObject({ id, status: 'resolved', priority: 'high', assigneeId: a.owner.id });
    check('patch', '/conversations/{id}', patched);
    const events = await getDb().select({ type: schema.domainEvents.type, actorId: schema.domainEvents.actorId }).from(schema.domainEvents).where(eq(schema.domainEvents.accountId, a.account.id));
    // The same events as the inbox writes, in the key creator's name.
    expect(events.filter((e) => e.type === 'conversation_updated' || e.type === 'conversation_assigned').every((e) => e.actorId === a.owner.id)).toBe(true);
    expect(events.some((e) => e.type === 'conversation_assigned')).toBe(true);
    const emptyPatch = await api(a.token, 'PATCH', `/conversations/${id}`, {});
    expect(emptyPatch.status).toBe(400);
    check('patch', '/conversations/{id}', emptyPatch);

    // Contacts, companies, tags
    const contact = await api(a.token, 'POST', '/contacts', { firstName: 'Dev', email: 'dev@example.test' });
    check('post', '/contacts', contact);
    check('get', '/contacts/{id}', await api(a.token, 'GET', `/contacts/${contact.json.id}`));
    check('get', '/contacts', await api(a.token, 'GET', '/contacts?email=dev@example.test'));
    const dup = await api(a.token, 'POST', '/contacts', { firstName: 'Dev', email: 'dev@example.test' });
    expect(dup.status).toBe(422);
    check('post', '/contacts', dup);
    const company = await api(a.token, 'POST', '/companies', { name: 'Acme', domain: 'acme.test' });
    check('post', '/companies', company);
    check('get', '/companies/{id}', await api(a.token, 'GET', `/companies/${company.json.id}`));
    check('get', '/companies', await api(a.token, 'GET', '/companies'));
    check('post', '/tags', await api(a.token, 'POST', '/tags', { name: 'vip', color: 'red' }));
    check('get', '/tags', await api(a.token, 'GET', '/tags'));
    check('get', '/inboxes', await api(a.token, 'GET', '/inboxes'));
    check('get', '/users', await api(a.token, 'GET', '/users'));
    check('get', '/workflows', await api(a.token, 'GET', '/workflows'));
    // Webhooks
    const hook = await api(a.token, 'POST', '/webhooks', { url: 'https://example.com/hook', eventTypes: ['contact_created'] });
    check('post', '/webhooks', hook);
    expect(hook.json.secret).toMatch(/^whsec_/);
    const shown = await api(a.token, 'GET', `/webhooks/${hook.json.id}`);
    check('get', '/webhooks/{id}', shown);
    expect(shown.text).not.toContain(hook.json.secret);
    check('get', '/webhooks', await api(a.token, 'GET', '/webhooks'));
    const [row] = await getDb()
      .insert(schema.webhookDeliveries)
      .values({ accountId: a.account.id, endpointId: hook.json.id, messageId: 'msg_test', eventType: 'contact_created', payload: { type: 'contact.created' }, status: 'dead', attempts: 8 })
      .returning();
    const deliveries = await api(a.token, 'GET', `/webhooks/${hook.json.id}/deliveries`);
    expect(deliveries.json.data[0]).toMatchObject({ id: row.id, status: 'dead', messageId: 'msg_test' });
    check('get', '/webhooks/{id}/deliveries', deliveries);
    const redo = await api(a.token, 'POST', `/webhooks/${hook.json.id}/deliveries/${row.id}/redeliver`);
    expect(redo.status).toBe(202);
    check('post', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', redo);
    expect((await api(a.token, 'POST', `/webhooks/${hook.json.id}/deliveries/${row.id + 1000}/redeliver`)).status).toBe(404);
    check('delete', '/webhooks/{id}', await api(a.token, 'DELETE', `/webhooks/${hook.json.id}`));

    // Errors: one shape, documented
    const bad = await api(a.token, 'POST', '/conversations', { inboxId: a.inbox.id });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_request');
    check('post', '/conversations', bad);
    const missing = await api(a.token, 'GET', '/conversations/999999999');
    expect(missing.status).toBe(404);
    check('get', '/conversations/{id}', missing);
    expect((await api(a.token, 'GET', '/nothing-here')).json.error.code).toBe('not_found');

    const all = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m} ${p}`));
    expect([...validated].sort()).toEqual(all.sort());
  });

  it("refuses a missing, unknown or revoked key, another account's data, and a missing scope", async () => {
    const a = await accountWithKey();
    const b = await accountWithKey();
    const bConv = await api(b.token, 'POST', '/conversations', { inboxId: b.inbox.id, subject: 'B only', contact: { email: 'b@example.test' }, message: 'secret of B' });
    expect(bConv.status).toBe(201);
    // A's key: B's conversation does not exist, B's inbox cannot be written to, and B's data is in no list.
    expect((await api(a.token, 'GET', `/conversations/${bConv.json.id}`)).status).toBe(404);
    expect((await api(a.token, 'GET', `/conversations/${bConv.json.id}/messages`)).status).toBe(404);
    expect((await api(a.token, 'POST', `/conversations/${bConv.json.id}/messages`, { kind: 'note', text: 'x' })).status).toBe(404);
    expect((await api(a.token, 'POST', '/conversations', { inboxId: b.inbox.id, subject: 'x', contact: { email: 'x@example.test' }, message: 'x' })).status).toBe(422);
    const list = await api(a.token, 'GET', '/conversations');
    expect(list.text).not.toContain('B only');
    expect((await api(a.token, 'GET', '/users')).text).not.toContain(b.email);

    const none = await api(null, 'GET', '/conversations');
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('unauthorized');
    expect((await api('prly_not-a-real-key', 'GET', '/conversations')).status).toBe(401);

    expect(await revokeApiKey({ accountId: a.account.id, actorId: a.owner.id, id: a.key.id })).toBe(true);
    const revoked = await api(a.token, 'GET', '/conversations');
    expect(revoked.status).toBe(401);
    expect(revoked.json.error.message).toMatch(/revoked/);
    // Revoking from another account does nothing.
    expect(await revokeApiKey({ accountId: a.account.id, actorId: a.owner.id, id: b.key.id })).toBe(false);
    expect((await api(b.token, 'GET', '/conversations')).status).toBe(200);

    const reader = await createApiKey({ accountId: b.account.id, actorId: b.owner.id, name: 'Reader', scopes: ['conversations:read'] });
    expect((await api(reader.token, 'GET', '/conversations')).status).toBe(200);
    const denied = await api(reader.token, 'POST', '/tags', { name: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('forbidden');
    expect((await api(reader.token, 'GET', '/contacts')).status).toBe(403);
    // Over the limit: 429 in the error shape, with Retry-After (the window is filled as 600 requests would).
    await getDb().execute(sql`update rate_limits set count = 600 where key = ${`api:key:${reader.key.id}`}`);
    const limited = await api(reader.token, 'GET', '/conversations');
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Only the hash is stored, and no event (the audit log) holds the token.
    const bEvents = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, b.account.id));
    expect(bEvents.some((e) => e.type === 'api_key_created')).toBe(true);
    expect(JSON.stringify(bEvents)).not.toContain(reader.token);
    const [row] = await getDb().select().from(schema.apiKeys).where(eq(schema.apiKeys.id, reader.key.id));
    expect(JSON.stringify(row)).not.toContain(reader.token);
    expect(row.lastUsedAt).not.toBeNull();
  });
});

describe('settings screens', () => {
  it('need manage_integrations and the plan; bad input is a 400; the key and the secret are shown once', async () => {
    const a = await createTestAccount();
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const req = (path: string, c: string, form?: Record<string, string | string[]>) => app.request(path, { domain: a.domain, cookie: c, form });
    for (const path of ['/settings/developer-api', '/settings/webhooks']) {
      expect((await req(path, agentCookie)).status, path).toBe(403);
      // The list of webhooks is the index route of its section: forms post to ?index, as the page's own form does.
      expect((await req(path === '/settings/webhooks' ? `${path}?index` : path, agentCookie, { intent: 'create', name: 'x', url: 'https://example.com', scopes: 'tags:read', eventTypes: 'tag_created' })).status, path).toBe(403);
    }
    expect(await getDb().select().from(schema.apiKeys).where(eq(schema.apiKeys.accountId, a.account.id))).toHaveLength(0);

    const bad = await req('/settings/developer-api', cookie, { intent: 'create', name: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Key Name is required');
    expect(bad.text).toContain('Choose at least one scope');
    expect((await req('/settings/developer-api', cookie, { intent: 'nonsense' })).status).toBe(400);
    const ok = await req('/settings/developer-api', cookie, { intent: 'create', name: 'CI deploys', scopes: ['tags:read', 'contacts:write'] });
    expect(ok.status).toBe(200);
    const token = /prly_[A-Za-z0-9_-]{43}/.exec(ok.text)?.[0];
    expect(token).toBeDefined();
    const list = await req('/settings/developer-api', cookie);
    expect(list.text).toContain('CI deploys');
    expect(list.text).not.toContain(token);

    const refused = await withPrivateDestinationsOff(() => req('/settings/webhooks?index', cookie, { intent: 'create', url: 'http://169.254.169.254/latest/meta-data/', eventTypes: 'tag_created' }));
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('This address is refused');
    expect(refused.text).toContain('169.254.169.254/latest/meta-data/');
    const made = await req('/settings/webhooks?index', cookie, { intent: 'create', url: 'https://hooks.example.com/in', eventTypes: ['tag_created', 'contact_created'] });
    expect(made.status).toBe(200);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(made.text)?.[0];
    expect(secret).toBeDefined();
    const [hook] = await getDb().select().from(schema.webhookEndpoints).where(eq(schema.webhookEndpoints.accountId, a.account.id));
    expect(hook.eventTypes).toEqual(['tag_created', 'contact_created']);
    for (const path of ['/settings/webhooks', `/settings/webhooks/${hook.id}`]) expect((await req(path, cookie)).text, path).not.toContain(secret);
    const rotated = await req(`/settings/webhooks/${hook.id}`, cookie, { intent: 'rotate' });
    expect(rotated.text).toMatch(/whsec_/);
    expect(rotated.text).not.toContain(secret);

    // Another account's webhook is a 404, and a plan without integrations is refused.
    const b = await createTestAccount();
    const bCookie = await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id });
    expect((await app.request(`/settings/webhooks/${hook.id}`, { domain: b.domain, cookie: bCookie })).status).toBe(404);
    await givePlan(b.account.id, {});
    expect((await app.request('/settings/developer-api', { domain: b.domain, cookie: bCookie })).status).toBe(403);
  });
});

type Received = { headers: http.IncomingHttpHeaders; body: string };

async function receiver(answer: (n: number) => number = () => 200) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer(got.length), { 'content-type': 'text/plain' });
      res.end('thanks');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { got, url: `http://127.0.0.1:${port}/hooks`, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('outgoing webhooks', () => {
  it('delivers a signed event through the engine that an independent Standard Webhooks implementation verifies, also across a secret rotation', async () => {
    const a = await accountWithKey();
    const rx = await receiver();
    try {
      expect(await hasWebhookFor({ accountId: a.account.id, type: 'contact_created' })).toBe(false);
      const hook = await createWebhook({ accountId: a.account.id, actorId: a.owner.id, input: { url: rx.url, eventTypes: ['contact_created'] } });
      expect(await hasWebhookFor({ accountId: a.account.id, type: 'contact_created' })).toBe(true);
      expect(await hasWebhookFor({ accountId: a.account.id, type: 'tag_created' })).toBe(false);
      const created = await api(a.token, 'POST', '/contacts', { firstName: 'Wendy', email: 'wendy@example.test' });
      expect(created.status).toBe(201);
      await waitFor(() => rx.got.length >= 1);
      const first = rx.got[0];
      const verified = new Webhook(hook.secret).verify(first.body, first.headers as Record<string, string>) as { type: string; data: { id: string } };
      expect(verified.type).toBe('contact.created');
      expect(verified.data.id).toBe(String(created.json.id));
      expect(first.headers['webhook-id']).toMatch(/^msg_/);
      // The log has the attempt with request and response.
      const log = await waitFor(async () => {
        const list = await listDeliveries({ accountId: a.account.id, endpointId: hook.id });
        return list[0]?.status === 'delivered' ? list : null;
      });
      expect(log[0].attempts[0]).toMatchObject({ responseStatus: 200, responseBody: 'thanks' });
      expect(log[0].attempts[0].requestBody).toContain('contact.created');
      expect(JSON.stringify(log)).not.toContain(hook.secret);
      const events = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, a.account.id));
      expect(JSON.stringify(events)).not.toContain(hook.secret);

      // Rotation: both the new and the old secret verify during the window.
      const rotated = (await rotateWebhookSecret({ accountId: a.account.id, actorId: a.owner.id, id: hook.id }))!;
      expect(rotated.secret).not.toBe(hook.secret);
      await api(a.token, 'POST', '/contacts', { firstName: 'Rita', email: 'rita@example.test' });
      await waitFor(() => rx.got.length >= 2);
      const second = rx.got[1];
      expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(() => new Webhook(rotated.secret).verify(second.body, second.headers as Record<string, string>)).not.toThrow();
      expect(() => new Webhook(hook.secret).verify(second.body, second.headers as Record<string, string>)).not.toThrow();
      expect(() => new Webhook('whsec_' + Buffer.from('wrong-secret-wrong-secret').toString('base64')).verify(second.body, second.headers as Record<string, string>)).toThrow();
    } finally {
      await rx.close();
    }
  });

  it('retries a failed delivery with backoff, logs each attempt, and redelivers by hand', async () => {
    const a = await accountWithKey();
    const rx = await receiver((n) => (n === 1 ? 500 : 204));
    try {
      const hook = await createWebhook({ accountId: a.account.id, actorId: a.owner.id, input: { url: rx.url, eventTypes: ['tag_created'] } });
      await api(a.token, 'POST', '/tags', { name: 'retry-me' });
      const failed = await waitFor(async () => {
        const [d] = await listDeliveries({ accountId: a.account.id, endpointId: hook.id });
        return d?.status === 'failed' ? d : null;
      });
      expect(failed.attempts).toHaveLength(1);
      expect(failed.attempts[0].responseStatus).toBe(500);
      // The next automatic try is 30 s later (then 1 min, 2 min...).
      const wait = new Date(failed.nextAttemptAt!).getTime() - Date.now();
      expect(wait).toBeGreaterThan(20_000);
      expect(wait).toBeLessThan(31_000);
      expect(await redeliverWebhook({ accountId: a.account.id, deliveryId: failed.id })).toBe(true);
      const done = await waitFor(async () => {
        const [d] = await listDeliveries({ accountId: a.account.id, endpointId: hook.id });
        return d?.status === 'delivered' ? d : null;
      });
      expect(done.attempts.map((t) => [t.responseStatus, t.trigger])).toEqual([
        [204, 'manual'],
        [500, 'automatic'],
      ]);
      expect(rx.got[0].headers['webhook-id']).toBe(rx.got[1].headers['webhook-id']);
      // The pending automatic retry finds the delivery done and sends nothing more.
      expect(await attemptWebhookDelivery({ accountId: a.account.id, deliveryId: failed.id })).toEqual({ skipped: 'delivered' });
      // Another account cannot redeliver it.
      const b = await createTestAccount();
      expect(await redeliverWebhook({ accountId: b.account.id, deliveryId: failed.id })).toBe(false);
    } finally {
      await rx.close();
    }
  });

  it('refuses loopback and metadata destinations by default, when saved and again at connection time', async () => {
    const a = await accountWithKey();
    const rx = await receiver();
    try {
      // Saved while the installation allowed private destinations, by name: the name is judged when connecting.
      const hook = await createWebhook({ accountId: a.account.id, actorId: a.owner.id, input: { url: `http://localhost:${rx.port}/hooks`, eventTypes: ['tag_created'] } });
      await withPrivateDestinationsOff(async () => {
        for (const url of ['http://127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/hook', 'http://[::1]/hook', 'http://0x7f000001/']) {
          await expect(createWebhook({ accountId: a.account.id, actorId: a.owner.id, input: { url, eventTypes: ['tag_created'] } })).rejects.toBeInstanceOf(FieldInputError);
          const viaApi = await api(a.token, 'POST', '/webhooks', { url, eventTypes: ['tag_created'] });
          expect(viaApi.status).toBe(422);
          expect(viaApi.json.error.message).toMatch(/refused/);
        }
        // An endpoint already saved (or a name that now resolves to loopback) is refused at connection time.
        await api(a.token, 'POST', '/tags', { name: 'no-ssrf' });
        const d = await waitFor(async () => {
          const [row] = await listDeliveries({ accountId: a.account.id, endpointId: hook.id });
          return row?.status === 'failed' && row.attempts.length ? row : null;
        });
        expect(d.attempts[0].responseStatus).toBeNull();
        expect(d.attempts[0].error).toMatch(/Refused/);
      });
      expect(rx.got).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });
});
