import { reachUrlGoals } from '../../app/models/conversions/conversions.server';
import { NOTHING_DONE, type EventHandler } from './types';

/**
 * URL goals (ADR 120): a known contact's page view reaches the active URL goals its URL matches. In the engine, so
 * the messenger's page-view path stays as it was (ADR 105); the goal's row makes a redelivery add nothing.
 */
export const urlGoals: EventHandler = {
  name: 'url-goals',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['page_viewed'],
  wants(event) {
    return Boolean((event.payload as { contactId?: unknown }).contactId);
  },
  async handle(event) {
    const p = event.payload as { contactId?: number | null; url?: string };
    const reached = await reachUrlGoals({
      accountId: event.accountId,
      contactId: p.contactId ?? null,
      url: p.url ?? '',
      at: event.occurredAt,
      pageViewEventId: event.id,
    });
    return reached.length ? { reached } : NOTHING_DONE;
  },
};
