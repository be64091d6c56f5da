import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { RoutingRuleType, RoutingSubrule } from '../../db/schema/automation';
import { processEvent } from '../../engine/index';
import { agentConnected, agentDisconnected } from '../../app/models/automation/presence.server';
import { createRoutingRule, handOutWaitingConversations } from '../../app/models/automation/routing.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { assignConversations, moveConversations, openConversation, setConversationStatus } from '../../app/models/inbox/conversations.server';
import { createTeam } from '../../app/models/teams/teams.server';
import { createTestAccount, createTestUser } from '../factories';

/**
 * Routing through the engine: conversations are opened (and changed) by the model functions, which write the
 * domain events, and each event is then run through processEvent as the engine's worker would.
 */

/** An account whose agents are exactly the three made here (the owner is refused access, so never a candidate). */
async function setup(channelType: 'email' | 'web' = 'email') {
  const a = await createTestAccount();
  await getDb().update(schema.users).set({ hasAccess: false }).where(eq(schema.users.id, a.owner.id));
  const agents = [];
  for (const name of ['Ada', 'Ben', 'Cal']) agents.push(await createTestUser({ accountId: a.account.id, firstName: name }));
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: `${channelType} inbox`, channelType });
  return { ...a, agents, ids: agents.map((u) => u.id), inbox };
}
type Setup = Awaited<ReturnType<typeof setup>>;

async function rule(s: Setup, rule: RoutingRuleType, over: { assignLimit?: number | null; teamId?: number | null; subrules?: RoutingSubrule[] } = {}) {
  const row = await createRoutingRule({
    accountId: s.account.id,
    actorId: s.owner.id,
    name: `${rule} rule`,
    inboxId: s.inbox.id,
    rule,
    assignLimit: over.assignLimit ?? null,
    teamId: over.teamId ?? null,
    subrules: over.subrules ?? [],
  });
  await runLatest(s.account.id, 'routing_rule_created', row.id);
  return row;
}

/** Runs the newest event of a type about a subject through the engine's handlers. */
async function runLatest(accountId: number, type: string, subjectId: number) {
  const [event] = await getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type), eq(schema.domainEvents.subjectId, String(subjectId))))
    .orderBy(desc(schema.domainEvents.id))
    .limit(1);
  if (!event) throw new Error(`no ${type} event for ${subjectId}`);
  return processEvent(event.id);
}

let mailNo = 0;
/** A new conversation in the inbox, routed as the engine routes conversation_created. */
async function incoming(s: Setup, opts: { email?: string; route?: boolean; inboxId?: number } = {}) {
  const { conversation, contact } = await openConversation({
    accountId: s.account.id,
    inboxId: opts.inboxId ?? s.inbox.id,
    sourceType: 'email',
    subject: `Question ${++mailNo}`,
    contact: { email: opts.email ?? `customer${mailNo}-${s.account.id}@example.test` },
    message: { kind: 'incoming', text: 'Hello' },
  });
  if (opts.route !== false) await runLatest(s.account.id, 'conversation_created', conversation.id);
  return { id: conversation.id, contactId: contact.id };
}

async function assigneeOf(id: number) {
  const [row] = await getDb().select({ assigneeId: schema.conversations.assigneeId }).from(schema.conversations).where(eq(schema.conversations.id, id));
  return row.assigneeId;
}
const assigneesOf = (ids: number[]) => Promise.all(ids.map(assigneeOf));

describe('round_robin', () => {
  it('hands new conversations out in turn by user id and moves the cursor', async () => {
    const s = await setup();
    const r = await rule(s, 'round_robin');
    const convs = [];
    for (let i = 0; i < 4; i++) convs.push((await incoming(s)).id);
    expect(await assigneesOf(convs)).toEqual([s.ids[0], s.ids[1], s.ids[2], s.ids[0]]);
    const [stored] = await getDb().select().from(schema.routingRules).where(eq(schema.routingRules.id, r.id));
    expect(stored.lastAssignedUserId).toBe(s.ids[0]);
    // The assignment goes the way a person's does: the system line and conversation_assigned caused by the event.
    const lines = await getDb()
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.conversationId, convs[0]), eq(schema.messages.kind, 'system')));
    expect(lines.map((m) => m.text)).toEqual(['Assigned to Ada Agent by Parley']);
    const [assigned] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.type, 'conversation_assigned'), eq(schema.domainEvents.subjectId, String(convs[0])))).orderBy(schema.domainEvents.id);
    expect(assigned.actorType).toBe('engine');
    expect(assigned.payload).toMatchObject({ assigneeId: s.ids[0], previousAssigneeId: null });
  });

  it('keeps conversations waiting when everyone is at the limit, and hands the next one out when an agent drops under it', async () => {
    const s = await setup();
    await rule(s, 'round_robin', { assignLimit: 1 });
    const convs = [];
    for (let i = 0; i < 5; i++) convs.push((await incoming(s)).id);
    expect(await assigneesOf(convs)).toEqual([s.ids[0], s.ids[1], s.ids[2], null, null]);

    // Ben resolves his conversation: the oldest waiting one goes to him, the other keeps waiting.
    await setConversationStatus({ accountId: s.account.id, actorId: s.ids[1], ids: [convs[1]], status: 'resolved' });
    await runLatest(s.account.id, 'conversation_updated', convs[1]);
    expect(await assigneesOf(convs.slice(3))).toEqual([s.ids[1], null]);

    // Ada's conversation is given to Cal: Ada has room, Cal is now over (not by routing), the last one goes to Ada.
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [convs[0]], assigneeId: s.ids[2] });
    await runLatest(s.account.id, 'conversation_assigned', convs[0]);
    expect(await assigneeOf(convs[4])).toBe(s.ids[0]);
  });

  it('a conversation a workflow (or a person) assigned first is left alone', async () => {
    const s = await setup();
    await rule(s, 'round_robin');
    const c = await incoming(s, { route: false });
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [c.id], assigneeId: s.ids[2] });
    await runLatest(s.account.id, 'conversation_created', c.id);
    expect(await assigneeOf(c.id)).toBe(s.ids[2]);
  });

  it('an inbox without a rule keeps its conversations unassigned', async () => {
    const s = await setup();
    const c = await incoming(s);
    expect(await assigneeOf(c.id)).toBeNull();
  });

  it('a conversation moved into an inbox with a rule is handed out there', async () => {
    const s = await setup();
    await rule(s, 'round_robin');
    const other = await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'No rule', channelType: 'email' });
    const c = await incoming(s, { inboxId: other.id });
    expect(await assigneeOf(c.id)).toBeNull();
    await moveConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [c.id], inboxId: s.inbox.id });
    await runLatest(s.account.id, 'conversation_updated', c.id);
    expect(await assigneeOf(c.id)).toBe(s.ids[0]);
  });
});

describe('active_agents', () => {
  it('hands out only to agents online now, and a waiting conversation goes to an agent who comes online', async () => {
    const s = await setup();
    await rule(s, 'active_agents');
    const waiting = await incoming(s);
    expect(await assigneeOf(waiting.id)).toBeNull();

    const { cameOnline } = await agentConnected({ accountId: s.account.id, userId: s.ids[1] });
    expect(cameOnline).toBe(true);
    await runLatest(s.account.id, 'agent_presence_changed', s.ids[1]);
    expect(await assigneeOf(waiting.id)).toBe(s.ids[1]);

    await agentConnected({ accountId: s.account.id, userId: s.ids[2] });
    const next = [(await incoming(s)).id, (await incoming(s)).id, (await incoming(s)).id];
    expect(await assigneesOf(next)).toEqual([s.ids[2], s.ids[1], s.ids[2]]);

    // Cal leaves: only Ben is left to take the next one.
    await agentDisconnected({ accountId: s.account.id, userId: s.ids[2] });
    expect(await assigneeOf((await incoming(s)).id)).toBe(s.ids[1]);
  });

  it('counts an agent whose presence went stale (a dead web process) as offline', async () => {
    const s = await setup();
    await rule(s, 'active_agents');
    await agentConnected({ accountId: s.account.id, userId: s.ids[0] });
    await getDb()
      .update(schema.agentPresence)
      .set({ lastSeenAt: new Date(Date.now() - 120_000) })
      .where(eq(schema.agentPresence.userId, s.ids[0]));
    expect(await assigneeOf((await incoming(s)).id)).toBeNull();
  });
});

describe('last_agent_assigned', () => {
  it('returns a customer to their agent when that agent is online, else hands out in turn', async () => {
    const s = await setup();
    await rule(s, 'last_agent_assigned', { assignLimit: 5 });
    const first = await incoming(s, { email: 'back@example.test', route: false });
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [first.id], assigneeId: s.ids[2] });
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [first.id], status: 'resolved' });

    // Cal is offline: round robin gives Ada.
    expect(await assigneeOf((await incoming(s, { email: 'back@example.test' })).id)).toBe(s.ids[0]);
    // Ada now had the customer's most recent conversation, but she is offline too: round robin moves on to Ben.
    await agentConnected({ accountId: s.account.id, userId: s.ids[2] });
    expect(await assigneeOf((await incoming(s, { email: 'back@example.test' })).id)).toBe(s.ids[1]);
    // Ben is offline; once online, the customer's next conversation goes back to him.
    await agentConnected({ accountId: s.account.id, userId: s.ids[1] });
    expect(await assigneeOf((await incoming(s, { email: 'back@example.test' })).id)).toBe(s.ids[1]);
    // A new customer is handed out in turn from the cursor (Ben): Cal.
    expect(await assigneeOf((await incoming(s, { email: 'new@example.test' })).id)).toBe(s.ids[2]);
  });
});

describe('team', () => {
  it("hands out in turn among the team's members only", async () => {
    const s = await setup();
    const team = await createTeam({ accountId: s.account.id, actorId: s.owner.id, name: 'Billing', memberIds: [s.ids[1], s.ids[2]] });
    await rule(s, 'team', { teamId: team.id, assignLimit: 2 });
    const convs = [];
    for (let i = 0; i < 5; i++) convs.push((await incoming(s)).id);
    expect(await assigneesOf(convs)).toEqual([s.ids[1], s.ids[2], s.ids[1], s.ids[2], null]);
  });
});

describe('load_balancing', () => {
  it('gives the agent with the fewest open conversations, ties by id, never over the limit', async () => {
    const s = await setup('email');
    // Before the rule: Ada holds 2 open conversations, Ben 1 pending and 1 resolved (not counted), Cal 1.
    const earlier = [];
    for (let i = 0; i < 5; i++) earlier.push((await incoming(s, { route: false })).id);
    const give = (ids: number[], userId: number) => assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids, assigneeId: userId });
    await give([earlier[0], earlier[1]], s.ids[0]);
    await give([earlier[2], earlier[3]], s.ids[1]);
    await give([earlier[4]], s.ids[2]);
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [earlier[2]], status: 'pending' });
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [earlier[3]], status: 'resolved' });

    await rule(s, 'load_balancing', { assignLimit: 3 });
    const convs = [];
    for (let i = 0; i < 6; i++) convs.push((await incoming(s)).id);
    // Counts 2/1/1 → Ben (tie with Cal, lower id), then Cal, then Ada/Ben/Cal at 2 → Ada, Ben, Cal; then all at 3.
    expect(await assigneesOf(convs)).toEqual([s.ids[1], s.ids[2], s.ids[0], s.ids[1], s.ids[2], null]);
  });
});

describe('url', () => {
  it("gives the user of the first subrule matching the visitor's page; no match stays unassigned", async () => {
    const s = await setup('web');
    await rule(s, 'url', {
      subrules: [
        { value: '/pricing', condition: 'contains', userId: s.ids[2] },
        { value: 'https://shop.test', condition: 'startsWith', userId: s.ids[1] },
      ],
    });
    const visit = async (contactId: number, url: string, secondsAgo = 0) =>
      getDb()
        .insert(schema.pageViews)
        .values({ accountId: s.account.id, visitorId: `v${contactId}`, contactId, url, lastSeenAt: new Date(Date.now() - secondsAgo * 1000) });

    const pricing = await incoming(s, { route: false });
    await visit(pricing.contactId, 'https://shop.test/cart', 600);
    await visit(pricing.contactId, 'https://shop.test/Pricing');
    await runLatest(s.account.id, 'conversation_created', pricing.id);
    expect(await assigneeOf(pricing.id)).toBe(s.ids[2]);

    const cart = await incoming(s, { route: false });
    await visit(cart.contactId, 'https://shop.test/cart');
    await runLatest(s.account.id, 'conversation_created', cart.id);
    expect(await assigneeOf(cart.id)).toBe(s.ids[1]);

    const elsewhere = await incoming(s, { route: false });
    await visit(elsewhere.contactId, 'https://blog.test/');
    await runLatest(s.account.id, 'conversation_created', elsewhere.id);
    expect(await assigneeOf(elsewhere.id)).toBeNull();
    expect(await assigneeOf((await incoming(s)).id)).toBeNull(); // no page seen at all
  });
});

describe('concurrency', () => {
  it('workers routing new conversations at once never go over the limit, and the turn holds', async () => {
    const s = await setup();
    await rule(s, 'round_robin', { assignLimit: 3 });
    await getDb().update(schema.users).set({ hasAccess: false }).where(eq(schema.users.id, s.ids[2]));
    const convs = [];
    for (let i = 0; i < 10; i++) convs.push((await incoming(s, { route: false })).id);
    const events = await getDb()
      .select({ id: schema.domainEvents.id })
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'conversation_created'))).orderBy(schema.domainEvents.id);
    await Promise.all(events.map((e) => processEvent(e.id)));
    const rows = await getDb().select().from(schema.conversations).where(inArray(schema.conversations.id, convs));
    const held = (userId: number) => rows.filter((r) => r.assigneeId === userId).length;
    expect([held(s.ids[0]), held(s.ids[1]), rows.filter((r) => r.assigneeId === null).length]).toEqual([3, 3, 4]);
  });

  it('hand-outs running at once share out the waiting conversations in turn, within the limit', async () => {
    const s = await setup();
    await rule(s, 'round_robin', { assignLimit: 2 });
    await getDb().update(schema.users).set({ hasAccess: false }).where(eq(schema.users.id, s.ids[2]));
    const convs = [];
    for (let i = 0; i < 6; i++) convs.push((await incoming(s, { route: false })).id);
    const [event] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, s.account.id)).orderBy(schema.domainEvents.id).limit(1);
    const results = await Promise.all([1, 2, 3].map(() => handOutWaitingConversations({ accountId: s.account.id, eventId: event.id })));
    expect(results.flat()).toHaveLength(4);
    const rows = await getDb().select().from(schema.conversations).where(inArray(schema.conversations.id, convs)).orderBy(asc(schema.conversations.id));
    expect(rows.map((r) => r.assigneeId)).toEqual([s.ids[0], s.ids[1], s.ids[0], s.ids[1], null, null]);
  });
});

describe('account isolation', () => {
  it("one account's rules, agents and events never touch another account's conversations", async () => {
    const a = await setup();
    const b = await setup();
    await rule(a, 'active_agents');
    const waitingA = await incoming(a);
    const waitingB = await incoming(b); // b's inbox has no rule
    await rule(b, 'active_agents', { assignLimit: 1 });
    expect(await assigneesOf([waitingA.id, waitingB.id])).toEqual([null, null]);

    // A's agent comes online: A's waiting conversation goes to them; B's stays waiting (none of B's agents is online).
    await agentConnected({ accountId: a.account.id, userId: a.ids[0] });
    await runLatest(a.account.id, 'agent_presence_changed', a.ids[0]);
    expect(await assigneesOf([waitingA.id, waitingB.id])).toEqual([a.ids[0], null]);

    // A's hand-out, run on purpose with everything it could reach, still does not see B's conversation.
    const [event] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.accountId, a.account.id)).orderBy(schema.domainEvents.id).limit(1);
    expect(await handOutWaitingConversations({ accountId: a.account.id, inboxIds: [b.inbox.id], eventId: event.id })).toEqual([]);
    expect(await assigneeOf(waitingB.id)).toBeNull();

    // A rule of A cannot name B's inbox, team or users, even written around the form.
    const base = { accountId: a.account.id, actorId: a.owner.id, name: 'Sneaky', assignLimit: null, teamId: null, subrules: [] };
    await expect(createRoutingRule({ ...base, inboxId: b.inbox.id, rule: 'round_robin' })).rejects.toThrow('Choose an inbox of this account');
    const webA = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Web A', channelType: 'web' });
    await expect(
      createRoutingRule({ ...base, inboxId: webA.id, rule: 'url', subrules: [{ value: '/x', condition: 'contains', userId: b.ids[0] }] })
    ).rejects.toThrow('Choose a user of this account');

    // B's own agent coming online is B's business only.
    await agentConnected({ accountId: b.account.id, userId: b.ids[1] });
    await runLatest(b.account.id, 'agent_presence_changed', b.ids[1]);
    expect(await assigneeOf(waitingB.id)).toBe(b.ids[1]);
    const all = await getDb()
      .select()
      .from(schema.conversations)
      .where(inArray(schema.conversations.accountId, [a.account.id, b.account.id]));
    for (const c of all) {
      if (c.assigneeId === null) continue;
      expect((c.accountId === a.account.id ? a.ids : b.ids).includes(c.assigneeId)).toBe(true);
    }
  });
});
