import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { forwardingAddress } from '../../app/models/email/addresses.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { ingestEmail } from '../../app/models/email/inbound.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { AccountSuspendedError } from '../../app/models/accounts/suspension.server';
import { deleteAccount, resumeAccount, suspendAccount } from '../../app/models/operations/accounts.server';
import { writeStoredFile, getFileStorage } from '../../app/models/storage/files.server';
import { startInboundSmtp } from '../../server/smtp-inbound';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { runScript } from '../helpers/process';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-operator-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;
let smtp: Awaited<ReturnType<typeof startInboundSmtp>>;
beforeAll(async () => {
  app = await startTestApp();
  smtp = await startInboundSmtp({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await smtp.close();
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const actor = { kind: 'cli' as const };
const raw = (subject: string) => Buffer.from(`From: Ada <ada@example.test>\r\nTo: support@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}-${Date.now()}@example.test>\r\n\r\nHello`);
const conversationCount = async (accountId: number) =>
  (await getDb().select({ n: sql<number>`count(*)::int` }).from(schema.conversations).where(eq(schema.conversations.accountId, accountId)))[0].n;

function widgetSession(inboxId: number) {
  const body = JSON.stringify({ inboxId });
  const appHost = process.env.APP_HOST ?? 'localhost:3000';
  return new Promise<{ status: number; text: string; retryAfter?: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: app.port, path: '/public/widget/session', method: 'POST', headers: { host: appHost, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, retryAfter: res.headers['retry-after'] as string | undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('suspending an account', () => {
  it('refuses email (ingestion and SMTP 451) and the widget (503) while suspended, stores nothing, and takes both again once resumed', async () => {
    const a = await createTestAccount();
    const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
    const web = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Site' });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });

    expect(await suspendAccount({ accountId: a.account.id, actor })).toBe(true);
    expect(await suspendAccount({ accountId: a.account.id, actor })).toBe(false);
    const before = await conversationCount(a.account.id);
    await expect(ingestEmail({ inbox, raw: raw('While suspended'), via: 'http' })).rejects.toBeInstanceOf(AccountSuspendedError);
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
    await expect(mailer.sendMail({ from: 'ada@example.test', to: forwardingAddress(inbox)!, subject: 'Suspended', text: 'x' })).rejects.toMatchObject({ responseCode: 451 });
    const widget = await widgetSession(web.id);
    expect(widget.status).toBe(503);
    expect(widget.retryAfter).toBeTruthy();
    expect(await conversationCount(a.account.id)).toBe(before);
    // The account's users see the suspended page, not a 404 or a 500.
    const page = await app.request('/home', { domain: a.domain, cookie, accept: 'text/html' });
    expect(page.status).toBe(503);
    expect(page.text).toContain('This account is suspended');

    expect(await resumeAccount({ accountId: a.account.id, actor })).toBe(true);
    await mailer.sendMail({ from: 'ada@example.test', to: forwardingAddress(inbox)!, subject: 'After resume', text: 'x' });
    expect(await conversationCount(a.account.id)).toBe(before + 1);
    expect((await widgetSession(web.id)).status).toBe(200);
    expect((await app.request('/home', { domain: a.domain, cookie, accept: 'text/html' })).status).toBe(200);
    mailer.close();
    const entries = await getDb().select().from(schema.operatorAuditEntries).where(eq(schema.operatorAuditEntries.accountId, a.account.id));
    expect(entries.map((e) => e.action).sort()).toEqual(['account.resume', 'account.suspend']);
  });
});

describe('deleting an account', () => {
  it('refuses a wrong domain, then exports, deletes every row and stored file of the account and writes the audit entry', async () => {
    const a = await createTestAccount();
    const other = await createTestAccount();
    const inbox = await createEmailInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', email: `support@${a.domain}.test`, mode: 'forwarding' });
    await ingestEmail({ inbox, raw: raw('To be deleted'), via: 'http' });
    const { storageKey } = await writeStoredFile(a.account.id, Buffer.from('a file of the account'));
    const { storageKey: otherKey } = await writeStoredFile(other.account.id, Buffer.from('a file of another account'));

    await expect(deleteAccount({ accountId: a.account.id, actor, confirmDomain: 'wrong' })).rejects.toThrow(/Type the account's domain/);
    expect(await getFileStorage().exists(storageKey)).toBe(true);

    const result = await deleteAccount({ accountId: a.account.id, actor, confirmDomain: a.domain.toUpperCase() });
    expect(result?.archive.sizeBytes).toBeGreaterThan(0);
    expect(fs.existsSync(result!.archive.path)).toBe(true);
    expect(await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, a.account.id))).toEqual([]);
    for (const table of [schema.users, schema.conversations, schema.inboxes, schema.domainEvents, schema.conversationCountDeltas])
      expect(await getDb().select({ n: sql<number>`count(*)::int` }).from(table).where(sql`account_id = ${a.account.id}`)).toEqual([{ n: 0 }]);
    expect(await getFileStorage().exists(storageKey)).toBe(false);
    expect(await getFileStorage().exists(otherKey)).toBe(true);
    expect(await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, other.account.id))).toHaveLength(1);
    const [entry] = await getDb().select().from(schema.operatorAuditEntries).where(eq(schema.operatorAuditEntries.accountId, a.account.id));
    expect(entry).toMatchObject({ action: 'account.delete', actor: 'command line', accountDomain: a.domain });
    expect(entry.details.export).toBe(result!.archive.path);
  });
});

describe('npm run parley -- operator', () => {
  const parley = (...args: string[]) => runScript('server/cli.ts', args, { ...process.env, DATABASE_URL: process.env.DATABASE_URL, PARLEY_DATA_DIR: dataDir });

  it('adds an operator with a set-password link, lists and removes it, and says plainly what it cannot do', async () => {
    const email = `ops-${Date.now()}@example.test`;
    const added = await parley('operator', 'add', email);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`${email} is now an operator.`);
    expect(added.stdout).toMatch(/\/operator\/set-password\?token=[\w-]{20,}/);
    const [row] = await getDb().select().from(schema.operators).where(eq(schema.operators.email, email));
    expect(row.setupTokenHash).toBeTruthy();
    expect(row.passwordHash).toBeNull();
    // The token is stored hashed only.
    expect(added.stdout).not.toContain(row.setupTokenHash!);

    const again = await parley('operator', 'add', email);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is already an operator');
    expect((await parley('operator', 'add', 'not-an-email')).code).toBe(1);

    const list = await parley('operator', 'list');
    expect(list.stdout).toContain(email);
    expect(list.stdout).toContain('not set yet');

    const removed = await parley('operator', 'remove', email);
    expect(removed.code).toBe(0);
    expect(await getDb().select().from(schema.operators).where(eq(schema.operators.email, email))).toEqual([]);
    expect((await parley('operator', 'remove', email)).code).toBe(1);
    const actions = await getDb().select({ action: schema.operatorAuditEntries.action }).from(schema.operatorAuditEntries).where(sql`details->>'operator' = ${email}`);
    expect(actions.map((r) => r.action).sort()).toEqual(['operator.add', 'operator.remove']);
  }, 120_000); // six CLI runs, each starting tsx: 30 s is too short on a loaded 2-core machine
});

describe('the console over HTTP', () => {
  it('signs an operator in on the bare host, serves its screens, acts on an account, and refuses everyone else', async () => {
    const { addOperator, setOperatorPassword } = await import('../../app/models/operations/operators.server');
    const email = `console-${Date.now()}@example.test`;
    const { token } = await addOperator({ email });
    expect(await setOperatorPassword({ token, password: 'operator-secret-1' })).toBeTruthy();
    expect(await setOperatorPassword({ token, password: 'operator-secret-2' })).toBeNull();
    const a = await createTestAccount();

    // Nobody signed in, and an account user's own cookie: the sign-in page. On an account's host: no console at all.
    expect((await app.request('/operator')).headers.location).toBe('/operator/signin');
    const userCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    expect((await app.request('/operator', { cookie: userCookie })).headers.location).toBe('/operator/signin');
    expect((await app.request('/operator', { domain: a.domain, cookie: userCookie })).status).toBe(404);

    const wrong = await app.request('/operator/signin', { form: { email, password: 'nope' } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Invalid email or password');
    const signin = await app.request('/operator/signin', { form: { email, password: 'operator-secret-1' } });
    expect(signin.status).toBe(302);
    const cookie = String(signin.headers['set-cookie']).split(';')[0];
    expect(cookie).toMatch(/^__parley_operator=/);
    // The operator's cookie is host-only and means nothing on an account's host.
    expect(String(signin.headers['set-cookie'])).not.toMatch(/domain=/i);

    for (const p of ['/operator', `/operator?q=${a.domain}`, `/operator/accounts/${a.account.id}`, `/operator/accounts/${a.account.id}/delete`, '/operator/audit', '/operator/status']) {
      const res = await app.request(p, { cookie });
      expect(res.status, p).toBe(200);
    }
    expect((await app.request(`/operator?q=${a.domain}`, { cookie })).text).toContain(a.domain);
    expect((await app.request('/operator/accounts/999999999', { cookie })).status).toBe(404);

    const suspend = await app.request(`/operator/accounts/${a.account.id}`, { cookie, form: { intent: 'suspend' } });
    expect(suspend.status).toBe(302);
    expect((await app.request('/home', { domain: a.domain, cookie: userCookie, accept: 'text/html' })).status).toBe(503);
    await app.request(`/operator/accounts/${a.account.id}`, { cookie, form: { intent: 'resume' } });
    expect((await app.request('/home', { domain: a.domain, cookie: userCookie, accept: 'text/html' })).status).toBe(200);
    expect((await app.request(`/operator/accounts/${a.account.id}`, { cookie, form: { intent: 'plan', plan: 'no-such-plan' } })).status).toBe(400);
    const plan = await app.request(`/operator/accounts/${a.account.id}`, { cookie, form: { intent: 'plan', plan: 'free' } });
    expect(plan.status).toBe(302);
    const [after] = await getDb().select({ key: schema.plans.key }).from(schema.accounts).innerJoin(schema.plans, eq(schema.plans.id, schema.accounts.planId)).where(eq(schema.accounts.id, a.account.id));
    expect(after.key).toBe('free');
    expect((await app.request(`/operator/accounts/${a.account.id}`, { cookie, form: { intent: 'bogus' } })).status).toBe(400);
    const mismatch = await app.request(`/operator/accounts/${a.account.id}/delete`, { cookie, form: { confirmDomain: 'nope' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('to confirm');
    expect((await app.request(`/operator/accounts/${a.account.id}/delete`, { cookie, form: { confirmDomain: a.domain } })).status).toBe(302);
    expect(await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, a.account.id))).toEqual([]);
    const audit = await app.request('/operator/audit', { cookie });
    for (const label of ['Account suspended', 'Account resumed', 'Plan changed', 'Account deleted', 'Operator signed in']) expect(audit.text).toContain(label);

    await app.request('/operator/signout', { cookie, form: {} });
    expect((await app.request('/operator', { cookie })).headers.location).toBe('/operator/signin');
  });
});
