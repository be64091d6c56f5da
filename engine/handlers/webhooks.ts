import { WEBHOOK_EVENT_TYPES } from '../../app/models/webhooks/constants';
import { enqueueWebhookDeliveries, hasWebhookFor } from '../../app/models/webhooks/webhooks.server';
import { NOTHING_DONE, type EventHandler } from './types';

/** Outgoing webhooks (ADR 077): an event an account subscribed to becomes one delivery job per endpoint. */
export const webhookDeliveries: EventHandler = {
  name: 'webhook-deliveries',
  on: [...WEBHOOK_EVENT_TYPES],
  // No subscription, no job: accounts without webhooks pay one indexed read per event of these types, nothing more.
  wants: (event, db) => hasWebhookFor({ accountId: event.accountId, type: event.type, db }),
  async handle(event) {
    const queued = await enqueueWebhookDeliveries({ ...event, id: Number(event.id) });
    return queued === 0 ? NOTHING_DONE : { queued };
  },
};
