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
    if (event.type !== 'message_created') return true;
    const kind = (event.payload as { kind?: string }).kind;
    return kind === 'incoming' || kind === 'outgoing';
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
