import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../app/models/api/keys.server';
import { API_SCOPES } from '../../app/models/api/scopes';
import { ALL_ENDPOINTS } from '../../app/models/api/endpoints.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createContactForm } from '../../app/models/productivity/contact-forms.server';
import { MAX_JSON_DEPTH } from '../../server/input-boundary';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/**
 * The hostile sweeps' findings of issue 39, kept fixed (ADR 144): bodies nested thousands of levels deep, numbers
 * past PostgreSQL's integer in the Developer API and in path ids, HTTP methods Parley does not serve, and HTML
 * pages without a Content-Security-Policy. Each answers a 4xx (or carries its header), never a 500.
 */

const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';
const INT4_MAX = 2_147_483_647;

let app: Awaited<ReturnType<typeof startTestApp>>;
let build: ServerBuild;

type Res = { status: number; headers: http.IncomingHttpHeaders; text: string };

function send(opts: { path: string; method?: string; host: string; cookie?: string; body?: string; contentType?: string; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { host: opts.host, ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.contentType) headers['content-type'] = opts.contentType;
  return new Promise<Res>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: opts.path, method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const cursorOf = (n: string) => Buffer.from(n).toString('base64url');

let s: Awaited<ReturnType<typeof createTestAccount>>;
let host: string;
let token: string;
let webInboxId: number;
let formCode: string;

beforeAll(async () => {
  build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  app = await startTestApp();
  s = await createTestAccount();
  host = `${s.domain}.${APP_HOST}`;
  token = (await createApiKey({ accountId: s.account.id, actorId: s.owner.id, name: 'Sweep key', scopes: API_SCOPES })).token;
  webInboxId = (await createWebInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Website' })).id;
  const formInbox = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Form', channelType: 'contact_form' });
  formCode = (
    await createContactForm({
      accountId: s.account.id,
      actorId: s.owner.id,
      headerText: 'Hi',
      subHeaderText: 'Hello',
      submitText: 'Send',
      submitMsg: 'Thanks',
      inboxId: formInbox.id,
      allowPhone: true,
      allowAttachments: false,
      allowCaptcha: false,
    })
  ).code;
});
afterAll(async () => {
  await app?.close();
});

describe('deeply nested bodies', () => {
  const nested = (depth: number, kind: 'array' | 'object') => (kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

  it('refuses a body nested 5,000 and 20,000 levels deep with a 400 on every JSON endpoint, signed in or not', { timeout: 120_000 }, async () => {
    const endpoints = ['/public/widget/session', '/public/widget/pageview', '/public/widget/messages', '/webhooks/stripe', '/webhooks/sms/1', '/webhooks/facebook/1', '/api/v1/conversations'];
    const seen: string[] = [];
    for (const p of endpoints) {
      for (const depth of [5_000, 20_000]) {
        for (const kind of ['array', 'object'] as const) {
          for (const contentType of ['application/json', 'text/plain']) {
            const res = await send({ path: p, host, body: nested(depth, kind), contentType, headers: p.startsWith('/api/') ? { authorization: `Bearer ${token}` } : {} });
            seen.push(`${res.status} ${p} ${kind} ${depth} ${contentType}: ${res.text.slice(0, 100)}`);
            expect(res.status, seen.at(-1)).toBe(400);
            expect(res.text, seen.at(-1)).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
            // The Developer API answers in its own error shape.
            if (p.startsWith('/api/')) expect(JSON.parse(res.text).error.code).toBe('invalid_request');
          }
        }
      }
    }
  });

  it('refuses it on a signed-in form action too, and lets a body at the limit through to the route', async () => {
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const deep = await send({ path: '/settings/developer-api', host, cookie, body: nested(20_000, 'object'), contentType: 'application/json', headers: { origin: `http://${host}` } });
    expect(deep.status).toBe(400);
    expect(deep.text).toContain('nested deeper than');
    // At the limit: the route itself answers (here: a visitor session is made, the extra nesting ignored).
    const ok = await send({ path: '/public/widget/session', host, body: JSON.stringify({ inboxId: webInboxId, extra: JSON.parse(nested(MAX_JSON_DEPTH - 1, 'array')) }), contentType: 'application/json' });
    expect(ok.status, ok.text).toBe(200);
    const over = await send({ path: '/public/widget/session', host, body: JSON.stringify({ inboxId: webInboxId, extra: JSON.parse(nested(MAX_JSON_DEPTH, 'array')) }), contentType: 'application/json' });
    expect(over.status).toBe(400);
    // Brackets inside strings are text, not nesting.
    const text = await send({ path: '/public/widget/session', host, body: JSON.stringify({ inboxId: webInboxId, name: '['.repeat(5_000) }), contentType: 'application/json' });
    expect(text.status, text.text).toBe(200);
  });
});

describe('numbers past PostgreSQL integer in the Developer API', () => {
  const api = (method: string, p: string, body?: unknown) =>
    send({ path: `/api/v1${p}`, method, host: APP_HOST, body: body === undefined ? undefined : JSON.stringify(body), contentType: body === undefined ? undefined : 'application/json', headers: { authorization: `Bearer ${token}` } });

  it('answers a cursor past 2147483647 with a 400 on every list endpoint, and the largest one with a 200', async () => {
    const created = await api('POST', '/conversations', { inboxId: webInboxId, subject: 'Cursor', contact: { email: 'cursor@example.test' }, message: 'Hi' });
    expect(created.status, created.text).toBe(201);
    const conversationId = (JSON.parse(created.text) as { id: number }).id;
    const lists = ALL_ENDPOINTS.filter((e) => e.method === 'get' && e.query && 'shape' in e.query && 'cursor' in (e.query as unknown as { shape: object }).shape);
    expect(lists.map((e) => e.id).sort()).toEqual(
      ['listCompanies', 'listContacts', 'listConversations', 'listInboxes', 'listMessages', 'listTags', 'listUsers', 'listWebhooks', 'listWorkflows'].sort(),
    );
    for (const e of lists) {
      const p = e.path.replace('{id}', String(conversationId));
      for (const n of ['99999999999', '2147483648', '0', '-1', '1e3', '12abc']) {
        const res = await api('GET', `${p}?cursor=${cursorOf(n)}`);
        expect(res.status, `${e.id} cursor ${n}: ${res.text}`).toBe(400);
        expect(JSON.parse(res.text).error.code).toBe('invalid_request');
      }
      const last = await api('GET', `${p}?cursor=${cursorOf(String(INT4_MAX))}`);
      expect(last.status, `${e.id}: ${last.text}`).toBe(200);
    }
  });

  it('answers body ids past 2147483647 with a 400 and path ids with a 404', async () => {
    const created = await api('POST', '/conversations', { inboxId: webInboxId, subject: 'Ids', contact: { email: 'ids@example.test' }, message: 'Hi' });
    const id = (JSON.parse(created.text) as { id: number }).id;
    for (const big of [2_147_483_648, 99_999_999_999]) {
      const open = await api('POST', '/conversations', { inboxId: big, subject: 'x', contact: { email: 'x@example.test' }, message: 'x' });
      expect(open.status, open.text).toBe(400);
      expect(JSON.parse(open.text).error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'inboxId' })]));
      for (const field of ['assigneeId', 'teamId']) {
        const res = await api('PATCH', `/conversations/${id}`, { [field]: big });
        expect(res.status, `${field}: ${res.text}`).toBe(400);
        expect(JSON.parse(res.text).error.details[0].path).toBe(field);
      }
    }
    for (const p of ['/conversations/{id}', '/conversations/{id}/messages', '/contacts/{id}', '/companies/{id}', '/webhooks/{id}', '/webhooks/{id}/deliveries']) {
      for (const bad of ['2147483648', '99999999999', '0', 'abc', '1e3']) {
        const res = await api('GET', p.replace('{id}', bad));
        expect(res.status, `${p} ${bad}: ${res.text}`).toBe(404);
        expect(JSON.parse(res.text).error.code).toBe('not_found');
      }
    }
    const redeliver = await api('POST', '/webhooks/1/deliveries/99999999999/redeliver');
    expect(redeliver.status).toBe(404);
  });
});

describe('path ids past PostgreSQL integer on the screens', () => {
  it('answers no loader with a numeric parameter of 99999999999 or 2147483648 with a 5xx or a 400', { timeout: 300_000 }, async () => {
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const failures: string[] = [];
    let asked = 0;
    for (const [id, route] of Object.entries(build.routes)) {
      if (!route.module.loader || !route.path?.includes(':') || id.startsWith('routes/api.v1')) continue;
      const parts: string[] = [];
      for (let r = build.routes[id]; r; r = r.parentId ? build.routes[r.parentId] : (undefined as never)) if (r.path) parts.unshift(r.path);
      for (const big of ['99999999999', '2147483648']) {
        const url = `/${parts
          .join('/')
          .split('/')
          .filter(Boolean)
          .map((seg) => (seg === '*' ? 'anything' : seg === ':code' ? formCode : seg.startsWith(':') ? big : seg))
          .join('/')}`;
        asked += 1;
        const res = await send({ path: url, host, cookie });
        if (res.status >= 500 || res.status === 400) failures.push(`${res.status} ${url} (${id}): ${res.text.slice(0, 120).replace(/\s+/g, ' ')}`);
      }
    }
    expect(asked).toBeGreaterThan(50);
    expect(failures, failures.join('\n')).toEqual([]);
  });
});

describe('HTTP methods Parley does not serve', () => {
  it('answers TRACE, PROPFIND and the other WebDAV and unusual methods with a 405 and an Allow header on every kind of path', async () => {
    const served = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']);
    const methods = http.METHODS.filter((m) => !served.has(m));
    expect(methods).toContain('TRACE');
    for (const p of ['/', '/signin', '/inbox', '/api/v1/conversations', '/api/v1/reference', '/public/widget/session', '/webhooks/stripe', '/webhooks/email/1/abc', '/build/nothing.js', '/no-such-page']) {
      for (const method of methods) {
        const res = await send({ path: p, method, host });
        expect(res.status, `${method} ${p}: ${res.text.slice(0, 100)}`).toBe(405);
        expect(res.headers.allow, `${method} ${p}`).toMatch(/^GET, HEAD, POST/);
      }
    }
  });

  it('leaves a method Node itself does not parse (FOO) and the methods it serves as they were', async () => {
    const foo = await send({ path: '/', method: 'FOO', host }).catch(() => ({ status: 400, headers: {}, text: '' }));
    expect(foo.status).toBe(400);
    expect((await send({ path: '/signin', host })).status).toBe(200);
    expect((await send({ path: '/public/widget/session', method: 'OPTIONS', host })).status).toBe(204);
    const api = await send({ path: '/api/v1/conversations', method: 'PUT', host, headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(405);
    expect(api.headers.allow).toBe('GET, POST');
  });
});

describe('Content-Security-Policy', () => {
  it('is on every HTML page, the API reference included', async () => {
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const pages: [string, string, string | undefined][] = [
      ['/api/v1/reference', APP_HOST, undefined],
      ['/api/v1/reference', host, undefined],
      ['/', APP_HOST, undefined],
      ['/signin', host, undefined],
      ['/signup', APP_HOST, undefined],
      ['/forgot-password', host, undefined],
      ['/home', host, cookie],
      ['/inbox', host, cookie],
      ['/contacts', host, cookie],
      ['/settings/developer-api', host, cookie],
      ['/help', host, cookie],
      [`/contact/${formCode}`, host, undefined],
      ['/no-such-page', host, cookie],
      ['/no-such-page', host, undefined],
    ];
    let html = 0;
    for (const [p, h, c] of pages) {
      const res = await send({ path: p, host: h, cookie: c });
      if (!/^text\/html/.test(String(res.headers['content-type']))) continue;
      html += 1;
      expect(res.headers['content-security-policy'], `${res.status} ${h}${p}`).toMatch(/default-src 'self'.*object-src 'none'.*frame-ancestors/);
    }
    expect(html).toBeGreaterThanOrEqual(10);
  });
});
