import { getLogger } from '../../../utils/logger.server';
import { accountsWithIntegrations } from '../plan.server';
import { freshAccessToken, getOpenConnection, listConnectionAccountsByExternal } from '../connections.server';
import {
  applyProviderChange,
  fieldsOfProperty,
  syncPush,
  syncSettings,
  writeSyncSettings,
  type SyncField,
  type SyncSettings,
} from '../crm-sync.server';
import { IntegrationError } from '../http.server';
import { createHubspotObject, ensureHubspotSubscriptions, findHubspotContactWith, getHubspotContact, updateHubspotContact, verifyHubspotSignature } from './client.server';
import { hubspotAdapter } from './hubspot.server';

/** Where HubSpot sends the app's webhooks: one address for every portal (the events name their portal). */
export const HUBSPOT_WEBHOOK_PATH = '/webhooks/integrations/hubspot';

/**
 * Saves the contact sync settings (ADR 116). Turning it on first makes sure the app's webhook subscriptions exist
 * (when the server has the app's id and developer API key), so a failure there leaves the sync off.
 * Answers whether Parley registered the subscriptions itself.
 */
export async function saveHubspotSync(opts: { accountId: number; sync: SyncSettings; webhookUrl: string }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'hubspot' });
  if (!conn) throw new IntegrationError('HubSpot is not connected', 400);
  const subscribed = opts.sync.enabled ? await ensureHubspotSubscriptions({ targetUrl: opts.webhookUrl, properties: [...new Set(Object.values(opts.sync.fields))] }) : false;
  await writeSyncSettings({ accountId: opts.accountId, provider: 'hubspot', sync: opts.sync });
  return { subscribed };
}

/**
 * Parley → HubSpot for one contact event: the mapped fields are written to the HubSpot contact with the same email
 * (created when there is none), unless HubSpot's record changed after the Parley change (`at`): the later change wins.
 */
export async function pushContactToHubspot(opts: { accountId: number; contactId: number; fields: SyncField[]; at: Date }) {
  const push = await syncPush({ ...opts, provider: 'hubspot' });
  if (!push) return { skipped: 'nothing-to-send' };
  const { conn, contact, wanted, all } = push;
  const token = await freshAccessToken(conn, hubspotAdapter);
  const found = await findHubspotContactWith(token, contact.email, Object.keys(wanted));
  if (!found) {
    // A new HubSpot contact gets every mapped field, not only the changed ones.
    const created = await createHubspotObject(token, 'contacts', { email: contact.email, ...Object.fromEntries(all.filter(([, v]) => v)) });
    return { created: created.id };
  }
  const modified = Date.parse(found.properties.lastmodifieddate ?? '');
  if (Number.isFinite(modified) && modified > opts.at.getTime()) return { skipped: 'hubspot-newer', id: found.id };
  const diff = Object.fromEntries(Object.entries(wanted).filter(([p, v]) => (found.properties[p] ?? '') !== v));
  if (Object.keys(diff).length === 0) return { skipped: 'same', id: found.id };
  await updateHubspotContact(token, found.id, diff);
  return { updated: found.id, properties: Object.keys(diff) };
}

type HubspotEvent = { subscriptionType?: string; portalId?: number | string; objectId?: number | string; propertyName?: string; propertyValue?: unknown; occurredAt?: number };

/**
 * POST /webhooks/integrations/hubspot: a batch of events signed with X-HubSpot-Signature-v3 (checked before the body
 * is read). Each `contact.propertyChange` of a synced property reaches every Parley account connected to that portal
 * with the sync on. A failed event answers 500, so HubSpot sends the batch again (applying a change twice is a no-op).
 */
export async function handleHubspotWebhook(opts: { method: string; uri: string; rawBody: string; headers: Headers }) {
  const signed = verifyHubspotSignature({
    method: opts.method,
    uri: opts.uri,
    rawBody: opts.rawBody,
    signature: opts.headers.get('x-hubspot-signature-v3'),
    timestamp: opts.headers.get('x-hubspot-request-timestamp'),
  });
  if (!signed) return { status: 401, text: 'Invalid signature' };
  let events: HubspotEvent[];
  try {
    const parsed: unknown = JSON.parse(opts.rawBody);
    if (!Array.isArray(parsed)) return { status: 400, text: 'Expected an array of events' };
    events = parsed.slice(0, 200) as HubspotEvent[];
  } catch {
    return { status: 400, text: 'Invalid JSON' };
  }
  let applied = 0;
  let failed = 0;
  for (const e of events) {
    if (e?.subscriptionType !== 'contact.propertyChange' || !e.propertyName || e.objectId === undefined || e.portalId === undefined) continue;
    // Only the accounts whose plan has integrations (ADR 157): the others' deliveries are answered 200 and ignored.
    for (const accountId of await accountsWithIntegrations(await listConnectionAccountsByExternal({ provider: 'hubspot', externalAccount: String(e.portalId) }))) {
      try {
        if (await applyHubspotEvent(accountId, e)) applied++;
      } catch (err) {
        failed++;
        getLogger().warn({ provider: 'hubspot', accountId, err: (err as Error).message }, 'hubspot sync event failed');
      }
    }
  }
  return failed ? { status: 500, text: 'Some events failed; send them again' } : { status: 200, text: `applied ${applied}` };
}

async function applyHubspotEvent(accountId: number, e: HubspotEvent) {
  const conn = await getOpenConnection({ accountId, provider: 'hubspot' });
  if (!conn || !syncSettings('hubspot', conn.settings).enabled) return false;
  const fields = fieldsOfProperty(conn, 'hubspot', e.propertyName!);
  if (fields.length === 0) return false;
  const token = await freshAccessToken(conn, hubspotAdapter);
  const hs = await getHubspotContact(token, String(e.objectId));
  const email = hs.properties?.email;
  if (!email) return false;
  const value = e.propertyValue === null || e.propertyValue === undefined ? '' : String(e.propertyValue);
  const at = new Date(Number(e.occurredAt) || Date.now());
  const out = await applyProviderChange({ accountId, provider: 'hubspot', email, values: Object.fromEntries(fields.map((f) => [f, value])), at });
  return out.applied;
}
