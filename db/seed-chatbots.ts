import { listWebInboxes } from '../app/models/channels/messenger-settings.server';
import { postVisitorMessage, signVisitorToken, startVisitor, type Inbox } from '../app/models/channels/widget.server';
import { runChatbotTurn } from '../app/models/chatbots/runner.server';
import { accountLink } from '../app/utils/tenant.server';
import { createChatbot, saveChatbotFlow, updateChatbotSettings } from '../app/models/chatbots/chatbots.server';
import { DEFAULT_CONDITIONS } from '../app/models/chatbots/constants';
import { SAMPLE_FLOW } from '../app/models/chatbots/sample-flow';

/**
 * The demo's chatbots (ADR 075): the Acme assistant switched on for the website chat, using every kind of step and
 * handing over to Support, and a draft greeter; three visitors have talked to the assistant (one resolved by the bot,
 * one handed over on request, one through the pricing branch), so its figures and the inbox show bot turns.
 */
export async function seedDemoChatbots(opts: { accountId: number; ownerId: number; supportTeamId: number }) {
  const inboxes = (await listWebInboxes({ accountId: opts.accountId })) as Inbox[];
  if (inboxes.length === 0) return;
  const bot = await createChatbot({ accountId: opts.accountId, actorId: opts.ownerId, name: 'Acme assistant' });
  await saveChatbotFlow({
    accountId: opts.accountId,
    id: bot.id,
    steps: SAMPLE_FLOW.map((s) => (s.type === 'handover' ? { ...s, teamId: opts.supportTeamId } : s)),
  });
  await updateChatbotSettings({ accountId: opts.accountId, id: bot.id, name: 'Acme assistant', enabled: true, inboxIds: inboxes.map((i) => i.id), priority: 10, conditions: DEFAULT_CONDITIONS });
  await createChatbot({ accountId: opts.accountId, actorId: opts.ownerId, name: 'Pricing page greeter' });
  const inbox = inboxes[0];
  await talk(inbox, ['Hi!', 'A question about my order', 'Where is my parcel?', 'Yes, thanks']);
  await talk(inbox, ['Hello', 'Can I talk to a human please?']);
  await talk(inbox, ['Hi there', 'Pricing', 'Do you have an enterprise plan?']);
}

/** One visitor's messages through the widget path: each message, then the bot's turn (as the widget's POST does). */
async function talk(inbox: Inbox, lines: string[]) {
  let token: string | null = null;
  for (const text of lines) {
    const { visitor } = await startVisitor({ inbox, token });
    token = signVisitorToken({ accountId: inbox.accountId, inboxId: inbox.id, visitorId: visitor.id });
    const { conversationId } = await postVisitorMessage({ visitor, text });
    await runChatbotTurn({ visitor: { ...visitor, conversationId }, conversationId, text, articleLink: (domain, path) => accountLink(domain, path) });
  }
}
