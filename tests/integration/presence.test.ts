import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

type Msg = { type: string; conversationId?: number; users?: { id: number; name: string }[] };

async function connect(domain: string, cookie: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws`, { headers: { host: `${domain}.${process.env.APP_HOST}`, cookie } });
  const messages: Msg[] = [];
  ws.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  await until(() => messages.some((m) => m.type === 'hello'));
  const send = (m: object) => ws.send(JSON.stringify(m));
  const presence = (conversationId: number) => messages.filter((m) => m.type === 'presence' && m.conversationId === conversationId);
  return { ws, messages, send, presence };
}

async function until(fn: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('presence on conversations', () => {
  it("tells a conversation's viewers who views it, and no one else", async () => {
    const a = await createTestAccount({ firstName: 'Olive' });
    const agent = await createTestUser({ accountId: a.account.id, firstName: 'Ari' });
    const b = await createTestAccount({ firstName: 'Bert' });
    const owner = await connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }));
    const second = await connect(a.domain, await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id }));
    const other = await connect(b.domain, await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id }));

    owner.send({ type: 'viewing', conversationId: 41 });
    await until(() => owner.presence(41).length > 0);
    expect(owner.presence(41).at(-1)?.users).toEqual([{ id: a.owner.id, name: 'Olive Owner' }]);
    // An agent elsewhere (not on this conversation) is not told (ADR 045): presence costs its viewers only.
    await new Promise((r) => setTimeout(r, 200));
    expect(second.presence(41)).toEqual([]);

    second.send({ type: 'viewing', conversationId: 41 });
    await until(() => owner.presence(41).some((m) => m.users?.length === 2));
    expect(
      owner
        .presence(41)
        .at(-1)
        ?.users?.map((u) => u.name)
    ).toEqual(['Ari Agent', 'Olive Owner']);

    // Another account viewing the same id is its own world, both ways.
    other.send({ type: 'viewing', conversationId: 41 });
    await until(() => other.presence(41).length > 0);
    expect(other.presence(41).at(-1)?.users).toEqual([{ id: b.owner.id, name: 'Bert Owner' }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(owner.presence(41).every((m) => m.users?.every((u) => u.id !== b.owner.id))).toBe(true);
    expect(other.messages.filter((m) => m.type === 'presence').every((m) => m.users?.every((u) => u.id === b.owner.id))).toBe(true);

    // Leaving (or closing the tab) updates the others; a client cannot name someone else or a bad id.
    second.send({ type: 'left' });
    await until(() => owner.presence(41).at(-1)?.users?.length === 1);
    const count = owner.messages.length;
    owner.send({ type: 'viewing', conversationId: 'x', userId: 999 });
    owner.send({ type: 'viewing', conversationId: -3 });
    second.ws.send('not json');
    await new Promise((r) => setTimeout(r, 200));
    expect(owner.messages.length).toBe(count);
    second.send({ type: 'viewing', conversationId: 41 });
    await until(() => second.presence(41).at(-1)?.users?.length === 2);
    owner.ws.close();
    await until(() => second.presence(41).at(-1)?.users?.length === 1);

    second.ws.close();
    other.ws.close();
  });
});
