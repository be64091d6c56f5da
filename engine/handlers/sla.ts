import { applySla, escalateBreach, recheckAfterReopen, recordFirstResponse, type SlaTargetKind } from '../../app/models/automation/sla.server';
import { NOTHING_DONE, type EventHandler } from './types';

type Changed = Record<string, { from: unknown; to: unknown }>;

/**
 * SLA due times follow the conversation: set when it opens, reset when its priority or inbox changes, met by the
 * first agent reply; a reopened conversation past its resolve time is checked at once.
 */
export const slaTimers: EventHandler = {
  name: 'sla',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['conversation_created', 'conversation_updated', 'message_created'],
  wants(event) {
    if (event.type === 'message_created') return event.payload.kind === 'outgoing' && event.actorType === 'user';
    if (event.type === 'conversation_updated') {
      const changed = (event.payload.changed ?? {}) as Changed;
      return 'priority' in changed || 'inboxId' in changed || changed.status?.from === 'resolved';
    }
    return true;
  },
  async handle(event) {
    const conversationId = Number(event.subjectId);
    const accountId = event.accountId;
    if (event.type === 'conversation_created') {
      const applied = await applySla({ accountId, conversationId });
      return applied.applied ? applied : NOTHING_DONE;
    }
    if (event.type === 'message_created') {
      if (event.payload.kind !== 'outgoing' || event.actorType !== 'user') return NOTHING_DONE;
      return {
        met: await recordFirstResponse({
          accountId,
          conversationId,
          at: event.occurredAt,
        }),
      };
    }
    const changed = (event.payload.changed ?? {}) as Changed;
    if ('priority' in changed || 'inboxId' in changed) return applySla({ accountId, conversationId });
    if (changed.status && changed.status.from === 'resolved')
      return {
        rechecked: await recheckAfterReopen({ accountId, conversationId }),
      };
    return NOTHING_DONE;
  },
};

/** sla_breached: the escalation mail to the policy's list. */
export const slaEscalation: EventHandler = {
  name: 'sla-escalation',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['sla_breached'],
  handle: (event) =>
    escalateBreach({
      accountId: event.accountId,
      conversationId: Number(event.subjectId),
      target: event.payload.target as SlaTargetKind,
      dueAt: String(event.payload.dueAt),
      policyId: event.payload.policyId === null || event.payload.policyId === undefined ? null : Number(event.payload.policyId),
    }),
};
