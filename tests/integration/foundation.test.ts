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
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'account_created')));
    expect(event.payload).toMatchObject({ ownerId: owner.id, plan: 'trial' });
    const notification = await waitFor(async () => {
      const rows = await getDb().select().from(schema.notifications).where(eq(schema.notifications.userId, owner.id));
      return rows[0];
    });
    expect(notification.title).toBe('Welcome to Parley');
    expect(notification.eventId).toBe(event.id);
    const [handling] = await getDb().select().from(schema.eventHandlings).where(eq(schema.eventHandlings.eventId, event.id));
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
