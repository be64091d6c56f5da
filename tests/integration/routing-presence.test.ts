import { and, desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { getDb, schema } from '../../db/client';
import { agentConnected, agentDisconnected } from '../../app/models/automation/presence.server';
import { createRoutingRule } from '../../app/models/automation/routing.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { startEngine } from '../../engine/index';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/** Agent presence for routing: the agent_presence counts, and a real socket through the websocket server and the engine. */
let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type)))
    .orderBy(schema.domainEvents.id);
}

describe('agent presence', () => {
  it('counts sockets: online on the first, offline after the last, one event each way', async () => {
    const a = await createTestAccount();
    const who = { accountId: a.account.id, userId: a.owner.id };
    expect(await agentConnected(who)).toEqual({ cameOnline: true });
    expect(await agentConnected(who)).toEqual({ cameOnline: false });
    expect(await agentDisconnected(who)).toEqual({ wentOffline: false });
    expect(await agentDisconnected(who)).toEqual({ wentOffline: true });
    expect(await agentDisconnected(who)).toEqual({ wentOffline: false });
    const events = await eventsOf(a.account.id, 'agent_presence_changed');
    expect(events.map((e) => [e.subjectType, e.subjectId, e.payload])).toEqual([
      ['user', String(a.owner.id), { online: true }],
      ['user', String(a.owner.id), { online: false }],
    ]);
    // A count left by a node that died goes stale: the next socket (on a live node) counts alone, and says online.
    const stale = new Date(Date.now() - 10 * 60_000);
    await getDb().insert(schema.agentPresenceNodes).values({ userId: a.owner.id, nodeId: 'web-dead#000000', accountId: a.account.id, connections: 3, lastSeenAt: stale });
    await getDb().update(schema.agentPresence).set({ connections: 3, lastSeenAt: stale }).where(eq(schema.agentPresence.userId, a.owner.id));
    expect(await agentConnected(who)).toEqual({ cameOnline: true });
    const [row] = await getDb().select().from(schema.agentPresence).where(eq(schema.agentPresence.userId, a.owner.id));
    expect(row.connections).toBe(1);
  });

  it('a real agent socket coming online gets the waiting conversation through the engine', async () => {
    const engine = await startEngine({ mode: 'inline', concurrency: 1 });
    try {
      const a = await createTestAccount();
      const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat', channelType: 'web' });
      await createRoutingRule({
        accountId: a.account.id,
        actorId: a.owner.id,
        name: 'Online only',
        inboxId: inbox.id,
        rule: 'active_agents',
        assignLimit: 5,
        teamId: null,
        subrules: [],
      });
      const { conversation } = await openConversation({
        accountId: a.account.id,
        inboxId: inbox.id,
        sourceType: 'web',
        subject: 'Hi',
        contact: { email: 'waiting@example.test' },
        message: { kind: 'incoming', text: 'Anyone there?' },
      });
      const assignee = async () =>
        (await getDb().select({ id: schema.conversations.assigneeId }).from(schema.conversations).where(eq(schema.conversations.id, conversation.id)))[0].id;
      // The engine routed conversation_created: nobody online, so it waits.
      const [created] = await getDb()
        .select()
        .from(schema.domainEvents)
        .where(and(eq(schema.domainEvents.type, 'conversation_created'), eq(schema.domainEvents.subjectId, String(conversation.id)))).orderBy(schema.domainEvents.id);
      // (a handler with nothing to do records nothing: wait for the event's job to be completed instead)
      await waitFor(async () => {
        const rows = await getDb().execute<{ state: string }>(
          sql`select state from pgboss.job where name = 'engine.domain-events' and (data->>'eventId')::bigint = ${created.id}`,
        );
        return rows.some((r) => r.state === 'completed');
      });
      expect(await assignee()).toBeNull();

      const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
      const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws`, { headers: { host: `${a.domain}.${process.env.APP_HOST}`, cookie } });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      await waitFor(async () => (await assignee()) === a.owner.id);
      const [presence] = await getDb().select().from(schema.agentPresence).where(eq(schema.agentPresence.userId, a.owner.id));
      expect(presence.connections).toBe(1);

      ws.close();
      await waitFor(async () => (await getDb().select().from(schema.agentPresence).where(eq(schema.agentPresence.userId, a.owner.id)))[0].connections === 0);
      const [offline] = await getDb()
        .select()
        .from(schema.domainEvents)
        .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'agent_presence_changed')))
        .orderBy(desc(schema.domainEvents.id))
        .limit(1);
      expect(offline.payload).toEqual({ online: false });
    } finally {
      await engine.stop();
    }
  });
});

async function waitFor(fn: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
