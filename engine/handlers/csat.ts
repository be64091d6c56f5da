import { requestCsatRating } from '../../app/models/csat/csat.server';
import { NOTHING_DONE, type EventHandler } from './types';

type Changed = Record<string, { from: unknown; to: unknown }>;

/** A resolved conversation asks its customer for a rating when its inbox has an email or chat survey (issue 15, ADR 063). */
export const csatOnResolve: EventHandler = {
  name: 'csat',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['conversation_updated'],
  wants(event) {
    const changed = (event.payload.changed ?? {}) as Changed;
    return changed.status?.to === 'resolved';
  },
  async handle(event) {
    const changed = (event.payload.changed ?? {}) as Changed;
    if (changed.status?.to !== 'resolved') return NOTHING_DONE;
    const result = await requestCsatRating({ accountId: event.accountId, conversationId: Number(event.subjectId), causedByEventId: event.id });
    return result.asked ? result : NOTHING_DONE;
  },
};
