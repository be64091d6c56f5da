import fs from 'node:fs';
import { createRequire } from 'node:module';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { ImapFlow } from 'imapflow';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { deliverMessage } from '../../app/models/channels/delivery.server';
import { readEmailSettings } from '../../app/models/email/email-inboxes.server';
import { mailAccessToken } from '../../app/models/email/oauth-mail.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { getInbox } from '../../app/models/inbox/inboxes.server';
import { openSecret } from '../../app/utils/secret-box.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { startImapManager, type ImapManager } from '../../server/imap-manager';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startMailOAuthStandIn } from '../helpers/stand-ins/mail-oauth';

/**
 * Gmail / Microsoft 365 over OAuth (ADR 158), end to end on real parts: the connect route and its callback against a
 * stand-in speaking Google's and Microsoft's OAuth wire format, a real IMAP server (hoodiecrow) that only takes
 * AUTHENTICATE XOAUTH2 with a token the stand-in issued, and a real SMTP server (smtp-server) that only takes AUTH
 * XOAUTH2 with such a token.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-email-oauth-'));
process.env.PARLEY_DATA_DIR = dataDir;
process.env.INBOUND_EMAIL_DOMAIN = 'inbound.parley.test';

const MAILBOX = 'support@gmail.test';
type Hoodiecrow = { listen: (port: number, host: string, cb: () => void) => void; close: (cb: () => void) => void; server: net.Server };
const hoodiecrow = createRequire(import.meta.url)('hoodiecrow-imap') as (opts: object) => Hoodiecrow;

const imapUsers: Record<string, { password: string; xoauth2?: { accessToken: string; sessionTimeout: number } }> = {
  [MAILBOX]: { password: 'not-used', xoauth2: { accessToken: '-', sessionTimeout: 3600_000 } },
};
let stand: Awaited<ReturnType<typeof startMailOAuthStandIn>>;
let imap: Hoodiecrow;
let imapPort: number;
let smtp: SMTPServer;
let smtpPort: number;
const sent: { mail: ParsedMail; user: string; token: string }[] = [];
const smtpLogins: string[] = [];
let app: Awaited<ReturnType<typeof startTestApp>>;
let manager: ImapManager | undefined;

beforeAll(async () => {
  stand = await startMailOAuthStandIn({
    clientId: 'parley-mail.apps.googleusercontent.com',
    clientSecret: 'mail-secret',
    email: MAILBOX,
    // The IMAP server takes the newest token the provider issued (as Gmail takes any valid one).
    onAccessToken: (token) => (imapUsers[MAILBOX].xoauth2!.accessToken = token),
  });
  imap = hoodiecrow({
    plugins: ['IDLE', 'ENABLE', 'UIDPLUS', 'ID', 'UNSELECT', 'SASL-IR', 'XOAUTH2'],
    users: imapUsers,
    storage: { INBOX: { messages: [] }, '': {} },
  });
  await new Promise<void>((resolve) => imap.listen(0, '127.0.0.1', resolve));
  imapPort = (imap.server.address() as net.AddressInfo).port;
  smtp = new SMTPServer({
    authMethods: ['XOAUTH2'],
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      smtpLogins.push(auth.method);
      if (auth.method !== 'XOAUTH2' || auth.username !== MAILBOX || !stand.accepts(auth.accessToken ?? '')) {
        // Gmail's answer to a bad bearer token: a JSON challenge, then 535.
        return cb(null, { data: { status: '401', schemes: 'bearer', scope: 'https://mail.google.com/' } });
      }
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        sent.push({ mail: await simpleParser(Buffer.concat(chunks)), user: String(session.user), token: '' });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as net.AddressInfo).port;
  process.env.GOOGLE_OAUTH_CLIENT_ID = 'parley-mail.apps.googleusercontent.com';
  process.env.GOOGLE_OAUTH_CLIENT_SECRET = 'mail-secret';
  process.env.GOOGLE_ACCOUNTS_BASE = stand.base;
  process.env.GOOGLE_OAUTH_BASE = stand.base;
  process.env.GOOGLE_API_BASE = stand.base;
  process.env.MICROSOFT_OAUTH_CLIENT_ID = 'parley-mail.apps.googleusercontent.com';
  process.env.MICROSOFT_OAUTH_CLIENT_SECRET = 'mail-secret';
  process.env.MICROSOFT_OAUTH_TENANT = 'organizations';
  process.env.MICROSOFT_LOGIN_BASE = stand.base;
  resetSingleton('config');
  app = await startTestApp();
});

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

afterAll(async () => {
  await app?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
  await new Promise<void>((r) => imap.close(() => r()));
  await stand.close();
  for (const k of [
    'GOOGLE_OAUTH_CLIENT_ID',
    'GOOGLE_OAUTH_CLIENT_SECRET',
    'GOOGLE_ACCOUNTS_BASE',
    'GOOGLE_OAUTH_BASE',
    'GOOGLE_API_BASE',
    'MICROSOFT_OAUTH_CLIENT_ID',
    'MICROSOFT_OAUTH_CLIENT_SECRET',
    'MICROSOFT_OAUTH_TENANT',
    'MICROSOFT_LOGIN_BASE',
  ])
    delete process.env[k];
  resetSingleton('config');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function waitFor<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Settings → Emails → Connect with …: the form post, the provider's consent page, the callback. */
async function connect(provider: 'google' | 'microsoft', a: Awaited<ReturnType<typeof createTestAccount>>, form: Record<string, string> = {}) {
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const start = await app.request(`/settings/emails/connect/${provider}`, { domain: a.domain, cookie, form: { intent: 'connect', ...form } });
  expect(start.status).toBe(302);
  const consent = new URL(start.headers.location!);
  const back = await fetch(consent, { redirect: 'manual' });
  expect(back.status).toBe(302);
  const callback = new URL(back.headers.get('location')!);
  const done = await app.request(`${callback.pathname}${callback.search}`, { domain: a.domain, cookie });
  return { consent, callback, done, cookie };
}

/** The stand-in servers listen on loopback without TLS; the connected inbox points at imap.gmail.com and smtp.gmail.com. */
async function pointAtLocalServers(accountId: number, inboxId: number) {
  await getDb()
    .update(schema.inboxes)
    .set({
      settings: sql`jsonb_set(jsonb_set(${schema.inboxes.settings}, '{imap}', (${schema.inboxes.settings}->'imap') || ${JSON.stringify({
        host: '127.0.0.1',
        port: imapPort,
        secure: false,
        tls: 'none',
      })}::jsonb), '{smtp}', (${schema.inboxes.settings}->'smtp') || ${JSON.stringify({
        host: '127.0.0.1',
        port: smtpPort,
        secure: false,
        tls: 'none',
      })}::jsonb)`,
    })
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, inboxId)));
}

async function appendMail(raw: string) {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port: imapPort,
    secure: false,
    auth: { user: MAILBOX, accessToken: imapUsers[MAILBOX].xoauth2!.accessToken },
    logger: false,
  });
  await c.connect();
  await c.append('INBOX', raw);
  await c.logout();
}

describe('Gmail over OAuth', () => {
  it('connects with Google, reads mail over IMAP XOAUTH2, replies over SMTP XOAUTH2, refreshes a lapsing token, and shows a revoked grant', async () => {
    const a = await createTestAccount();
    const { consent, callback, done } = await connect('google', a);
    // Google's consent URL: the full mail scope, offline access, consent again (so a refresh token comes every time).
    expect(consent.pathname).toBe('/o/oauth2/v2/auth');
    expect(consent.searchParams.get('scope')).toBe('https://mail.google.com/ email');
    expect(consent.searchParams.get('access_type')).toBe('offline');
    expect(consent.searchParams.get('prompt')).toBe('consent');
    expect(consent.searchParams.get('redirect_uri')).toBe(`http://${a.domain}.localhost:3000/settings/emails/connect/google`);
    expect(callback.pathname).toBe('/settings/emails/connect/google');
    expect(done.status).toBe(302);
    const inboxId = Number(/\/settings\/emails\/(\d+)$/.exec(done.headers.location ?? '')?.[1]);
    expect(inboxId).toBeGreaterThan(0);

    const inbox = (await getInbox({ accountId: a.account.id, id: inboxId }))!;
    const s = readEmailSettings(inbox);
    expect(inbox.email).toBe(MAILBOX);
    expect(s.mode).toBe('imap');
    expect(s.imap).toMatchObject({ host: 'imap.gmail.com', port: 993, secure: true, user: MAILBOX, auth: 'xoauth2', password: '' });
    expect(s.smtp).toMatchObject({ host: 'smtp.gmail.com', port: 465, secure: true, user: MAILBOX, auth: 'xoauth2', password: '' });
    // Sealed: the row holds no token in the clear, and they open only as this account's mail grant.
    expect(s.oauth!.refreshToken).toMatch(/^v1\./);
    expect(s.oauth!.accessToken).toMatch(/^v1\./);
    expect(JSON.stringify(inbox.settings)).not.toMatch(/ya29\.|1\/\//);
    expect(openSecret(s.oauth!.accessToken, { accountId: a.account.id, purpose: 'email-oauth' })).toMatch(/^ya29\./);

    // A state from another session (or forged) is refused.
    const other = await createTestAccount();
    const otherCookie = await sessionCookie({ domain: other.domain, accountId: other.account.id, userId: other.owner.id });
    expect(
      (
        await app.request(`${callback.pathname}?code=x&state=${encodeURIComponent(callback.searchParams.get('state')!)}`, {
          domain: other.domain,
          cookie: otherCookie,
        })
      ).status,
    ).toBe(400);

    // Receiving: the IMAP manager logs in with XOAUTH2 and takes new mail.
    await pointAtLocalServers(a.account.id, inboxId);
    manager = await startImapManager({ minBackoffMs: 50 });
    await waitFor(() => manager!.status().connected.includes(inboxId));
    await waitFor(async () => readEmailSettings((await getInbox({ accountId: a.account.id, id: inboxId }))!).imap?.lastUid !== undefined);
    await appendMail(
      'From: Cara <cara@example.test>\r\nTo: support@gmail.test\r\nSubject: Where is my order?\r\nMessage-ID: <order-1@example.test>\r\n\r\nIt has not come.\r\n',
    );
    const conversation = await waitFor(
      async () => (await getDb().select().from(schema.conversations).where(eq(schema.conversations.accountId, a.account.id)))[0],
    );
    expect(conversation.subject).toBe('Where is my order?');
    await manager.stop();
    manager = undefined;

    // Replying: SMTP XOAUTH2 with the grant's access token.
    const reply = await postMessage({
      accountId: a.account.id,
      actorId: a.owner.id,
      conversationId: conversation.id,
      kind: 'outgoing',
      text: 'It left today.',
    });
    await deliverMessage({ messageId: reply.id });
    expect(sent).toHaveLength(1);
    expect(sent[0].user).toBe(MAILBOX);
    expect(sent[0].mail.from?.value[0].address).toBe(MAILBOX);
    expect(sent[0].mail.text).toContain('It left today.');
    expect(smtpLogins.every((m) => m === 'XOAUTH2')).toBe(true);

    // A token about to lapse is refreshed (grant_type=refresh_token) before use, and the new one stored sealed.
    await getDb()
      .update(schema.inboxes)
      .set({ settings: sql`jsonb_set(${schema.inboxes.settings}, '{oauth,expiresAt}', ${JSON.stringify(new Date(Date.now() + 60_000).toISOString())}::jsonb)` })
      .where(eq(schema.inboxes.id, inboxId));
    const before = stand.refreshCount();
    // Two nodes at once: one refresh, both get its token (the row lock).
    const [t1, t2] = await Promise.all([mailAccessToken({ accountId: a.account.id, inboxId }), mailAccessToken({ accountId: a.account.id, inboxId })]);
    expect(stand.refreshCount()).toBe(before + 1);
    expect(t1).toBe(t2);
    const refreshed = readEmailSettings((await getInbox({ accountId: a.account.id, id: inboxId }))!).oauth!;
    expect(openSecret(refreshed.accessToken, { accountId: a.account.id, purpose: 'email-oauth' })).toBe(t1);
    expect(Date.parse(refreshed.expiresAt)).toBeGreaterThan(Date.now() + 3000_000);
    const second = await postMessage({
      accountId: a.account.id,
      actorId: a.owner.id,
      conversationId: conversation.id,
      kind: 'outgoing',
      text: 'Tracking number follows.',
    });
    await deliverMessage({ messageId: second.id });
    expect(sent).toHaveLength(2);

    // The user removes Parley's access at Google: the next refresh answers invalid_grant.
    stand.revokeAll();
    await getDb()
      .update(schema.inboxes)
      .set({ settings: sql`jsonb_set(${schema.inboxes.settings}, '{oauth,expiresAt}', ${JSON.stringify(new Date(Date.now() - 1000).toISOString())}::jsonb)` })
      .where(eq(schema.inboxes.id, inboxId));
    const third = await postMessage({
      accountId: a.account.id,
      actorId: a.owner.id,
      conversationId: conversation.id,
      kind: 'outgoing',
      text: 'Are you there?',
    });
    // Sending says plainly that it failed, and why.
    await expect(deliverMessage({ messageId: third.id })).rejects.toThrow(/Google no longer accepts Parley's access/);
    const [failed] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, third.id));
    expect(failed.deliveryStatus).toBe('failed');
    expect(failed.deliveryError).toMatch(/reconnect with Google/);
    // The inbox's health shows it, with Reconnect; the admins were told.
    const health = await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, inboxId));
    expect(health.find((h) => h.part === 'smtp')?.lastError).toMatch(/no longer accepts/);
    expect(health.find((h) => h.part === 'imap')?.lastError).toMatch(/no longer accepts/);
    const notes = await getDb().select().from(schema.notifications).where(eq(schema.notifications.accountId, a.account.id));
    expect(notes.some((n) => /Sending mail \(SMTP\) is failing/.test(n.title) && /no longer accepts/.test(n.body ?? ''))).toBe(true);
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const page = await app.request(`/settings/emails/${inboxId}`, { domain: a.domain, cookie });
    expect(page.text).toContain('Access revoked');
    expect(page.text).toContain('Reconnect with Google');

    // Reconnect: the same inbox gets the new grant, and works again.
    const again = await connect('google', a, { inboxId: String(inboxId) });
    expect(again.done.headers.location).toBe(`/settings/emails/${inboxId}`);
    const reconnected = readEmailSettings((await getInbox({ accountId: a.account.id, id: inboxId }))!);
    expect(reconnected.oauth!.revokedAt).toBeNull();
    expect(reconnected.imap!.host).toBe('imap.gmail.com');
    expect(await getDb().select().from(schema.channelHealth).where(eq(schema.channelHealth.inboxId, inboxId))).toHaveLength(0);
  });

  it('says plainly when the operator has not set up Google, and never shows a button that cannot work', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    let page = await app.request('/settings/emails', { domain: a.domain, cookie });
    expect(page.text).toContain('Connect with Google');
    expect(page.text).toContain('data-testid="connect-google"');
    delete process.env.GOOGLE_OAUTH_CLIENT_ID;
    delete process.env.MICROSOFT_OAUTH_CLIENT_ID;
    resetSingleton('config');
    try {
      page = await app.request('/settings/emails', { domain: a.domain, cookie });
      expect(page.text).not.toContain('data-testid="connect-google"');
      expect(page.text).toContain('GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET');
      expect(page.text).toContain('MICROSOFT_OAUTH_CLIENT_ID and MICROSOFT_OAUTH_CLIENT_SECRET');
      const post = await app.request('/settings/emails/connect/google', { domain: a.domain, cookie, form: { intent: 'connect' } });
      expect(post.status).toBe(302);
      expect(post.headers.location).toBe('/settings/emails');
    } finally {
      process.env.GOOGLE_OAUTH_CLIENT_ID = 'parley-mail.apps.googleusercontent.com';
      process.env.MICROSOFT_OAUTH_CLIENT_ID = 'parley-mail.apps.googleusercontent.com';
      resetSingleton('config');
    }
  });
});

describe('Microsoft 365 over OAuth', () => {
  it('connects through the tenant endpoints with the Outlook IMAP and SMTP scopes, and keeps a rotated refresh token', async () => {
    const a = await createTestAccount();
    const { consent, done } = await connect('microsoft', a);
    expect(consent.pathname).toBe('/organizations/oauth2/v2.0/authorize');
    expect(consent.searchParams.get('scope')).toBe(
      'https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access email',
    );
    expect(done.status).toBe(302);
    const inboxId = Number(/\/settings\/emails\/(\d+)$/.exec(done.headers.location ?? '')?.[1]);
    const s = readEmailSettings((await getInbox({ accountId: a.account.id, id: inboxId }))!);
    expect(s.imap).toMatchObject({ host: 'outlook.office365.com', port: 993, secure: true, auth: 'xoauth2', user: MAILBOX });
    expect(s.smtp).toMatchObject({ host: 'smtp.office365.com', port: 587, secure: false, tls: 'starttls', auth: 'xoauth2' });
    const firstRefresh = s.oauth!.refreshToken;
    await mailAccessToken({ accountId: a.account.id, inboxId, renew: true });
    const after = readEmailSettings((await getInbox({ accountId: a.account.id, id: inboxId }))!).oauth!;
    expect(after.refreshToken).not.toBe(firstRefresh);
    // The rotated one works for the next refresh.
    await expect(mailAccessToken({ accountId: a.account.id, inboxId, renew: true })).resolves.toMatch(/^eyJ0eXAi\./);
  });
});
