import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { totpCode } from '../../app/models/auth/totp.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startSmtpSink } from '../helpers/smtp-sink';

let app: Awaited<ReturnType<typeof startTestApp>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await smtp?.stop();
});

type Res = Awaited<ReturnType<typeof app.request>>;

/** The session cookie a response sets (or the one sent, when it sets none). */
function cookieFrom(res: Res, name = '__parley_session') {
  const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const found = set.find((c) => c.startsWith(`${name}=`));
  return found ? found.split(';')[0] : undefined;
}

async function signIn(domain: string, email: string) {
  const res = await app.request('/signin', { domain, form: { email, password: TEST_PASSWORD } });
  expect(res.status).toBe(302);
  return { location: res.headers.location, cookie: cookieFrom(res)! };
}

const secretOf = (html: string) => /data-testid="totp-secret">([A-Z2-7 ]+)</.exec(html)?.[1].replace(/ /g, '');
const recoveryCodesOf = (html: string) => [...html.matchAll(/<code>([a-z2-7]{5}-[a-z2-7]{5})<\/code>/g)].map((m) => m[1]);

/** Waits for a mail to `to` whose subject matches, in the SMTP sink. */
async function mailTo(to: string, subject: RegExp, after = 0) {
  for (let i = 0; i < 100; i++) {
    const found = smtp.received.slice(after).find((m) => m.to.includes(to.toLowerCase()) && subject.test(m.mail.subject ?? ''));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`No mail to ${to} matching ${subject}`);
}

async function userRow(userId: number) {
  const [u] = await getDb().select().from(schema.users).where(eq(schema.users.id, userId));
  return u;
}

/** Sets the authenticator app up through My Settings › Security and answers its secret and recovery codes. */
async function setUpApp(s: { domain: string }, cookie: string) {
  const page = await app.request('/settings/security?setup=app', { domain: s.domain, cookie });
  expect(page.status).toBe(200);
  const secret = secretOf(page.text)!;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const on = await app.request('/settings/security?setup=app', { domain: s.domain, cookie, form: { intent: 'totp-confirm', code: totpCode(secret) } });
  expect(on.status).toBe(200);
  const codes = recoveryCodesOf(on.text);
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

describe('two-factor sign-in with an authenticator app', () => {
  it('is set up with a confirmed code, asked after the password, refuses a replayed code and takes each recovery code once', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });

    const page = await app.request('/settings/security?setup=app', { domain: s.domain, cookie });
    expect(page.text).toContain('data-testid="totp-uri"');
    const secret = secretOf(page.text)!;
    const wrong = await app.request('/settings/security?setup=app', { domain: s.domain, cookie, form: { intent: 'totp-confirm', code: '000000' === totpCode(secret) ? '111111' : '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The code is not right');
    expect((await userRow(s.owner.id)).twoFactorMethod).toBeNull();

    const setupCode = totpCode(secret);
    const on = await app.request('/settings/security?setup=app', { domain: s.domain, cookie, form: { intent: 'totp-confirm', code: setupCode } });
    expect(on.status).toBe(200);
    const codes = recoveryCodesOf(on.text);
    expect(codes).toHaveLength(10);
    const row = await userRow(s.owner.id);
    expect(row.twoFactorMethod).toBe('totp');
    // Sealed with the secret box, never stored as typed; recovery codes only as hashes.
    expect(row.totpSecret).toMatch(/^v1\./);
    expect(row.totpSecret).not.toContain(secret);
    const stored = await getDb().select().from(schema.recoveryCodes).where(eq(schema.recoveryCodes.userId, s.owner.id));
    expect(stored).toHaveLength(10);
    for (const c of codes) expect(stored.map((r) => r.codeHash)).not.toContain(c);
    // Shown once: the page shows them no more.
    expect(recoveryCodesOf((await app.request('/settings/security', { domain: s.domain, cookie })).text)).toHaveLength(0);

    // The password alone opens no page.
    const first = await signIn(s.domain, s.email);
    expect(first.location).toBe('/two-factor');
    const blocked = await app.request('/home', { domain: s.domain, cookie: first.cookie });
    expect(blocked.status).toBe(302);
    expect(blocked.headers.location).toBe('/two-factor');
    expect((await app.request('/two-factor', { domain: s.domain, cookie: first.cookie })).status).toBe(200);
    const newest = async () => (await getDb().select().from(schema.sessions).where(eq(schema.sessions.userId, s.owner.id)).orderBy(sql`created_at desc`).limit(1))[0];
    // A session waiting for its second step lives half an hour at most.
    expect((await newest()).expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);

    // The code accepted at setup cannot be used again within its window.
    const replay = await app.request('/two-factor', { domain: s.domain, cookie: first.cookie, form: { intent: 'verify', code: setupCode } });
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('already used');

    const next = totpCode(secret, Date.now() + 30_000);
    const ok = await app.request('/two-factor', { domain: s.domain, cookie: first.cookie, form: { intent: 'verify', code: next } });
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe('/home');
    expect((await app.request('/home', { domain: s.domain, cookie: first.cookie })).status).toBe(200);
    expect((await newest()).pendingStep).toBeNull();
    expect((await newest()).expiresAt.getTime() - Date.now()).toBeGreaterThan(11 * 3600_000);

    // The same code on another sign-in: refused.
    const second = await signIn(s.domain, s.email);
    const again = await app.request('/two-factor', { domain: s.domain, cookie: second.cookie, form: { intent: 'verify', code: next } });
    expect(again.status).toBe(400);
    expect((await app.request('/home', { domain: s.domain, cookie: second.cookie })).headers.location).toBe('/two-factor');

    // A recovery code signs in once.
    const viaRecovery = await app.request('/two-factor', { domain: s.domain, cookie: second.cookie, form: { intent: 'verify', code: codes[0].toUpperCase() } });
    expect(viaRecovery.status).toBe(302);
    expect((await app.request('/home', { domain: s.domain, cookie: second.cookie })).status).toBe(200);
    const third = await signIn(s.domain, s.email);
    const reused = await app.request('/two-factor', { domain: s.domain, cookie: third.cookie, form: { intent: 'verify', code: codes[0] } });
    expect(reused.status).toBe(400);
    expect(reused.text).toContain('already used');
    expect((await app.request('/settings/security', { domain: s.domain, cookie: first.cookie })).text).toContain('9 of 10 recovery codes left');
  });

  it('refuses even the right code with a 429 after five wrong ones within 15 minutes', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const { secret } = await setUpApp(s, cookie);
    const attempt = await signIn(s.domain, s.email);
    for (let i = 0; i < 5; i++) {
      const res = await app.request('/two-factor', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'verify', code: `99999${i}` === totpCode(secret) ? '888888' : `99999${i}` } });
      expect(res.status, `attempt ${i + 1}`).toBe(400);
    }
    const limited = await app.request('/two-factor', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'verify', code: totpCode(secret, Date.now() + 30_000) } });
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many attempts');
    expect((await app.request('/home', { domain: s.domain, cookie: attempt.cookie })).headers.location).toBe('/two-factor');
  });

  it('is turned off only with the password or a code', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const { secret } = await setUpApp(s, cookie);
    const nothing = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'disable' } });
    expect(nothing.status).toBe(400);
    const wrong = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'disable', password: 'not-the-password' } });
    expect(wrong.status).toBe(400);
    expect((await userRow(s.owner.id)).twoFactorMethod).toBe('totp');
    const byCode = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'disable', code: totpCode(secret, Date.now() + 30_000) } });
    expect(byCode.status).toBe(302);
    const row = await userRow(s.owner.id);
    expect(row.twoFactorMethod).toBeNull();
    expect(row.totpSecret).toBeNull();
    expect(await getDb().select().from(schema.recoveryCodes).where(eq(schema.recoveryCodes.userId, s.owner.id))).toHaveLength(0);
    // Signing in is one step again.
    expect((await signIn(s.domain, s.email)).location).toBe('/home');
  });
});

describe('two-factor sign-in with codes by email', () => {
  it('mails a code through SMTP to turn it on and at each sign-in; each code works once', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    let mark = smtp.received.length;
    const sent = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-send' } });
    expect(sent.status).toBe(200);
    const setupMail = await mailTo(s.email, /sign-in code/, mark);
    const setupCode = /(\d{6})/.exec(setupMail.mail.subject!)![1];
    expect(setupMail.mail.text).toContain('expires in 10 minutes');
    const on = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-confirm', code: setupCode } });
    expect(on.status).toBe(200);
    expect(recoveryCodesOf(on.text)).toHaveLength(10);
    expect((await userRow(s.owner.id)).twoFactorMethod).toBe('email');

    mark = smtp.received.length;
    const attempt = await signIn(s.domain, s.email);
    expect(attempt.location).toBe('/two-factor');
    const signinMail = await mailTo(s.email, /sign-in code/, mark);
    const code = /(\d{6})/.exec(signinMail.mail.subject!)![1];
    const page = await app.request('/two-factor', { domain: s.domain, cookie: attempt.cookie });
    expect(page.text).toContain('We sent a 6-digit code');
    const ok = await app.request('/two-factor', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'verify', code } });
    expect(ok.status).toBe(302);
    expect((await app.request('/home', { domain: s.domain, cookie: attempt.cookie })).status).toBe(200);

    const later = await signIn(s.domain, s.email);
    const reused = await app.request('/two-factor', { domain: s.domain, cookie: later.cookie, form: { intent: 'verify', code } });
    expect(reused.status).toBe(400);

    // The code expires after 10 minutes.
    mark = smtp.received.length;
    expect((await app.request('/two-factor', { domain: s.domain, cookie: later.cookie, form: { intent: 'resend' } })).status).toBe(302);
    const fresh = /(\d{6})/.exec((await mailTo(s.email, /sign-in code/, mark)).mail.subject!)![1];
    await getDb()
      .update(schema.verificationTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(schema.verificationTokens.userId, s.owner.id), eq(schema.verificationTokens.purpose, 'signin_code')));
    const expired = await app.request('/two-factor', { domain: s.domain, cookie: later.cookie, form: { intent: 'verify', code: fresh } });
    expect(expired.status).toBe(400);
    expect(expired.text).toContain('expired');
  });
});

describe('two-factor required by the account', () => {
  it('sends users without it to set it up at sign-in, and they cannot turn it off', async () => {
    const s = await createTestAccount();
    const ownerCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const agent = await createTestUser({ accountId: s.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: agent.id });
    const refused = await app.request('/settings/account-settings', { domain: s.domain, cookie: agentCookie, form: { intent: 'security', requireTwoFactor: 'on', idleSignOutMinutes: '0' } });
    expect(refused.status).toBe(403);
    const bad = await app.request('/settings/account-settings', { domain: s.domain, cookie: ownerCookie, form: { intent: 'security', idleSignOutMinutes: '7' } });
    expect(bad.status).toBe(400);
    const saved = await app.request('/settings/account-settings', { domain: s.domain, cookie: ownerCookie, form: { intent: 'security', requireTwoFactor: 'on', idleSignOutMinutes: '0' } });
    expect(saved.status).toBe(302);
    const [account] = await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, s.account.id));
    expect(account.settings.requireTwoFactor).toBe(true);
    expect((await app.request('/settings/account-settings', { domain: s.domain, cookie: ownerCookie })).text).toMatch(/name="requireTwoFactor"[^>]*checked/);

    const attempt = await signIn(s.domain, agent.email);
    expect(attempt.location).toBe('/two-factor-setup');
    const blocked = await app.request('/inbox', { domain: s.domain, cookie: attempt.cookie });
    expect(blocked.headers.location).toBe('/two-factor-setup');
    const setup = await app.request('/two-factor-setup', { domain: s.domain, cookie: attempt.cookie });
    expect(setup.status).toBe(200);
    const secret = secretOf(setup.text)!;
    const done = await app.request('/two-factor-setup', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'totp-confirm', code: totpCode(secret) } });
    expect(done.status, done.headers.location).toBe(200);
    expect(recoveryCodesOf(done.text)).toHaveLength(10);
    // Shown, and only then does the session open the app.
    expect((await app.request('/home', { domain: s.domain, cookie: attempt.cookie })).headers.location).toBe('/two-factor-setup');
    const onward = await app.request('/two-factor-setup', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'continue', redirectTo: '' } });
    expect(onward.headers.location).toBe('/home');
    expect((await app.request('/home', { domain: s.domain, cookie: attempt.cookie })).status).toBe(200);
    const off = await app.request('/settings/security', { domain: s.domain, cookie: attempt.cookie, form: { intent: 'disable', password: TEST_PASSWORD } });
    expect(off.status).toBe(400);
    expect(off.text).toContain('requires two-factor');
    expect((await userRow(agent.id)).twoFactorMethod).toBe('totp');
    // Next time: the second step, no longer the setup.
    expect((await signIn(s.domain, agent.email)).location).toBe('/two-factor');
  });
});

describe('email change', () => {
  it('changes the address only when the link mailed to the new one is followed, and tells the old one', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const other = await createTestUser({ accountId: s.account.id });
    const newEmail = `new-${s.domain}@example.test`;
    const wrongPassword = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-change', newEmail, password: 'nope-nope' } });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.text).toContain('Current password is incorrect');
    const taken = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-change', newEmail: other.email, password: TEST_PASSWORD } });
    expect(taken.status).toBe(400);
    const invalid = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-change', newEmail: 'not-an-email', password: TEST_PASSWORD } });
    expect(invalid.status).toBe(400);

    const mark = smtp.received.length;
    const asked = await app.request('/settings/security', { domain: s.domain, cookie, form: { intent: 'email-change', newEmail, password: TEST_PASSWORD } });
    expect(asked.status).toBe(302);
    expect((await userRow(s.owner.id)).email).toBe(s.email);
    const confirmMail = await mailTo(newEmail, /Confirm your new Parley email/, mark);
    const link = /(http:\/\/\S+\/confirm-email\?token=\S+)/.exec(confirmMail.mail.text!)![1];
    const path = new URL(link).pathname + new URL(link).search;
    expect(new URL(link).host).toBe(`${s.domain}.${process.env.APP_HOST ?? 'localhost:3000'}`);

    // Opening the link changes nothing; the button does.
    const page = await app.request(path, { domain: s.domain });
    expect(page.status).toBe(200);
    expect(page.text).toContain(newEmail);
    expect((await userRow(s.owner.id)).email).toBe(s.email);
    const token = new URL(link).searchParams.get('token')!;
    const confirmed = await app.request('/confirm-email', { domain: s.domain, cookie, form: { token } });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.location).toBe('/settings/security');
    const toastCookie = cookieFrom(confirmed, '__parley_toast')!;
    const after = await app.request('/settings/security', { domain: s.domain, cookie: `${cookie}; ${toastCookie}` });
    expect(after.text).toContain('Email Changed Successfully');
    expect((await userRow(s.owner.id)).email).toBe(newEmail);
    const notice = await mailTo(s.email, /email address was changed/, mark);
    expect(notice.mail.text).toContain(newEmail);

    // The link works once; the new address signs in.
    const again = await app.request('/confirm-email', { domain: s.domain, form: { token } });
    expect(again.status).toBe(400);
    expect((await signIn(s.domain, newEmail)).location).toBe('/home');
  });
});

describe('idle sign-out', () => {
  it('ends a session on the server once the account idle time has passed without activity', async () => {
    const s = await createTestAccount();
    const cookie = await sessionCookie({ domain: s.domain, accountId: s.account.id, userId: s.owner.id });
    const sessionId = async (c: string) => {
      const rows = await getDb().select().from(schema.sessions).where(eq(schema.sessions.userId, s.owner.id));
      return rows.find((r) => c.includes(encodeURIComponent(r.id)) || c.includes(r.id)) ?? rows[rows.length - 1];
    };
    const idle = (minutes: number) =>
      getDb()
        .update(schema.sessions)
        .set({ lastSeenAt: sql`now() - make_interval(mins => ${minutes})` })
        .where(eq(schema.sessions.userId, s.owner.id));
    // Off (the default): an old last activity ends nothing.
    await idle(600);
    expect((await app.request('/home', { domain: s.domain, cookie })).status).toBe(200);

    const saved = await app.request('/settings/account-settings', { domain: s.domain, cookie, form: { intent: 'security', idleSignOutMinutes: '15' } });
    expect(saved.status).toBe(302);
    expect((await app.request('/home', { domain: s.domain, cookie })).text).toContain('data-testid="idle-warning"');

    // Active 14 minutes ago: still signed in; the keep-alive ping moves the last activity to now.
    await idle(14);
    const ping = await app.request('/session/keep-alive', { domain: s.domain, cookie, method: 'POST', form: {} });
    expect(ping.status).toBe(200);
    expect(JSON.parse(ping.text)).toMatchObject({ ok: true, idleMs: 15 * 60_000 });
    expect(Date.now() - (await sessionId(cookie)).lastSeenAt.getTime()).toBeLessThan(10_000);

    // A page's data requests (live updates) do not count as activity.
    await idle(10);
    expect((await app.request('/home?_data=routes%2F_app', { domain: s.domain, cookie })).status).toBe(200);
    expect(Date.now() - (await sessionId(cookie)).lastSeenAt.getTime()).toBeGreaterThan(9 * 60_000);

    await idle(16);
    const ended = await app.request('/inbox', { domain: s.domain, cookie });
    expect(ended.status).toBe(302);
    expect(ended.headers.location).toBe('/signin?idle=1&redirectTo=%2Finbox');
    expect(cookieFrom(ended)).toBe('__parley_session=');
    expect((await sessionId(cookie)).revokedAt).not.toBeNull();
    // Gone for good, even if activity came later.
    await idle(0);
    expect((await app.request('/home', { domain: s.domain, cookie })).headers.location).toMatch(/^\/signin/);
    const signin = await app.request('/signin?idle=1', { domain: s.domain });
    expect(signin.text).toContain('you were signed out after a time without activity');
  });
});
