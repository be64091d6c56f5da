import { crmSyncProviders, fieldsToSend, syncSettings } from '../../app/models/integrations/crm-sync.server';
import { getOpenConnection } from '../../app/models/integrations/connections.server';
import { pushContactToHubspot } from '../../app/models/integrations/hubspot/sync.server';
import { pushContactToPipedrive } from '../../app/models/integrations/pipedrive/sync.server';
import { NOTHING_DONE, type EventHandler } from './types';

const PUSH = { hubspot: pushContactToHubspot, pipedrive: pushContactToPipedrive } as const;

/**
 * The CRM contact sync, Parley → HubSpot / Pipedrive (ADR 116): a new or changed contact's mapped fields go to each
 * CRM with the sync on, except the one the change came from (`payload.origin`), so a change travels once each way.
 */
export const crmContactSync: EventHandler = {
  name: 'crm-contact-sync',
  // Reads and writes nothing the handlers next to it do (ADR 139).
  parallel: true,
  on: ['contact_created', 'contact_updated'],
  // Accounts without a synced CRM pay one indexed read per contact event, nothing more.
  wants: async (event, db) => (await crmSyncProviders({ accountId: event.accountId, db })).some((p) => p !== event.payload.origin),
  async handle(event) {
    const done: Record<string, unknown> = {};
    for (const provider of await crmSyncProviders({ accountId: event.accountId })) {
      if (provider === event.payload.origin) continue;
      const conn = await getOpenConnection({ accountId: event.accountId, provider });
      const fields = fieldsToSend(event, syncSettings(provider, conn?.settings).fields);
      if (fields.length === 0) continue;
      done[provider] = await PUSH[provider]({ accountId: event.accountId, contactId: Number(event.subjectId), fields, at: event.occurredAt });
    }
    return Object.keys(done).length ? done : NOTHING_DONE;
  },
};
