import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { listVisitorMessages, postVisitorMessage, signVisitorToken, startVisitor, type Inbox } from '../../app/models/channels/widget.server';
import { chatbotFigures, createChatbot, getChatbot, listChatbots, saveChatbotFlow, updateChatbotSettings } from '../../app/models/chatbots/chatbots.server';
import { DEFAULT_CONDITIONS, type ChatbotStep } from '../../app/models/chatbots/constants';
import { ChatbotFlowError } from '../../app/models/chatbots/flow.server';
import { runChatbotTurn } from '../../app/models/chatbots/runner.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

/**
 * Chatbots (ADR 075): a flow walked turn by turn in a widget conversation, the hand-over and an agent taking over,
 * the figures, conditions, account isolation, and a malformed flow refused with a message that names the step.
 */

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const FLOW: ChatbotStep[] = [
  { id: 's1', type: 'message', text: 'Hello from the bot', next: 's2' },
  { id: 's2', type: 'question', text: 'Sales or support?', choices: [{ label: 'Sales', next: 's3' }, { label: 'Support', next: 's4' }], next: null },
  { id: 's3', type: 'collect', field: 'email', text: 'Your email please', next: 's5' },
  { id: 's4', type: 'close', text: 'Bye' },
  { id: 's5', type: 'handover', text: 'Connecting you to sales', teamId: null, userId: null },
];

async function setUp() {
  const a = await createTestAccount();
  const inbox = (await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website' })) as Inbox;
  const bot = await createChatbot({ accountId: a.account.id, actorId: a.owner.id, name: 'Greeter' });
  await saveChatbotFlow({ accountId: a.account.id, id: bot.id, steps: FLOW });
  await updateChatbotSettings({ accountId: a.account.id, id: bot.id, name: 'Greeter', enabled: true, inboxIds: [inbox.id], priority: 1, conditions: DEFAULT_CONDITIONS });
  return { a, inbox, bot };
}

async function say(inbox: Inbox, visitorId: string | null, text: string) {
  const { visitor } = await startVisitor({ inbox, token: visitorId });
  const { conversationId } = await postVisitorMessage({ visitor, text });
  const turn = await runChatbotTurn({ visitor: { ...visitor, conversationId }, conversationId, text, articleLink: (_d, p) => p });
  const fresh = { ...visitor, conversationId };
  return { visitor: fresh, conversationId, turn, messages: await listVisitorMessages({ visitor: fresh }) };
}

describe('a chatbot in a widget conversation', () => {
  it('greets, asks with buttons, collects into the contact, hands over, and stops when an agent replies', async () => {
    const { a, inbox, bot } = await setUp();
    const first = await say(inbox, null, 'Hi there');
    expect(first.messages.map((m) => m.text)).toEqual(['Hi there', 'Hello from the bot', 'Sales or support?']);
    expect(first.messages[1]).toMatchObject({ from: 'agent', author: 'Greeter' });
    expect(first.messages[2].buttons).toEqual(['Sales', 'Support']);

    const resume = signVisitorToken({ accountId: a.account.id, inboxId: inbox.id, visitorId: first.visitor.id });
    const second = await say(inbox, resume, 'sales');
    expect(second.messages.at(-1)?.text).toBe('Your email please');
    expect(second.messages.at(-2)?.buttons).toBeUndefined();
    const bad = await say(inbox, resume, 'not an email');
    expect(bad.messages.at(-1)?.text).toMatch(/does not look like an email/);
    const third = await say(inbox, resume, 'Vera@Example.com');
    expect(third.messages.at(-1)?.text).toBe('Connecting you to sales');
    expect(third.turn?.status).toBe('handed_over');
    const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, (await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, third.conversationId)))[0].contactId!));
    expect(contact.email).toBe('vera@example.com');
    // Bot messages are marked as the bot's and are not queued for delivery.
    const botRows = await getDb().select().from(schema.messages).where(and(eq(schema.messages.conversationId, third.conversationId), eq(schema.messages.botId, bot.id)));
    expect(botRows.length).toBe(5);
    expect(botRows.every((m) => m.deliveryStatus === 'sent' && m.senderUserId === null)).toBe(true);

    // The hand-over is final: further messages get no bot answer; an agent's reply is the visitor's next message.
    const after = await say(inbox, resume, 'hello?');
    expect(after.turn?.said).toBe(0);
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: third.conversationId, text: 'Hi, Olive from sales here', kind: 'outgoing' });
    const figures = (await chatbotFigures({ accountId: a.account.id, botIds: [bot.id] })).get(bot.id);
    expect(figures).toEqual({ started: 1, completed: 0, handedOver: 1, resolvedWithoutAgent: 0 });
  });

  it('stops the moment the visitor asks for a human, and when an agent has replied', async () => {
    const { a, inbox, bot } = await setUp();
    const first = await say(inbox, null, 'Hi');
    const resume = signVisitorToken({ accountId: a.account.id, inboxId: inbox.id, visitorId: first.visitor.id });
    const human = await say(inbox, resume, 'Can I talk to a human please');
    expect(human.turn?.status).toBe('handed_over');
    expect(human.messages.at(-1)?.text).toMatch(/connect you with someone/);

    const other = await say(inbox, null, 'Hi again');
    const resume2 = signVisitorToken({ accountId: a.account.id, inboxId: inbox.id, visitorId: other.visitor.id });
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: other.conversationId, text: 'An agent here', kind: 'outgoing' });
    const next = await say(inbox, resume2, 'Support');
    expect(next.turn).toEqual({ status: 'stopped', said: 0 });
    const [run] = await getDb().select().from(schema.chatbotRuns).where(eq(schema.chatbotRuns.conversationId, other.conversationId));
    expect(run.endReason).toBe('agent');

    // A third conversation reaches the close step: completed and resolved without an agent.
    const third = await say(inbox, null, 'Hey');
    const resume3 = signVisitorToken({ accountId: a.account.id, inboxId: inbox.id, visitorId: third.visitor.id });
    const closed = await say(inbox, resume3, 'Support');
    expect(closed.turn?.status).toBe('completed');
    const figures = (await chatbotFigures({ accountId: a.account.id, botIds: [bot.id] })).get(bot.id);
    expect(figures).toMatchObject({ started: 3, completed: 1, handedOver: 1, resolvedWithoutAgent: 1 });
  });

  it('answers only where its conditions hold', async () => {
    const { a, inbox, bot } = await setUp();
    await updateChatbotSettings({ accountId: a.account.id, id: bot.id, name: 'Greeter', enabled: true, inboxIds: [inbox.id], priority: 1, conditions: { ...DEFAULT_CONDITIONS, pageUrl: '/pricing' } });
    const { visitor } = await startVisitor({ inbox, token: null });
    const { conversationId } = await postVisitorMessage({ visitor, text: 'Hi' });
    const off = await runChatbotTurn({ visitor: { ...visitor, conversationId }, conversationId, text: 'Hi', pageUrl: 'https://shop.example/about', articleLink: (_d, p) => p });
    expect(off.said).toBe(0);
    const v2 = (await startVisitor({ inbox, token: null })).visitor;
    const c2 = (await postVisitorMessage({ visitor: v2, text: 'Hi' })).conversationId;
    const on = await runChatbotTurn({ visitor: { ...v2, conversationId: c2 }, conversationId: c2, text: 'Hi', pageUrl: 'https://shop.example/pricing?x=1', articleLink: (_d, p) => p });
    expect(on.said).toBe(2);
  });
});

describe('the builder', () => {
  it('refuses a malformed flow with a clear message and changes nothing', async () => {
    const { a, bot } = await setUp();
    const refuse = async (steps: unknown, message: RegExp) => {
      await expect(saveChatbotFlow({ accountId: a.account.id, id: bot.id, steps })).rejects.toThrow(message);
      await expect(saveChatbotFlow({ accountId: a.account.id, id: bot.id, steps })).rejects.toBeInstanceOf(ChatbotFlowError);
    };
    await refuse([{ id: 's1', type: 'message', text: 'Hi', next: 's9' }], /Step 1 \(Send a message\) goes to a step that does not exist/);
    await refuse(
      [
        { id: 's1', type: 'message', text: 'A', next: 's2' },
        { id: 's2', type: 'message', text: 'B', next: 's1' },
      ],
      /loop without waiting for the visitor/,
    );
    await refuse([{ id: 's1', type: 'question', text: 'Q', choices: [], next: null }], /Step 1 \(Ask a question with buttons\): A question needs at least one button/);
    await refuse([{ id: 's1', type: 'dance' }], /Step 1: unknown step type/);
    await refuse('not a list', /The flow must be a list of steps/);
    expect((await getChatbot({ accountId: a.account.id, id: bot.id }))?.steps).toEqual(FLOW);

    // Through the builder: a step pointing at a step that does not exist (a forged select value) is a 400.
    const cookie = await sessionCookie({ domain: a.account.domain, accountId: a.account.id, userId: a.owner.id });
    const res = await app.request(`/chatbots/${bot.id}`, { domain: a.account.domain, cookie, form: { intent: 'save-step', stepId: 's1', text: 'Hello', next: 's42' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Step 1 (Send a message) goes to a step that does not exist');
    expect((await getChatbot({ accountId: a.account.id, id: bot.id }))?.steps).toEqual(FLOW);
    const ok = await app.request(`/chatbots/${bot.id}`, { domain: a.account.domain, cookie, form: { intent: 'save-step', stepId: 's1', text: 'Welcome!', next: 's2' } });
    expect(ok.status).toBe(302);
    expect((await getChatbot({ accountId: a.account.id, id: bot.id }))?.steps[0]).toMatchObject({ text: 'Welcome!' });
  });

  it("never shows or changes another account's bots, and never attaches them to its inboxes", async () => {
    const one = await setUp();
    const two = await setUp();
    expect(await getChatbot({ accountId: two.a.account.id, id: one.bot.id })).toBeUndefined();
    expect((await listChatbots({ accountId: two.a.account.id })).map((b) => b.id)).toEqual([two.bot.id]);
    await expect(
      updateChatbotSettings({ accountId: two.a.account.id, id: two.bot.id, name: 'X', enabled: true, inboxIds: [one.inbox.id], priority: 0, conditions: DEFAULT_CONDITIONS }),
    ).rejects.toThrow('Choose web inboxes of this account');
    const cookie = await sessionCookie({ domain: two.a.account.domain, accountId: two.a.account.id, userId: two.a.owner.id });
    expect((await app.request(`/chatbots/${one.bot.id}`, { domain: two.a.account.domain, cookie })).status).toBe(404);
    const post = await app.request(`/chatbots/${one.bot.id}`, { domain: two.a.account.domain, cookie, form: { intent: 'delete' } });
    expect(post.status).toBe(404);
    expect(await getChatbot({ accountId: one.a.account.id, id: one.bot.id })).toBeDefined();
    // A handover to another account's team is refused.
    const [team] = await getDb().insert(schema.teams).values({ accountId: one.a.account.id, name: 'Theirs' }).returning();
    await expect(
      saveChatbotFlow({ accountId: two.a.account.id, id: two.bot.id, steps: [{ id: 's1', type: 'handover', text: 'x', teamId: team.id, userId: null }] }),
    ).rejects.toThrow('Choose a team of this account');
    // So is a booking link to another account's meeting.
    const [meeting] = await getDb().insert(schema.meetingTypes).values({ accountId: one.a.account.id, name: 'Theirs', slug: `theirs-${one.bot.id}-${Date.now()}` }).returning();
    await expect(
      saveChatbotFlow({ accountId: two.a.account.id, id: two.bot.id, steps: [{ id: 's1', type: 'meeting', text: 'x', meetingId: meeting.id, next: null }] }),
    ).rejects.toThrow('Choose a meeting of this account');
    // A visitor of account two's inbox never meets account one's bot.
    const talk = await say(two.inbox, null, 'Hi');
    const [run] = await getDb().select().from(schema.chatbotRuns).where(eq(schema.chatbotRuns.conversationId, talk.conversationId));
    expect(run.botId).toBe(two.bot.id);
    expect(await getDb().select().from(schema.chatbotRuns).where(eq(schema.chatbotRuns.botId, one.bot.id))).toEqual([]);
  });
});
