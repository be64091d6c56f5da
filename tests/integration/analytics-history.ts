import { getDb, schema } from '../../db/client';
import { createInbox } from '../../app/models/inbox/inboxes.server';

/**
 * A small hand-made event history (analytics tests): four conversations over two days, 10 and 11 November 2026
 * (UTC), written straight into the event log with their times, and the figures a person computes from it.
 */
export const HISTORY_FROM = '2026-11-10';
export const HISTORY_TO = '2026-11-11';

/** Writes hand-made events ('DDTHH:MM' of November 2026, UTC) straight into the account's event log. */
export function writeHistory(accountId: number, events: { type: string; subject: string | number; at: string; payload?: Record<string, unknown>; actor?: number; subjectType?: string }[]) {
  return getDb()
    .insert(schema.domainEvents)
    .values(
      events.map((e) => ({
        accountId,
        type: e.type,
        subjectType: e.subjectType ?? 'conversation',
        subjectId: String(e.subject),
        payload: e.payload ?? {},
        actorType: e.actor ? ('user' as const) : ('system' as const),
        actorId: e.actor ?? null,
        occurredAt: new Date(`2026-11-${e.at}:00Z`),
      })),
    )
    .returning({ id: schema.domainEvents.id });
}

export async function seedHandMadeHistory(opts: { accountId: number; agentId: number }) {
  const { accountId, agentId } = opts;
  const suffix = `${accountId}-${Math.random().toString(36).slice(2, 7)}`;
  const inboxA = await createInbox({ accountId, actorId: agentId, name: 'Support', channelType: 'email', email: `support-${suffix}@history.test` });
  const inboxB = await createInbox({ accountId, actorId: agentId, name: 'Website', channelType: 'web' });
  const conv = (n: number) => String(880000 + n);
  type E = { type: string; subject: string; at: string; payload?: Record<string, unknown>; actor?: number; subjectType?: string };
  const created = (n: number, inbox: number, sourceType: string, when: string): E => ({ type: 'conversation_created', subject: conv(n), at: when, payload: { inboxId: inbox, sourceType } });
  const incoming = (n: number, when: string): E => ({ type: 'message_created', subject: conv(n), at: when, payload: { kind: 'incoming' } });
  const reply = (n: number, when: string): E => ({ type: 'message_created', subject: conv(n), at: when, payload: { kind: 'outgoing' }, actor: agentId });
  const note = (n: number, when: string): E => ({ type: 'message_created', subject: conv(n), at: when, payload: { kind: 'note', mentions: false }, actor: agentId });
  const resolved = (n: number, when: string): E => ({ type: 'conversation_updated', subject: conv(n), at: when, payload: { changed: { status: { from: 'open', to: 'resolved' } } } });
  const rating = (n: number, inbox: number, r: number, when: string): E => ({
    type: 'survey_received',
    subject: String(770000 + n),
    subjectType: 'survey_response',
    at: when,
    payload: { kind: 'csat', rating: r, conversationId: Number(conv(n)), inboxId: inbox, surveyId: 0, channel: 'email' },
  });
  const events: E[] = [
    created(1, inboxA.id, 'email', '10T09:00'),
    incoming(1, '10T09:00'),
    { type: 'conversation_assigned', subject: conv(1), at: '10T09:05', payload: { assigneeId: agentId, teamId: null } },
    reply(1, '10T09:10'),
    reply(1, '10T09:20'),
    note(1, '10T09:25'),
    created(2, inboxA.id, 'email', '10T09:30'),
    incoming(2, '10T09:30'),
    { type: 'conversation_updated', subject: conv(2), at: '10T09:40', payload: { changed: { tags: { added: [7] } } } },
    resolved(1, '10T10:00'),
    reply(2, '10T10:00'),
    rating(1, inboxA.id, 5, '10T10:30'),
    resolved(2, '10T11:30'),
    rating(2, inboxA.id, 2, '10T12:00'),
    created(3, inboxB.id, 'web', '11T14:00'),
    incoming(3, '11T14:00'),
    { type: 'sla_breached', subject: conv(3), at: '11T15:00', payload: { target: 'response', policyId: 1, priority: 'high', inboxId: inboxB.id } },
    created(4, inboxB.id, 'web', '11T16:00'),
    incoming(4, '11T16:00'),
    incoming(4, '11T16:01'),
    reply(4, '11T16:05'),
    resolved(4, '11T16:30'),
  ];
  const rows = await writeHistory(accountId, events);
  return {
    inboxA,
    inboxB,
    eventIds: rows.map((r) => r.id),
    // Computed by hand from the list above.
    expected: {
      conversations: 4,
      incomingMessages: 5,
      replies: 4,
      resolved: 3,
      resolutionSeconds: 3600 + 7200 + 1800,
      firstResponses: 3,
      firstResponseSeconds: 600 + 1800 + 300,
      csatRatings: 2,
      csatAverage: 3.5,
      csatSatisfiedPercent: 50,
      slaBreaches: 1,
      tagged: 1,
    },
  };
}
