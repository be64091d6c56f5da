import { PROJECTED_EVENT_TYPES, projectEvents } from '../../app/models/analytics/projection.server';
import type { EventHandler } from './types';

/**
 * Analytics projections (ADR 090): a batch's events counted in one statement, with the ledger line of each event in
 * the same statement, so a redelivery counts nothing twice. Records itself: the ledger is its record.
 */
export const analyticsProjections: EventHandler = {
  name: 'analytics',
  on: [...PROJECTED_EVENT_TYPES],
  recordsItself: true,
  // Counts from the committed log only (ADR 127): it runs while the automation and the other handlers do.
  alongside: true,
  wants(event) {
    if (event.type === 'message_created') {
      const kind = (event.payload as { kind?: string }).kind;
      return kind === 'incoming' || kind === 'outgoing';
    }
    // A conversation's update counts only when it resolves it or adds tags (the facts 'resolved' and 'tagged'); the
    // others (subject, priority, assignee…) count nothing, so they are not queued for this handler (ADR 127).
    if (event.type === 'conversation_updated') {
      const changed = (event.payload as { changed?: { status?: { to?: unknown }; tags?: { added?: unknown } } }).changed;
      return changed?.status?.to === 'resolved' || (Array.isArray(changed?.tags?.added) && changed.tags.added.length > 0);
    }
    return true;
  },
  async handle(event) {
    const { counted } = await projectEvents({ eventIds: [Number(event.id)] });
    return { counted };
  },
  async handleBatch(events) {
    const { counted } = await projectEvents({ eventIds: events.map((e) => Number(e.id)) });
    return events.map(() => ({ counted }));
  },
};
