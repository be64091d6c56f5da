import { listWebInboxes } from '../app/models/channels/messenger-settings.server';
import type { Inbox } from '../app/models/channels/widget.server';
import { createChatbot, saveChatbotFlow, updateChatbotSettings } from '../app/models/chatbots/chatbots.server';
import { DEFAULT_CONDITIONS } from '../app/models/chatbots/constants';
import { SAMPLE_FLOW } from '../app/models/chatbots/sample-flow';

/**
 * The demo's chatbots (ADR 075): the Acme assistant switched on for the website chat, using every kind of step and
 * handing over to Support, and a draft greeter. Their figures fill as visitors talk to them (the demo's existing
 * conversations predate the bots, so none is counted).
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
}
