import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { startEngine } from '../../engine/index';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
let engine: Awaited<ReturnType<typeof startEngine>>;

beforeAll(async () => {
  app = await startTestApp();
  engine = await startEngine({ mode: 'inline', concurrency: 1 });
});
afterAll(async () => {
  await engine.stop();
  await app.close();
});

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('health', () => {
  it('answers 200 with JSON when the database and the engine are up', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ ok: true, database: 'up', engine: 'up' });
  });
});

describe('account_created flows through the engine', () => {
  it('writes the event with the account and greets the owner', async () => {
    const { account, owner } = await createTestAccount();
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'account_created'))).orderBy(schema.domainEvents.id);
    expect(event.payload).toMatchObject({ ownerId: owner.id, plan: 'trial' });
    const notification = await waitFor(async () => {
      const rows = await getDb().select().from(schema.notifications).where(eq(schema.notifications.userId, owner.id));
      return rows[0];
    });
    expect(notification.title).toBe('Welcome to Parley');
    expect(notification.eventId).toBe(event.id);
    // The handler's record is written after its work (ADR 109: one insert for the batch), so it may follow the notification.
    const handling = await waitFor(async () => {
      const rows = await getDb().select().from(schema.eventHandlings).where(eq(schema.eventHandlings.eventId, event.id));
      return rows.find((r) => r.handler === 'welcome-owner');
    });
    expect(handling).toMatchObject({ handler: 'welcome-owner', status: 'done' });
  });
});

describe('CSRF', () => {
  it('refuses a state-changing request from another origin', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const res = await app.request('/logout', { domain, form: {}, cookie, origin: 'http://evil.localhost:3000' });
    expect(res.status).toBe(403);
    const ok = await app.request('/logout', { domain, form: {}, cookie });
    expect(ok.status).toBe(302);
  });
});

describe('tenancy of sessions', () => {
  it("does not sign account A's user in on account B", async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const onA = await app.request('/home', { domain: a.domain, cookie });
    expect(onA.status).toBe(200);
    const onB = await app.request('/home', { domain: b.domain, cookie });
    expect(onB.status).toBe(302);
    expect(onB.headers.location).toMatch(/^\/signin/);
  });
});

describe('user_invited flows through the engine', () => {
  it('mails the invitee a set-password link, once per event even if redelivered', async () => {
    const { inviteUser } = await import('../../app/models/users/invitations.server');
    const { processEvent } = await import('../../engine/index');
    const { account, owner } = await createTestAccount();
    const roles = await getDb().select().from(schema.roles).where(eq(schema.roles.accountId, account.id));
    const invitee = await inviteUser({
      accountId: account.id,
      invitedById: owner.id,
      email: 'New.Person@Example.test',
      firstName: 'New',
      lastName: 'Person',
      roleId: roles.find((r) => r.kind === 'agent')!.id,
      baseUrl: 'http://x.localhost:3000',
    });
    const mail = await waitFor(async () => (await getDb().select().from(schema.outboundEmails).where(eq(schema.outboundEmails.to, 'new.person@example.test')))[0]);
    expect(mail.subject).toContain('You are invited');
    expect(mail.text).toMatch(/http:\/\/x\.localhost:3000\/set-password\?token=\S+/);
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.type, 'user_invited'), eq(schema.domainEvents.subjectId, String(invitee.id)))).orderBy(schema.domainEvents.id);
    // A redelivered job finds the handler already done and sends nothing more.
    await waitFor(async () => (await getDb().select().from(schema.eventHandlings).where(eq(schema.eventHandlings.eventId, event.id)))[0]);
    await processEvent(event.id);
    const mails = await getDb().select().from(schema.outboundEmails).where(eq(schema.outboundEmails.to, 'new.person@example.test'));
    expect(mails).toHaveLength(1);
  });
});

describe('health when the engine stops', () => {
  it('answers 503', async () => {
    await engine.stop();
    const res = await app.request('/healthz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({ ok: false, database: 'up', engine: 'down' });
    engine = await startEngine({ mode: 'inline', concurrency: 1 });
    expect((await app.request('/healthz')).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('stops password guessing on one address after 10 tries in 15 minutes', async () => {
    const { domain, email, password } = await createTestAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await app.request('/signin', { domain, form: { email, password: `wrong-${i}` } });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Even the right password is refused until the window ends.
    expect((await app.request('/signin', { domain, form: { email, password } })).status).toBe(429);
  });

  it('stops guessing of the emailed code', async () => {
    const { domain, email } = await createTestAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await app.request('/emailverify', { domain, form: { intent: 'verify', email, code: '000000' } })).status);
    expect(statuses[10]).toBe(429);
  });
});
