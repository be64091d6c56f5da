import { getConfig } from '../../../utils/env.server';
import { hmac, safeEqual } from '../crypto.server';
import { exchangeCode, refreshTokens, type OAuth2Provider } from '../../../utils/oauth2.server';
import { IntegrationError, providerCall, tokenSet, viaOAuth } from '../http.server';

/**
 * HubSpot's CRM API v3/v4 and its OAuth 2.0 authorization-code grant (ADR 099). Access tokens last 30 minutes and
 * are refreshed before expiry with the refresh token; disconnect deletes the refresh token at HubSpot.
 */
export const HUBSPOT_SCOPES = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'crm.objects.owners.read',
].join(' ');

export function hubspotConfig() {
  const h = getConfig().integrations.hubspot;
  if (!h) throw new IntegrationError('HubSpot is not set up on this server (HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET)', 0);
  return h;
}

export function hubspotAuthorizeUrl(opts: { redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: hubspotConfig().clientId, redirect_uri: opts.redirectUri, scope: HUBSPOT_SCOPES, state: opts.state });
  return `${hubspotConfig().oauthBase}/oauth/authorize?${params}`;
}

/** POST /oauth/v1/token (form-encoded) for both the code and the refresh grant, through the one OAuth client. */
const hubspotOAuth = (): OAuth2Provider => {
  const h = hubspotConfig();
  return { name: 'HubSpot', authorizeUrl: `${h.oauthBase}/oauth/authorize`, tokenUrl: `${h.apiBase}/oauth/v1/token`, clientId: h.clientId, clientSecret: h.clientSecret };
};

export const exchangeHubspotCode = async (opts: { code: string; redirectUri: string }) => tokenSet(await viaOAuth(() => exchangeCode(hubspotOAuth(), opts)));
export const refreshHubspotToken = async (refreshToken: string) => tokenSet(await viaOAuth(() => refreshTokens(hubspotOAuth(), { refreshToken })));

/** GET /oauth/v1/access-tokens/{token}: the portal (hub_id) and user the token is for. */
export async function hubspotTokenInfo(token: string) {
  const res = await providerCall('HubSpot', `${hubspotConfig().apiBase}/oauth/v1/access-tokens/${encodeURIComponent(token)}`, {});
  const b = (res.body ?? {}) as Record<string, unknown>;
  return { hubId: String(b.hub_id ?? ''), hubDomain: String(b.hub_domain ?? ''), user: String(b.user ?? '') };
}

/** DELETE /oauth/v1/refresh-tokens/{token}: the grant ends. */
export async function revokeHubspotRefreshToken(refreshToken: string) {
  await providerCall('HubSpot', `${hubspotConfig().apiBase}/oauth/v1/refresh-tokens/${encodeURIComponent(refreshToken)}`, { method: 'DELETE' });
}

const api = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  providerCall('HubSpot', `${hubspotConfig().apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

type HsObject = { id: string; properties: Record<string, string | null> };
const results = (body: unknown) => ((body as { results?: HsObject[] })?.results ?? []) as HsObject[];

export const CONTACT_PROPS = ['email', 'firstname', 'lastname', 'phone', 'jobtitle', 'hs_lead_status', 'hubspot_owner_id', 'associatedcompanyid'];
export const DEAL_PROPS = ['dealname', 'dealstage', 'pipeline', 'closedate', 'amount', 'hubspot_owner_id'];

async function searchOne(token: string, object: 'contacts' | 'companies', propertyName: string, value: string, properties: string[]) {
  const res = await api(token, `/crm/v3/objects/${object}/search`, {
    method: 'POST',
    json: { filterGroups: [{ filters: [{ propertyName, operator: 'EQ', value }] }], properties, limit: 1 },
  });
  return results(res.body)[0] ?? null;
}

export const findHubspotContact = (token: string, email: string) => searchOne(token, 'contacts', 'email', email, CONTACT_PROPS);
export const findHubspotCompany = (token: string, domain: string) => searchOne(token, 'companies', 'domain', domain, ['name', 'domain']);

export async function createHubspotObject(
  token: string,
  object: 'contacts' | 'companies' | 'deals' | 'notes',
  properties: Record<string, string>,
  associations: { to: string; typeId: number }[] = [],
) {
  const res = await api(token, `/crm/v3/objects/${object}`, {
    method: 'POST',
    json: {
      properties,
      associations: associations.map((a) => ({ to: { id: a.to }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: a.typeId }] })),
    },
  });
  return res.body as HsObject;
}

export async function updateHubspotContact(token: string, id: string, properties: Record<string, string>) {
  await api(token, `/crm/v3/objects/contacts/${encodeURIComponent(id)}`, { method: 'PATCH', json: { properties } });
}

export async function getHubspotCompany(token: string, id: string) {
  const res = await api(token, `/crm/v3/objects/companies/${encodeURIComponent(id)}?properties=name,domain`);
  return res.body as HsObject;
}

/** PUT /crm/v4/objects/contact/{id}/associations/default/company/{companyId}: the default (primary) association. */
export async function associateContactCompany(token: string, contactId: string, companyId: string) {
  await api(token, `/crm/v4/objects/contact/${encodeURIComponent(contactId)}/associations/default/company/${encodeURIComponent(companyId)}`, { method: 'PUT' });
}

/** The contact's deals: the v4 associations, then one batch read. */
export async function listHubspotContactDeals(token: string, contactId: string) {
  const assoc = await api(token, `/crm/v4/objects/contacts/${encodeURIComponent(contactId)}/associations/deals`);
  const ids = ((assoc.body as { results?: { toObjectId: number | string }[] })?.results ?? []).map((r) => ({ id: String(r.toObjectId) })).slice(0, 20);
  if (ids.length === 0) return [];
  const res = await api(token, '/crm/v3/objects/deals/batch/read', { method: 'POST', json: { properties: DEAL_PROPS, inputs: ids } });
  return results(res.body);
}

export type HsPipeline = { id: string; label: string; stages: { id: string; label: string }[] };
export async function listHubspotPipelines(token: string): Promise<HsPipeline[]> {
  const res = await api(token, '/crm/v3/pipelines/deals');
  return ((res.body as { results?: HsPipeline[] })?.results ?? []).map((p) => ({
    id: String(p.id),
    label: String(p.label),
    stages: (p.stages ?? []).map((s) => ({ id: String(s.id), label: String(s.label) })),
  }));
}

export async function listHubspotOwners(token: string) {
  const res = await api(token, '/crm/v3/owners?limit=100');
  return ((res.body as { results?: { id: string; email?: string; firstName?: string; lastName?: string }[] })?.results ?? []).map((o) => ({
    id: String(o.id),
    label: `${o.firstName ?? ''} ${o.lastName ?? ''}`.trim() || (o.email ?? o.id),
  }));
}

/** HubSpot-defined association type ids (v4): deal → contact 3, note → contact 202. */
export const ASSOC = { dealToContact: 3, noteToContact: 202 } as const;

/**
 * Webhook signature v3: X-HubSpot-Signature-v3 is base64 HMAC-SHA256 with the app's secret of
 * method + full URI + raw body + X-HubSpot-Request-Timestamp, and the timestamp is at most five minutes old.
 */
export function verifyHubspotSignature(opts: {
  method: string;
  uri: string;
  rawBody: string;
  signature: string | null;
  timestamp: string | null;
  now?: number;
}) {
  const h = getConfig().integrations.hubspot;
  if (!h || !opts.signature || !opts.timestamp) return false;
  const ts = Number(opts.timestamp);
  if (!Number.isFinite(ts) || Math.abs((opts.now ?? Date.now()) - ts) > 5 * 60_000) return false;
  const expected = hmac('sha256', h.clientSecret, `${opts.method}${opts.uri}${opts.rawBody}${opts.timestamp}`).digest('base64');
  return safeEqual(opts.signature, expected);
}

export async function getHubspotContact(token: string, id: string) {
  const res = await api(token, `/crm/v3/objects/contacts/${encodeURIComponent(id)}?properties=${CONTACT_PROPS.join(',')}`);
  return res.body as HsObject;
}

/** The contact with the given properties (and `lastmodifieddate`, for the sync's last-change-wins rule) by email. */
export const findHubspotContactWith = (token: string, email: string, properties: string[]) =>
  searchOne(token, 'contacts', 'email', email, [...new Set(['email', 'lastmodifieddate', ...properties])]);

/**
 * The app's webhook subscriptions (Webhooks API v3, authenticated with the developer account's API key, `hapikey`):
 * they belong to the app, not to one portal, so Parley keeps one target URL and one `contact.propertyChange`
 * subscription per synced property for every account that connects (ADR 116).
 */
function hubspotApp() {
  const h = hubspotConfig();
  if (!h.appId || !h.developerApiKey) return null;
  return { base: `${h.apiBase}/webhooks/v3/${encodeURIComponent(h.appId)}`, key: `hapikey=${encodeURIComponent(h.developerApiKey)}` };
}

export const hubspotCanSubscribe = () => Boolean(getConfig().integrations.hubspot?.appId && getConfig().integrations.hubspot?.developerApiKey);

/** Sets the app's target URL and makes sure each property has an active `contact.propertyChange` subscription. */
export async function ensureHubspotSubscriptions(opts: { targetUrl: string; properties: string[] }) {
  const app = hubspotApp();
  if (!app) return false;
  await providerCall('HubSpot', `${app.base}/settings?${app.key}`, { method: 'PUT', json: { targetUrl: opts.targetUrl, throttling: { period: 'SECONDLY', maxConcurrentRequests: 10 } } });
  const res = await providerCall('HubSpot', `${app.base}/subscriptions?${app.key}`, {});
  const existing = ((res.body as { results?: { id: number; eventType: string; propertyName?: string; active: boolean }[] })?.results ?? []).filter((s) => s.eventType === 'contact.propertyChange');
  for (const property of opts.properties) {
    const sub = existing.find((s) => s.propertyName === property);
    if (!sub) await providerCall('HubSpot', `${app.base}/subscriptions?${app.key}`, { method: 'POST', json: { eventType: 'contact.propertyChange', propertyName: property, active: true } });
    else if (!sub.active) await providerCall('HubSpot', `${app.base}/subscriptions/${sub.id}?${app.key}`, { method: 'PATCH', json: { active: true } });
  }
  return true;
}
