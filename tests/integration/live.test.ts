import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { publishToAccount } from '../../app/utils/live.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

function connect(domain: string, cookie?: string, origin?: string) {
  const host = `${domain}.${process.env.APP_HOST}`;
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws`, { headers: { host, ...(cookie ? { cookie } : {}), ...(origin ? { origin } : {}) } });
  const messages: { type: string; [k: string]: unknown }[] = [];
  ws.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return { ws, messages, opened };
}

async function until(fn: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the live channel', () => {
  it('refuses a connection without a session of that account', async () => {
    const a = await createTestAccount();
    await expect(connect(a.domain).opened).rejects.toThrow('401');
    const b = await createTestAccount();
    const cookieA = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    // A's cookie presented on B's host is no session there.
    await expect(connect(b.domain, cookieA).opened).rejects.toThrow('401');
    // Nor from another origin.
    await expect(connect(a.domain, cookieA, 'http://evil.example').opened).rejects.toThrow('401');
  });

  it("delivers an account's messages only to that account's users", async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    const ca = connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }));
    const cb = connect(b.domain, await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id }));
    await Promise.all([ca.opened, cb.opened]);
    await until(() => ca.messages.some((m) => m.type === 'hello') && cb.messages.some((m) => m.type === 'hello'));
    await publishToAccount(a.account.id, { type: 'test.ping', n: 1 });
    await publishToAccount(b.account.id, { type: 'test.ping', n: 2 });
    await until(() => ca.messages.some((m) => m.type === 'test.ping') && cb.messages.some((m) => m.type === 'test.ping'));
    await new Promise((r) => setTimeout(r, 200));
    expect(ca.messages.filter((m) => m.type === 'test.ping')).toEqual([{ type: 'test.ping', n: 1 }]);
    expect(cb.messages.filter((m) => m.type === 'test.ping')).toEqual([{ type: 'test.ping', n: 2 }]);
    ca.ws.close();
    cb.ws.close();
  });

  it('sends a message addressed to one user to that user only', async () => {
    const a = await createTestAccount();
    const { createTestUser } = await import('../factories');
    const agent = await createTestUser({ accountId: a.account.id });
    const owner = connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }));
    const other = connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id }));
    await Promise.all([owner.opened, other.opened]);
    await until(() => owner.messages.length > 0 && other.messages.length > 0);
    await publishToAccount(a.account.id, { type: 'notification', id: 7 }, { userId: agent.id });
    await until(() => other.messages.some((m) => m.type === 'notification'));
    await new Promise((r) => setTimeout(r, 200));
    expect(owner.messages.some((m) => m.type === 'notification')).toBe(false);
    owner.ws.close();
    other.ws.close();
  });
});
