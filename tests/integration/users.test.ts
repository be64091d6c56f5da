import crypto from 'node:crypto';
import http from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { makePng } from '../helpers/png';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const appHost = () => process.env.APP_HOST ?? 'localhost:3000';

async function roleId(accountId: number, kind: 'owner' | 'admin' | 'agent') {
  const [role] = await getDb()
    .select()
    .from(schema.roles)
    .where(and(eq(schema.roles.accountId, accountId), eq(schema.roles.kind, kind)));
  return role.id;
}

async function userRow(id: number) {
  const [row] = await getDb().select().from(schema.users).where(eq(schema.users.id, id));
  return row;
}

/** An account with a signed-in owner, plus an agent. */
async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const ownerCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  return { ...a, agent, ownerCookie };
}

/** A multipart POST as a browser sends it, with the account's Host header. */
function postMultipart(opts: {
  path: string;
  domain: string;
  cookie: string;
  fields: Record<string, string>;
  file?: { name: string; filename: string; type: string; bytes: Buffer };
}) {
  const boundary = `----parley${crypto.randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(opts.fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (opts.file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${opts.file.name}"; filename="${opts.file.filename}"\r\nContent-Type: ${opts.file.type}\r\n\r\n`,
      ),
      opts.file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  const host = `${opts.domain}.${appHost()}`;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: opts.path,
        method: 'POST',
        headers: {
          host,
          origin: `http://${host}`,
          cookie: opts.cookie,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // The server may answer before it has read a too-large body; that is not an error here.
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(err)));
    req.end(body);
  });
}

describe('tenancy of the users pages', () => {
  it("does not let account A's owner read or change account B's users by URL or form", async () => {
    const a = await setup();
    const b = await setup();
    const before = await userRow(b.agent.id);

    const read = await app.request(`/settings/users/${b.agent.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(read.status).toBe(404);
    expect(read.text).toContain('Sorry, the page is not found!');
    // The same page for A's own agent works.
    const own = await app.request(`/settings/users/${a.agent.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(own.status).toBe(200);

    const bAgentRole = await roleId(b.account.id, 'agent');
    const posts: { path: string; form: Record<string, string> }[] = [
      { path: `/settings/users/${b.agent.id}`, form: { intent: 'update', firstName: 'Mallory', lastName: 'Hacked', roleId: String(bAgentRole) } },
      { path: `/settings/users/${b.agent.id}`, form: { intent: 'access', access: 'refuse' } },
      { path: `/settings/users/${b.agent.id}`, form: { intent: 'delete' } },
      { path: `/settings/users/${b.agent.id}`, form: { intent: 'resend' } },
      { path: '/settings/users?index', form: { intent: 'access', userId: String(b.agent.id), access: 'refuse' } },
      { path: '/settings/users?index', form: { intent: 'resend', userId: String(b.agent.id) } },
    ];
    for (const p of posts) {
      const res = await app.request(p.path, { domain: a.domain, cookie: a.ownerCookie, form: p.form });
      expect(res.status, `${p.path} ${p.form.intent}`).toBe(404);
    }
    const after = await userRow(b.agent.id);
    expect(after).toEqual(before);

    // A role of account B cannot be given to a user of account A either.
    const foreignRole = await app.request(`/settings/users/${a.agent.id}`, {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'update', firstName: 'Ari', lastName: 'Agent', roleId: String(bAgentRole) },
    });
    expect(foreignRole.status).toBe(400);
    expect((await userRow(a.agent.id)).roleId).toBe(await roleId(a.account.id, 'agent'));

    // No domain events were written about B's user by A.
    const events = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, a.account.id)).orderBy(schema.domainEvents.id);
    expect(events.filter((e) => e.subjectType === 'user' && e.subjectId === String(b.agent.id))).toHaveLength(0);
  });

  it('lists only the users of the account, with their status', async () => {
    const a = await setup();
    const b = await setup();
    const res = await app.request('/settings/users', { domain: a.domain, cookie: a.ownerCookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain(a.agent.email);
    expect(res.text).not.toContain(b.agent.email);
    expect(res.text).not.toContain(b.email);
  });
});

describe('the users list', () => {
  it('pages by 50 and sorts by a column, toggling to descending', async () => {
    const a = await setup();
    const agentRole = await roleId(a.account.id, 'agent');
    await getDb()
      .insert(schema.users)
      .values(
        Array.from({ length: 52 }, (_, i) => ({
          accountId: a.account.id,
          roleId: agentRole,
          email: `bulk${String(i).padStart(2, '0')}@example.test`,
          firstName: 'Bulk',
          lastName: `User${String(i).padStart(2, '0')}`,
          status: 'active' as const,
        })),
      );
    // 54 users: 50 on the first page, 4 on the second; the pager shows only when there is a second page.
    const emailsOf = (html: string) => [...html.matchAll(/<td>([^<]+@[^<]+)<\/td>/g)].map((m) => m[1]);
    const first = await app.request('/settings/users?sort=email', { domain: a.domain, cookie: a.ownerCookie });
    expect(first.status).toBe(200);
    const page1 = emailsOf(first.text);
    expect(page1).toHaveLength(50);
    expect(page1[0]).toBe('bulk00@example.test');
    expect(first.text).toContain('aria-label="Pagination"');
    const second = await app.request('/settings/users?sort=email&page=2', { domain: a.domain, cookie: a.ownerCookie });
    const page2 = emailsOf(second.text);
    expect(page2).toHaveLength(4);
    expect([...page1, ...page2].sort()).toEqual([...page1, ...page2].sort((x, y) => x.localeCompare(y)));
    const desc = await app.request('/settings/users?sort=email&dir=desc', { domain: a.domain, cookie: a.ownerCookie });
    const descEmails = emailsOf(desc.text);
    expect(descEmails[0]).toBe(a.agent.email);
    expect(descEmails).toEqual([...descEmails].sort((x, y) => y.localeCompare(x)));
    // An unknown column falls back to the default sort rather than failing.
    expect((await app.request('/settings/users?sort=passwordHash', { domain: a.domain, cookie: a.ownerCookie })).status).toBe(200);
  });
});

describe('avatars', () => {
  it('serves an avatar only to signed-in users of the same account', async () => {
    const a = await setup();
    const b = await setup();
    const png = makePng();
    await getDb().update(schema.users).set({ avatar: png, avatarType: 'image/png' }).where(eq(schema.users.id, b.agent.id));
    const bCookie = b.ownerCookie;

    const own = await app.request(`/avatars/${b.agent.id}`, { domain: b.domain, cookie: bCookie });
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('image/png');

    expect((await app.request(`/avatars/${b.agent.id}`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
    expect((await app.request(`/avatars/${b.agent.id}`, { domain: b.domain })).status).toBe(404);
    expect((await app.request(`/avatars/${b.agent.id}`, { domain: b.domain, cookie: a.ownerCookie })).status).toBe(404);
    expect((await app.request('/avatars/not-a-number', { domain: b.domain, cookie: bCookie })).status).toBe(404);
  });

  it('accepts a real PNG, refuses other bytes whatever their name, and refuses more than 1 MB', async () => {
    const a = await setup();
    const upload = (file: { filename: string; type: string; bytes: Buffer }) =>
      postMultipart({ path: '/settings/my-profile', domain: a.domain, cookie: a.ownerCookie, fields: { intent: 'avatar' }, file: { name: 'avatar', ...file } });

    const text = await upload({ filename: 'photo.png', type: 'image/png', bytes: Buffer.from('this is not an image at all\n'.repeat(10)) });
    expect(text.status).toBe(400);
    expect(text.text).toContain('Only JPEG and PNG images are allowed');

    const gif = await upload({ filename: 'photo.png', type: 'image/png', bytes: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1') });
    expect(gif.status).toBe(400);
    expect(gif.text).toContain('Only JPEG and PNG images are allowed');

    const big = await upload({ filename: 'big.png', type: 'image/png', bytes: Buffer.concat([makePng(), crypto.randomBytes(1024 * 1024 + 10)]) });
    expect(big.status).toBe(400);
    expect(big.text).toContain('Image must be at most 1 MB');
    expect((await userRow(a.owner.id)).avatar).toBeNull();

    const png = makePng(16, 16);
    const ok = await upload({ filename: 'no-extension', type: 'application/octet-stream', bytes: png });
    expect(ok.status).toBe(302);
    const served = await app.request(`/avatars/${a.owner.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Number(served.headers['content-length'])).toBe(png.length);

    const removed = await app.request('/settings/my-profile', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'remove-avatar' } });
    expect(removed.status).toBe(302);
    expect((await app.request(`/avatars/${a.owner.id}`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
  });
});

describe('who may manage users', () => {
  it("refuses an agent's requests to the users pages with 403", async () => {
    const a = await setup();
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.agent.id });
    const other = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentRole = String(await roleId(a.account.id, 'agent'));

    const page = await app.request('/settings/users', { domain: a.domain, cookie: agentCookie });
    expect(page.status).toBe(403);
    expect(page.text).toContain('403 - Unauthorized');
    expect((await app.request(`/settings/users/${other.id}`, { domain: a.domain, cookie: agentCookie })).status).toBe(403);

    const posts: { path: string; form: Record<string, string> }[] = [
      { path: '/settings/users?index', form: { intent: 'invite', email: 'new@example.test', firstName: 'New', lastName: 'Person', roleId: agentRole } },
      { path: '/settings/users?index', form: { intent: 'access', userId: String(other.id), access: 'refuse' } },
      { path: '/settings/users?index', form: { intent: 'resend', userId: String(other.id) } },
      { path: `/settings/users/${other.id}`, form: { intent: 'update', firstName: 'Changed', lastName: 'Name', roleId: agentRole } },
      { path: `/settings/users/${other.id}`, form: { intent: 'access', access: 'refuse' } },
      { path: `/settings/users/${other.id}`, form: { intent: 'delete' } },
    ];
    for (const p of posts) {
      const res = await app.request(p.path, { domain: a.domain, cookie: agentCookie, form: p.form });
      expect(res.status, `${p.path} ${p.form.intent}`).toBe(403);
    }
    expect(await userRow(other.id)).toMatchObject({ firstName: 'Ari', hasAccess: true });
    const invited = await getDb().select().from(schema.users).where(eq(schema.users.email, 'new@example.test'));
    expect(invited).toHaveLength(0);
  });

  it('keeps the rules: no self-refusal or self-deletion, the owner stays, only owners make owners', async () => {
    const a = await setup();
    const admin = await createTestUser({ accountId: a.account.id, roleKind: 'admin' });
    const adminCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: admin.id });
    const ownerRole = String(await roleId(a.account.id, 'owner'));
    const agentRole = String(await roleId(a.account.id, 'agent'));
    const post = (cookie: string, path: string, form: Record<string, string>) => app.request(path, { domain: a.domain, cookie, form });

    // Nobody refuses or deletes themselves.
    const selfRefuse = await post(adminCookie, `/settings/users/${admin.id}`, { intent: 'access', access: 'refuse' });
    expect(selfRefuse.status).toBe(403);
    expect(selfRefuse.text).toContain('You cannot refuse your own access');
    expect((await post(adminCookie, `/settings/users/${admin.id}`, { intent: 'delete' })).status).toBe(403);
    expect((await post(a.ownerCookie, `/settings/users/${a.owner.id}`, { intent: 'delete' })).status).toBe(403);

    // An admin cannot touch the owner, nor hand out the Owner role.
    expect((await post(adminCookie, `/settings/users/${a.owner.id}`, { intent: 'access', access: 'refuse' })).status).toBe(403);
    expect((await post(adminCookie, `/settings/users/${a.owner.id}`, { intent: 'delete' })).status).toBe(403);
    const editOwner = await post(adminCookie, `/settings/users/${a.owner.id}`, { intent: 'update', firstName: 'Evil', lastName: 'Admin', roleId: ownerRole });
    expect(editOwner.status).toBe(403);
    expect(editOwner.text).toContain('Only an owner can edit the account owner');
    const makeOwner = await post(adminCookie, `/settings/users/${a.agent.id}`, { intent: 'update', firstName: 'Ari', lastName: 'Agent', roleId: ownerRole });
    expect(makeOwner.status).toBe(403);
    const inviteOwner = await post(adminCookie, '/settings/users?index', { intent: 'invite', email: 'boss@example.test', firstName: 'Big', lastName: 'Boss', roleId: ownerRole });
    expect(inviteOwner.status).toBe(403);
    expect(inviteOwner.text).toContain('Only an owner can give the Owner role');

    // The owner cannot change their own role either; their names they can.
    expect((await post(a.ownerCookie, `/settings/users/${a.owner.id}`, { intent: 'update', firstName: 'Olive', lastName: 'Owner', roleId: agentRole })).status).toBe(403);
    expect((await post(a.ownerCookie, `/settings/users/${a.owner.id}`, { intent: 'update', firstName: 'Olivia', lastName: 'Owner', roleId: ownerRole })).status).toBe(302);
    expect(await userRow(a.owner.id)).toMatchObject({ firstName: 'Olivia', roleId: Number(ownerRole), hasAccess: true });

    // An owner may make someone an owner, who then cannot be refused or deleted by anyone.
    expect((await post(a.ownerCookie, `/settings/users/${admin.id}`, { intent: 'update', firstName: 'Ada', lastName: 'Admin', roleId: ownerRole })).status).toBe(302);
    expect((await post(a.ownerCookie, `/settings/users/${admin.id}`, { intent: 'delete' })).status).toBe(403);
    expect((await post(a.ownerCookie, `/settings/users/${admin.id}`, { intent: 'access', access: 'refuse' })).status).toBe(403);
    expect(await userRow(admin.id)).toMatchObject({ roleId: Number(ownerRole), hasAccess: true });
  });

  it('edits, refuses (signing the user out), gives back and deletes a user, writing domain events', async () => {
    const a = await setup();
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.agent.id });
    expect((await app.request('/home', { domain: a.domain, cookie: agentCookie })).status).toBe(200);
    const adminRole = String(await roleId(a.account.id, 'admin'));

    const bad = await app.request(`/settings/users/${a.agent.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'update', firstName: 'A', lastName: 'Agent', roleId: adminRole } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be at least 2 characters');

    const edit = await app.request(`/settings/users/${a.agent.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'update', firstName: 'Bea', lastName: 'Admin', roleId: adminRole } });
    expect(edit.status).toBe(302);
    expect(edit.headers.location).toBe('/settings/users');
    expect(await userRow(a.agent.id)).toMatchObject({ firstName: 'Bea', lastName: 'Admin', roleId: Number(adminRole) });

    const refuse = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'access', userId: String(a.agent.id), access: 'refuse' } });
    expect(refuse.status).toBe(302);
    expect((await userRow(a.agent.id)).hasAccess).toBe(false);
    const signedOut = await app.request('/home', { domain: a.domain, cookie: agentCookie });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.location).toMatch(/^\/signin/);
    const sessions = await getDb().select().from(schema.sessions).where(eq(schema.sessions.userId, a.agent.id));
    expect(sessions.every((s) => s.revokedAt)).toBe(true);
    const signin = await app.request('/signin', { domain: a.domain, form: { email: a.agent.email, password: TEST_PASSWORD } });
    expect(signin.status).toBe(400);
    expect(signin.text).toContain('Your access to this account has been refused');

    const give = await app.request(`/settings/users/${a.agent.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'access', access: 'give' } });
    expect(give.status).toBe(302);
    expect((await userRow(a.agent.id)).hasAccess).toBe(true);

    const del = await app.request(`/settings/users/${a.agent.id}`, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'delete' } });
    expect(del.status).toBe(302);
    expect(await userRow(a.agent.id)).toBeUndefined();

    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.subjectId, String(a.agent.id)))).orderBy(schema.domainEvents.id);
    expect(events.map((e) => e.type)).toEqual(['user_updated', 'user_access_changed', 'user_access_changed', 'user_deleted']);
    expect(events[0].payload).toMatchObject({ changed: ['firstName', 'lastName', 'roleId'] });
    expect(events[1].payload).toEqual({ hasAccess: false });
    expect(events.every((e) => e.actorId === a.owner.id)).toBe(true);
  });

  it('invites a user and refuses a second invitation to the same address', async () => {
    const a = await setup();
    const agentRole = String(await roleId(a.account.id, 'agent'));
    const form = { intent: 'invite', email: 'Newbie@Example.test', firstName: 'New', lastName: 'Bie', roleId: agentRole };
    const first = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form });
    expect(first.status).toBe(302);
    const [invited] = await getDb().select().from(schema.users).where(and(eq(schema.users.accountId, a.account.id), eq(schema.users.email, 'newbie@example.test')));
    expect(invited).toMatchObject({ status: 'pending', invitedById: a.owner.id, roleId: Number(agentRole) });
    const again = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form: { ...form, email: 'newbie@example.test' } });
    expect(again.status).toBe(400);
    expect(again.text).toContain('A user with this email already exists');

    const resend = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'resend', userId: String(invited.id) } });
    expect(resend.status).toBe(302);
    const resendActive = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'resend', userId: String(a.agent.id) } });
    expect(resendActive.status).toBe(400);

    const unknown = await app.request('/settings/users?index', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'bogus' } });
    expect(unknown.status).toBe(400);
  });
});

describe('profile, password and settings', () => {
  it('changes the password only with the current one, and signs out the other sessions', async () => {
    const a = await setup();
    const other = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const wrong = await app.request('/settings/my-profile', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'password', currentPassword: 'not-the-password', newPassword: 'a-new-long-password', confirmPassword: 'a-new-long-password' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Current password is incorrect');
    const mismatch = await app.request('/settings/my-profile', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'password', currentPassword: TEST_PASSWORD, newPassword: 'a-new-long-password', confirmPassword: 'something-else' },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('Passwords do not match');

    const ok = await app.request('/settings/my-profile', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'password', currentPassword: TEST_PASSWORD, newPassword: 'a-new-long-password', confirmPassword: 'a-new-long-password' },
    });
    expect(ok.status).toBe(302);
    expect((await app.request('/home', { domain: a.domain, cookie: a.ownerCookie })).status).toBe(200);
    expect((await app.request('/home', { domain: a.domain, cookie: other })).status).toBe(302);
  });

  it('validates the profile and saves notification preferences', async () => {
    const a = await setup();
    const bad = await app.request('/settings/my-profile', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'profile', firstName: 'Olive', lastName: 'Owner', dateFormat: 'YYYY', timeFormat: '25', timezone: 'Mars/Olympus' },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose a date format');
    expect(bad.text).toContain('Choose a time zone');
    const good = await app.request('/settings/my-profile', {
      domain: a.domain,
      cookie: a.ownerCookie,
      form: { intent: 'profile', firstName: ' Olive ', lastName: 'Owner', dateFormat: 'YYYY/MM/DD', timeFormat: '24', timezone: 'Europe/Paris' },
    });
    expect(good.status).toBe(302);
    expect(await userRow(a.owner.id)).toMatchObject({ firstName: 'Olive', dateFormat: 'YYYY/MM/DD', timeFormat: '24', timezone: 'Europe/Paris' });

    const prefs = await app.request('/settings/notification', { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'save', emailOnMention: 'on', browserPush: 'on' } });
    expect(prefs.status).toBe(302);
    expect((await userRow(a.owner.id)).notificationPreferences).toEqual({
      emailOnAssignment: false,
      emailOnMention: true,
      emailOnNewConversation: false,
      emailOnCustomerMessage: false,
      emailOnSla: false,
      browserPush: true,
    });
  });

  it('shows account settings locked to an agent and refuses their save', async () => {
    const a = await setup();
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.agent.id });
    const page = await app.request('/settings/account-settings', { domain: a.domain, cookie: agentCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="locked-note"');
    const form = { intent: 'save', name: 'Renamed Org', supportEmail: 'help@example.test', defaultTimezone: 'Europe/Paris', language: 'fr' };
    expect((await app.request('/settings/account-settings', { domain: a.domain, cookie: agentCookie, form })).status).toBe(403);
    const ok = await app.request('/settings/account-settings', { domain: a.domain, cookie: a.ownerCookie, form });
    expect(ok.status).toBe(302);
    const [account] = await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, a.account.id));
    expect(account).toMatchObject({ name: 'Renamed Org', settings: { supportEmail: 'help@example.test', defaultTimezone: 'Europe/Paris', language: 'fr' } });
    const bad = await app.request('/settings/account-settings', { domain: a.domain, cookie: a.ownerCookie, form: { ...form, name: 'X', supportEmail: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be at least 2 characters');
    expect(bad.text).toContain('Enter a valid email address');
  });
});
