import { findMentionedUsers } from '../../app/models/notifications/mentions';
import {
  conversationForNotice,
  conversationsForNotice,
  messageForNotice,
  messagesForNotice,
  type MessageForNotice,
  notifyUsers,
  responsibleUsers,
  teamMemberIds,
  usersWantingNewConversations,
} from '../../app/models/notifications/notifications.server';
import { listMentionableUsers } from '../../app/models/users/users.server';
import { engineConcurrency, NOTHING_DONE, type DomainEvent, type EventHandler, type HandlerOutcome } from './types';

const label = (c: { id: number; subject: string }) => `#${c.id} ${c.subject || '(no subject)'}`;
const excerpt = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 200);

/**
 * Tells agents what needs them (ADR 034): a conversation assigned to them or their team, a customer writing in
 * their conversation, a mention in a note, an SLA breach, a new conversation (for those who asked). The bell hears
 * of it live; the email follows, batched, when their preferences ask for it.
 */
export const notifyAgents: EventHandler = {
  name: 'notifications',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['conversation_assigned', 'message_created', 'sla_breached', 'conversation_created'],
  // The cases below that answer NOTHING_DONE from the payload alone (ADR 043): an automation's notes and
  // unassignments are most of what it writes, and none of them tells anyone.
  wants(event) {
    const p = event.payload as Record<string, unknown>;
    if (event.type === 'message_created') return p.kind === 'incoming' || (p.kind === 'note' && p.mentions !== false);
    if (event.type === 'conversation_assigned') {
      const assigneeId = typeof p.assigneeId === 'number' ? p.assigneeId : null;
      const teamId = typeof p.teamId === 'number' ? p.teamId : null;
      return (!!assigneeId && assigneeId !== p.previousAssigneeId) || (!!teamId && teamId !== p.previousTeamId);
    }
    return true;
  },
  async handle(event) {
    const c = await conversationForNotice({ accountId: event.accountId, conversationId: Number(event.subjectId) });
    const messageId = toldOfMessage(event, c);
    return tell(event, c, messageId === null ? undefined : await messageForNotice({ accountId: event.accountId, messageId }));
  },
  // A batch reads its conversations in one query, then the messages someone will be told of in another; then each
  // event as `handle` would, a few at a time.
  async handleBatch(events) {
    const convs = await conversationsForNotice(events.map((e) => ({ accountId: e.accountId, conversationId: Number(e.subjectId) })));
    const wantedMessages = events.flatMap((e, i) => {
      const messageId = toldOfMessage(e, convs[i]);
      return messageId === null ? [] : [{ i, accountId: e.accountId, messageId }];
    });
    const messages = new Map<number, MessageForNotice | undefined>();
    (await messagesForNotice(wantedMessages)).forEach((m, k) => messages.set(wantedMessages[k].i, m));
    const out: (HandlerOutcome | Error)[] = new Array(events.length);
    let next = 0;
    const lane = async () => {
      while (next < events.length) {
        const i = next++;
        try {
          out[i] = await tell(events[i], convs[i], messages.get(i));
        } catch (err) {
          out[i] = err as Error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(engineConcurrency(), events.length) }, lane));
    return out;
  },
};

type NoticeConversation = Awaited<ReturnType<typeof conversationForNotice>>;

/** The message a message_created event would tell someone of (null when no one: an incoming one in an unassigned conversation). */
function toldOfMessage(event: DomainEvent, c: NoticeConversation): number | null {
  if (event.type !== 'message_created' || !c) return null;
  const p = event.payload as Record<string, unknown>;
  if (p.kind === 'note' || (p.kind === 'incoming' && c.assigneeId)) return Number(p.messageId);
  return null;
}

async function tell(event: DomainEvent, c: NoticeConversation, message?: MessageForNotice): Promise<HandlerOutcome> {
  const accountId = event.accountId;
  const conversationId = Number(event.subjectId);
  const actorUserId = event.actorType === 'user' ? Number(event.actorId) : null;
  if (!c) return NOTHING_DONE;
  const base = { accountId, conversationId, eventId: event.id, actorUserId };
  const p = event.payload as Record<string, unknown>;
  const told: Record<string, number> = {};

  if (event.type === 'conversation_assigned') {
    const assigneeId = typeof p.assigneeId === 'number' ? p.assigneeId : null;
    const teamId = typeof p.teamId === 'number' ? p.teamId : null;
    if (assigneeId && assigneeId !== p.previousAssigneeId) {
      told.assigned = (await notifyUsers({ ...base, userIds: [assigneeId], kind: 'assigned', title: `Assigned to you: ${label(c)}` })).length;
    }
    if (teamId && teamId !== p.previousTeamId) {
      const members = (await teamMemberIds({ accountId, teamId })).filter((id) => id !== assigneeId);
      told.team = (await notifyUsers({ ...base, userIds: members, kind: 'team_assigned', title: `Assigned to your team: ${label(c)}` })).length;
    }
  } else if (event.type === 'message_created') {
    const kind = p.kind;
    if (kind !== 'incoming' && kind !== 'note') return NOTHING_DONE;
    if (!message) return NOTHING_DONE;
    if (kind === 'incoming') {
      if (!c.assigneeId) return NOTHING_DONE;
      told.customer = (
        await notifyUsers({ ...base, userIds: [c.assigneeId], kind: 'customer_message', title: `New message in ${label(c)}`, body: excerpt(message.text) })
      ).length;
    } else {
      const mentioned = findMentionedUsers(message.text, await listMentionableUsers({ accountId }));
      if (mentioned.length === 0) return NOTHING_DONE;
      told.mention = (
        await notifyUsers({
          ...base,
          actorUserId: message.senderUserId ?? actorUserId,
          userIds: mentioned.map((u) => u.id),
          kind: 'mention',
          title: `You were mentioned in ${label(c)}`,
          body: excerpt(message.text),
        })
      ).length;
    }
  } else if (event.type === 'sla_breached') {
    const what = p.target === 'response' ? 'first response' : 'resolution';
    told.sla = (
      await notifyUsers({ ...base, userIds: await responsibleUsers(accountId, c), kind: 'sla_breached', title: `SLA breached (${what}): ${label(c)}` })
    ).length;
  } else if (event.type === 'conversation_created') {
    const users = await usersWantingNewConversations({ accountId });
    if (users.length === 0) return NOTHING_DONE;
    told.created = (await notifyUsers({ ...base, userIds: users, kind: 'new_conversation', title: `New conversation: ${label(c)}` })).length;
  }
  return Object.values(told).some((n) => n > 0) ? told : NOTHING_DONE;
}
