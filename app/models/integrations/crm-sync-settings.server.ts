import type { z } from 'zod';
import { checkSyncMapping, CRM_PROPERTIES, SYNC_FIELDS, SYNC_FIELD_KEYS, syncSettings, type CrmProvider } from './crm-sync.server';
import type { CrmSyncSchema } from './crm-sync-schemas';
import { hubspotCanSubscribe } from './hubspot/client.server';
import { HUBSPOT_WEBHOOK_PATH, saveHubspotSync } from './hubspot/sync.server';
import { IntegrationError } from './http.server';
import { savePipedriveSync } from './pipedrive/sync.server';

export const isCrmProvider = (p: string): p is CrmProvider => p === 'hubspot' || p === 'pipedrive';

/** What the settings page shows of a CRM connection's contact sync (ADR 116). */
export function crmSyncView(provider: CrmProvider, settings: Record<string, unknown>, publicBase: string) {
  const sync = syncSettings(provider, settings);
  return {
    enabled: sync.enabled,
    fields: sync.fields,
    parleyFields: SYNC_FIELD_KEYS.map((k) => ({ key: k, label: SYNC_FIELDS[k] })),
    properties: Object.entries(CRM_PROPERTIES[provider]).map(([value, label]) => ({ value, label })),
    /** HubSpot without the app's id and developer key: the admin sets the app's webhook by hand, to this address. */
    manualWebhook: provider === 'hubspot' && !hubspotCanSubscribe() ? `${publicBase}${HUBSPOT_WEBHOOK_PATH}` : null,
  };
}

/**
 * Saves the opt-in and mapping: checked first (field errors), then the provider's webhook is set up (an error there is
 * a form error and the sync stays as it was), then the settings are written.
 */
export async function saveCrmSync(opts: { accountId: number; provider: CrmProvider; input: z.infer<typeof CrmSyncSchema>; publicBase: string }) {
  const { errors, settings } = checkSyncMapping(opts.provider, { enabled: opts.input.enabled === 'on', fields: opts.input });
  const { '': formErrors, ...fieldErrors } = errors;
  if (formErrors || Object.keys(fieldErrors).length) return { ok: false as const, fieldErrors: fieldErrors as Record<string, string[]>, formErrors: formErrors ?? [] };
  try {
    if (opts.provider === 'hubspot') {
      const out = await saveHubspotSync({ accountId: opts.accountId, sync: settings, webhookUrl: `${opts.publicBase}${HUBSPOT_WEBHOOK_PATH}` });
      const manual = settings.enabled && !out.subscribed;
      return { ok: true as const, message: !settings.enabled ? 'Contact sync turned off' : manual ? 'Contact sync turned on; set the webhook in your HubSpot app as shown below' : 'Contact sync turned on' };
    }
    await savePipedriveSync({ accountId: opts.accountId, sync: settings, webhookBase: opts.publicBase });
    return { ok: true as const, message: settings.enabled ? 'Contact sync turned on' : 'Contact sync turned off' };
  } catch (err) {
    if (err instanceof IntegrationError) return { ok: false as const, fieldErrors: {}, formErrors: [err.message] };
    throw err;
  }
}
