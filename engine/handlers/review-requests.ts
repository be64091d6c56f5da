import { requestReview } from '../../app/models/reviews/requests.server';
import { NOTHING_DONE, type EventHandler } from './types';

type Changed = Record<string, { from: unknown; to: unknown }>;

/**
 * Review-request emails (ADR 086): a resolved conversation, or its CSAT rating when the setup asks only happy
 * customers, asks the contact for a review — once per contact per period (requestReview decides and sends).
 */
export const reviewRequests: EventHandler = {
  name: 'review-requests',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['conversation_updated', 'survey_received'],
  wants(event) {
    if (event.type === 'survey_received') return event.payload.kind === 'csat' && typeof event.payload.rating === 'number' && Boolean(event.payload.conversationId);
    const changed = (event.payload.changed ?? {}) as Changed;
    return changed.status?.to === 'resolved';
  },
  async handle(event) {
    if (!(await reviewRequests.wants!(event))) return NOTHING_DONE;
    const result =
      event.type === 'survey_received'
        ? await requestReview({ accountId: event.accountId, conversationId: Number(event.payload.conversationId), trigger: { kind: 'csat', rating: Number(event.payload.rating) }, causedByEventId: event.id })
        : await requestReview({ accountId: event.accountId, conversationId: Number(event.subjectId), trigger: { kind: 'resolved' }, causedByEventId: event.id });
    return result.sent ? result : NOTHING_DONE;
  },
};
