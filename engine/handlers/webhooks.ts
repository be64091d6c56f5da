import { WEBHOOK_EVENT_TYPES } from '../../app/models/webhooks/constants';
import { enqueueWebhookDeliveries, hasWebhookFor } from '../../app/models/webhooks/webhooks.server';
import type { DbOrTx } from '../../db/client';
import { engineConcurrency, NOTHING_DONE, type EventHandler, type HandlerOutcome } from './types';

// One answer per (account, type) per transaction (ADR 109): a transaction that writes a hundred events (the engine
// applying a batch's actions) reads the subscriptions once per type, not once per event. A subscription saved by
// another transaction meanwhile is seen by the next transaction, as with the rule cache's NOTIFY window (ADR 031).
const subscribedIn = new WeakMap<object, Map<string, Promise<boolean>>>();
function subscribed(accountId: number, type: string, db?: DbOrTx) {
  if (!db) return hasWebhookFor({ accountId, type });
  let memo = subscribedIn.get(db);
  if (!memo) subscribedIn.set(db, (memo = new Map()));
  const key = `${accountId}:${type}`;
  let answer = memo.get(key);
  if (!answer) memo.set(key, (answer = hasWebhookFor({ accountId, type, db })));
  return answer;
}

/** Outgoing webhooks (ADR 077): an event an account subscribed to becomes one delivery job per endpoint. */
export const webhookDeliveries: EventHandler = {
  name: 'webhook-deliveries',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: [...WEBHOOK_EVENT_TYPES],
  // No subscription, no job: accounts without webhooks pay one indexed read per event of these types, nothing more.
  wants: (event, db) => subscribed(event.accountId, event.type, db),
  async handle(event) {
    const queued = await enqueueWebhookDeliveries({ ...event, id: Number(event.id) });
    return queued === 0 ? NOTHING_DONE : { queued };
  },
  // A batch queued for other handlers: one subscription read per (account, type), a transaction only for subscribed events.
  async handleBatch(events) {
    const memo = new Map<string, Promise<boolean>>();
    const out: (HandlerOutcome | Error)[] = events.map(() => NOTHING_DONE);
    let next = 0;
    const lane = async () => {
      while (next < events.length) {
        const i = next++;
        const event = events[i];
        try {
          const key = `${event.accountId}:${event.type}`;
          if (!memo.has(key)) memo.set(key, hasWebhookFor({ accountId: event.accountId, type: event.type }));
          if (await memo.get(key)) out[i] = await webhookDeliveries.handle(event);
        } catch (err) {
          out[i] = err as Error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(engineConcurrency(), events.length) }, lane));
    return out;
  },
};
