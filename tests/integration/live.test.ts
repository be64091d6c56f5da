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

describe('the inbox list live feed (ADR 045)', () => {
  it("sends the inbox list's watchers one patch with the changed row and their counts, and nothing to others", async () => {
    const { createTestUser } = await import('../factories');
    const { getDb } = await import('../../db/client');
    const { createInbox } = await import('../../app/models/inbox/inboxes.server');
    const { openConversation, setConversationStatus } = await import('../../app/models/inbox/conversations.server');
    const a = await createTestAccount();
    const agent = await createTestUser({ accountId: a.account.id });
    const b = await createTestAccount();
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Desk', channelType: 'internal' });
    const watcher = connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }));
    const idle = connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id }));
    const other = connect(b.domain, await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id }));
    await Promise.all([watcher.opened, idle.opened, other.opened]);
    await until(() => [watcher, idle, other].every((c) => c.messages.some((m) => m.type === 'hello')));
    other.ws.send(JSON.stringify({ type: 'watch', topic: 'inbox', filters: {} }));
    watcher.ws.send(JSON.stringify({ type: 'watch', topic: 'inbox', filters: { status: 'open', assignee: 'bogus', inbox: inbox.id } }));
    await new Promise((r) => setTimeout(r, 100));

    const opened = await getDb().transaction((tx) =>
      openConversation({
        tx,
        accountId: a.account.id,
        inboxId: inbox.id,
        sourceType: 'internal_ticket',
        subject: 'Live row',
        contact: { email: 'c@live.test' },
        message: { kind: 'incoming', text: 'hello' },
      }),
    );
    const id = opened.conversation.id;
    const patches = () =>
      watcher.messages.filter((m) => m.type === 'inbox.patch') as unknown as {
        rows: { id: number; subject: string; status: string }[];
        removed: number[];
        counts: { byStatus: Record<string, number>; byInbox: Record<string, number> };
      }[];
    await until(() => patches().some((p) => p.rows.some((r) => r.id === id)));
    // The conversation and its first message arrive within one coalescing window: one patch, not two.
    expect(patches()).toHaveLength(1);
    expect(patches()[0]).toMatchObject({
      rows: [{ id, subject: 'Live row', status: 'open' }],
      removed: [],
      counts: { byStatus: { open: 1 }, byInbox: { [inbox.id]: 1 } },
    });

    await setConversationStatus({ accountId: a.account.id, actorId: a.owner.id, ids: [id], status: 'resolved' });
    await until(() => patches().some((p) => p.rows.some((r) => r.id === id && r.status === 'resolved')));
    expect(patches().at(-1)?.counts.byStatus).toEqual({ resolved: 1 });

    await new Promise((r) => setTimeout(r, 200));
    // An agent whose page does not show the list, and another account's list, hear nothing of it.
    expect(idle.messages.filter((m) => m.type !== 'hello')).toEqual([]);
    expect(other.messages.filter((m) => m.type !== 'hello')).toEqual([]);
    watcher.ws.close();
    idle.ws.close();
    other.ws.close();
  });

  it('tells a page that starts watching just after news on its topic that it may have missed it, and only then', async () => {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const page = connect(a.domain, cookie);
    await page.opened;
    await until(() => page.messages.some((m) => m.type === 'hello'));
    // Nothing happened on import 41 yet: watching it says nothing.
    page.ws.send(JSON.stringify({ type: 'watch', topic: 'import:41' }));
    await new Promise((r) => setTimeout(r, 150));
    expect(page.messages.filter((m) => m.type === 'missed')).toEqual([]);
    // Progress published while no page watched (the loader ran, the page had not said so yet)...
    await publishToAccount(a.account.id, { type: 'import.progress', importId: 42 });
    await new Promise((r) => setTimeout(r, 150));
    page.ws.send(JSON.stringify({ type: 'watch', topic: 'import:42' }));
    // ...makes the page reload once when it starts watching.
    await until(() => page.messages.some((m) => m.type === 'missed'));
    expect(page.messages.filter((m) => m.type === 'missed')).toEqual([{ type: 'missed', topic: 'import:42' }]);
    page.ws.close();
  });
});
