import { getConversationInbox, handOutWaitingConversations, routeConversation } from '../../app/models/automation/routing.server';
import { NOTHING_DONE, type EventHandler } from './types';

type Diff = Record<string, { from: unknown; to: unknown }>;
const OPEN = new Set(['open', 'pending']);
const isOpen = (status: unknown) => OPEN.has(String(status));

/**
 * Routing rules: a new conversation goes to the agent its inbox's rule picks; waiting conversations are handed
 * out when an agent comes online or has room again (a conversation of theirs closed, moved or went to someone
 * else), or when a rule is set up. Runs after workflows, which may assign first.
 */
export const routeByRules: EventHandler = {
  name: 'routing',
  on: ['conversation_created', 'agent_presence_changed', 'conversation_updated', 'conversation_assigned', 'routing_rule_created', 'routing_rule_updated'],
  // The cases below that answer NOTHING_DONE without a read.
  wants(event) {
    const payload = event.payload as Record<string, unknown>;
    if (event.type === 'agent_presence_changed') return payload.online === true;
    if (event.type === 'conversation_assigned') {
      const from = payload.previousAssigneeId ?? null;
      const to = payload.assigneeId ?? null;
      return !(from === to || (from === null && to !== null));
    }
    if (event.type === 'conversation_updated') {
      const changed = (payload.changed ?? {}) as Diff;
      return (!!changed.status && isOpen(changed.status.from) !== isOpen(changed.status.to)) || !!changed.inboxId;
    }
    return true;
  },
  async handle(event) {
    const accountId = event.accountId;
    const payload = event.payload as Record<string, unknown>;
    // Nothing assigned leaves nothing to remember: a redelivery may simply try again.
    const done = (assigned: { conversationId: number; userId: number }[]) => (assigned.length ? { assigned } : NOTHING_DONE);

    switch (event.type) {
      case 'conversation_created':
        return done(
          await routeConversation({
            accountId,
            conversationId: Number(event.subjectId),
            eventId: event.id,
          }),
        );

      case 'agent_presence_changed':
        if (payload.online !== true) return NOTHING_DONE;
        return done(await handOutWaitingConversations({ accountId, eventId: event.id }));

      case 'routing_rule_created':
      case 'routing_rule_updated':
        return done(
          await handOutWaitingConversations({
            accountId,
            inboxIds: [Number(payload.inboxId)],
            eventId: event.id,
          }),
        );

      case 'conversation_assigned': {
        // A first assignment of a waiting conversation frees nobody; anything else (unassigned, taken from an
        // agent, passed to another) may leave a conversation waiting or an agent under the limit.
        const from = payload.previousAssigneeId ?? null;
        const to = payload.assigneeId ?? null;
        if (from === to || (from === null && to !== null)) return NOTHING_DONE;
        return done(
          await handOutWaitingConversations({
            accountId,
            inboxIds: await inboxOf(event),
            eventId: event.id,
          }),
        );
      }

      case 'conversation_updated': {
        const changed = (payload.changed ?? {}) as Diff;
        const inboxIds: number[] = [];
        // Closed, snoozed or reopened: an agent has room again, or the conversation waits again.
        if (changed.status && isOpen(changed.status.from) !== isOpen(changed.status.to)) inboxIds.push(...(await inboxOf(event)));
        // Moved: the old inbox has room, the new one may have a rule for it.
        if (changed.inboxId) inboxIds.push(Number(changed.inboxId.from), Number(changed.inboxId.to));
        if (inboxIds.length === 0) return NOTHING_DONE;
        return done(
          await handOutWaitingConversations({
            accountId,
            inboxIds: [...new Set(inboxIds)],
            eventId: event.id,
          }),
        );
      }
      default:
        return NOTHING_DONE;
    }
  },
};

async function inboxOf(event: { accountId: number; subjectId: string }) {
  const inboxId = await getConversationInbox({
    accountId: event.accountId,
    conversationId: Number(event.subjectId),
  });
  return inboxId === null ? [] : [inboxId];
}
