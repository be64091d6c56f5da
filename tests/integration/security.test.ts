import http from 'node:http';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSmsInbox, SmsInputError } from '../../app/models/channels/sms.server';
import { createEmailInbox, setImapSettings, setSmtpSettings } from '../../app/models/email/email-inboxes.server';
import { isDevMailboxEnabled } from '../../app/models/mail/mail.server';
import { parseConfig } from '../../app/utils/env.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { withPrivateDestinationsOff } from '../helpers/outbound';
import { createTestAccount, TEST_PASSWORD } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
const APP_HOST = process.env.APP_HOST ?? 'localhost:3000';

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A request with the Host header of the account (fetch would replace it). */
function raw(pathname: string, opts: { host: string; method?: string; body?: string; contentType?: string; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { host: opts.host, ...(opts.contentType ? { 'content-type': opts.contentType } : {}), ...opts.headers };
  return new Promise<{ status: number; headers: { get: (name: string) => string | null }; text: () => Promise<string> }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: pathname, method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v); } },
          text: async () => body,
        });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

describe('server-side request forgery', () => {
  it('refuses loopback, private and metadata destinations for the SMS gateway, IMAP and SMTP when saved', async () => {
    const s = await createTestAccount();
    await withPrivateDestinationsOff(async () => {
      for (const webhookUrl of ['http://127.0.0.1:9/x', 'http://0x7f000001/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/']) {
        const err = await createSmsInbox({
          accountId: s.account.id,
          actorId: s.owner.id,
          publicBase: 'http://x',
          input: { provider: 'custom_sms', name: 'Gw', phoneNumber: '+4915112345', authToken: 'a'.repeat(40), webhookUrl, threadingInterval: 7, autoResolvedDays: 0, assigneeIds: [s.owner.id] } as never,
        }).catch((e: unknown) => e);
        expect(err, webhookUrl).toBeInstanceOf(SmsInputError);
        expect((err as SmsInputError).message).toMatch(/refused/);
      }
      const inbox = await createEmailInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Support', email: 'support@acme.test', mode: 'imap' });
      for (const host of ['127.0.0.1', 'localhost', '10.0.0.8', '2130706433']) {
        await expect(setImapSettings({ accountId: s.account.id, actorId: s.owner.id, id: inbox.id, input: { host, port: 993, secure: true, user: 'u', password: 'p', mailbox: 'INBOX' } })).rejects.toThrow(/refused/);
        await expect(setSmtpSettings({ accountId: s.account.id, actorId: s.owner.id, id: inbox.id, input: { host, port: 587, secure: false, user: 'u', password: 'p' } })).rejects.toThrow(/refused/);
      }
    });
  });
});

describe('redirects', () => {
  it('follows only same-host paths after sign-in and when already signed in', async () => {
    const s = await createTestAccount();
    const host = `${s.domain}.${APP_HOST}`;
    for (const redirectTo of ['/%09/evil.example/', '//evil.example', '/\\evil.example', 'https://evil.example']) {
      const res = await raw('/signin', { host, body: new URLSearchParams({ email: s.email, password: TEST_PASSWORD, redirectTo }).toString(), contentType: 'application/x-www-form-urlencoded' });
      expect(res.status, redirectTo).toBe(302);
      expect(res.headers.get('location'), redirectTo).toBe('/home');
    }
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const signedIn = await raw(`/signin?redirectTo=${encodeURIComponent('/%09/evil.example/')}`, { host, headers: { cookie } });
    expect(signedIn.headers.get('location')).toBe('/home');
    const kept = await raw(`/signin?redirectTo=${encodeURIComponent('/inbox?status=open')}`, { host, headers: { cookie } });
    expect(kept.headers.get('location')).toBe('/inbox?status=open');
  });
});

describe('input boundary', () => {
  it('answers NUL bytes, malformed bodies and ?_data requests as 4xx or as the page would', async () => {
    const s = await createTestAccount();
    const host = `${s.domain}.${APP_HOST}`;
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const form = 'application/x-www-form-urlencoded';
    expect((await raw('/signin', { host, body: 'email=a%00b%40c.d&password=x', contentType: form })).status).toBe(400);
    expect((await raw('/settings/tags/new', { host, body: 'intent=save&name=a%00b', contentType: form, headers: { cookie } })).status).toBe(400);
    expect((await raw('/settings/tags/new', { host, body: 'x', contentType: 'multipart/form-data', headers: { cookie } })).status).toBe(400);
    expect((await raw('/settings/tags/new', { host, body: '--b\r\nContent-Disp', contentType: 'multipart/form-data; boundary=b', headers: { cookie } })).status).toBe(400);
    expect([400, 415]).toContain((await raw('/settings/tags/new', { host, body: '{"name":"x"}', contentType: 'application/json', headers: { cookie } })).status);
    expect([400, 415]).toContain((await raw('/settings/tags/new', { host, body: 'name=x', contentType: 'text/plain', headers: { cookie } })).status);
    expect((await raw('/settings/users/0xabad1dea', { host, headers: { cookie } })).status).toBe(404);
    expect((await raw('/settings/users/1e309', { host, headers: { cookie } })).status).toBe(404);
    // ?_data: signed out, the page's guard redirects to sign-in; signed in, the loader's data.
    const signedOut = await raw('/analytics/overview?_data=routes%2F_app.analytics.%24page', { host });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get('location')).toMatch(/^\/signin/);
    expect((await raw('/analytics/overview?_data=routes%2F_app.analytics.%24page', { host, headers: { cookie } })).status).toBe(200);
    expect((await raw('/settings/users/99999999999?_data=routes%2F_app.settings.users.%24id', { host, headers: { cookie } })).status).toBe(404);
  });
});

describe('rate limits', () => {
  it('ignores X-Forwarded-For from a peer that is not a named proxy, and keeps counts in PostgreSQL', async () => {
    let last = 0;
    for (let i = 0; i < 61; i++) {
      const res = await raw('/verify-domain', { host: APP_HOST, body: 'domain=nope', contentType: 'application/x-www-form-urlencoded', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      last = res.status;
    }
    expect(last).toBe(429);
    const rows = await getDb().select().from(schema.rateLimits).where(like(schema.rateLimits.key, 'verify-domain:%'));
    expect(rows.map((r) => r.key)).toEqual(['verify-domain:127.0.0.1']);
    expect(rows[0].count).toBe(61);
  });

  it('counts failed sign-ins only', async () => {
    const s = await createTestAccount();
    const host = `${s.domain}.${APP_HOST}`;
    const signin = (password: string) => raw('/signin', { host, body: new URLSearchParams({ email: s.email, password }).toString(), contentType: 'application/x-www-form-urlencoded' });
    for (let i = 0; i < 12; i++) expect((await signin(TEST_PASSWORD)).status).toBe(302);
    for (let i = 0; i < 10; i++) expect((await signin('wrong-password')).status).toBe(400);
    expect((await signin(TEST_PASSWORD)).status).toBe(429);
    const [row] = await getDb().select().from(schema.rateLimits).where(and(eq(schema.rateLimits.key, `signin:${s.account.id}:${s.email}`)));
    expect(row.count).toBe(10);
  });
});

describe('headers', () => {
  it('puts a nonce-based CSP on every HTML page, no-store on signed-in responses, and frame-ancestors as the framing rules', async () => {
    const s = await createTestAccount();
    const host = `${s.domain}.${APP_HOST}`;
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const page = await raw('/home', { host, headers: { cookie } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('unsafe-eval');
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const signin = await raw('/signin', { host });
    expect(signin.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-/);
    expect(signin.headers.get('content-security-policy')).not.toContain(nonce!);
    expect(signin.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('development mailbox', () => {
  it('is off in production without the unsafe setting, and on with it', () => {
    const prod = parseConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) });
    expect(prod.unsafeDevMailboxInProduction).toBe(false);
    process.env.NODE_ENV = 'production';
    process.env.SMTP_URL = '';
    resetSingleton('config');
    try {
      expect(isDevMailboxEnabled()).toBe(false);
      process.env.PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION = 'true';
      resetSingleton('config');
      expect(isDevMailboxEnabled()).toBe(true);
    } finally {
      process.env.NODE_ENV = 'test';
      delete process.env.PARLEY_UNSAFE_DEV_MAILBOX_IN_PRODUCTION;
      resetSingleton('config');
    }
  });
});
