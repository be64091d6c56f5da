import { and, asc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../../db/client';
import {
  disconnectIntegration,
  freshAccessToken,
  getOpenConnection,
  saveConnection,
  signIntegrationState,
  verifyIntegrationState,
  type OAuthAdapter,
} from '../connections.server';
import { IntegrationError } from '../http.server';
import { conversationContact as crmContact, crmNote } from '../crm.server';
import { ConnectRefusedError } from '../shopify/shopify.server';
import {
  ASSOC,
  associateContactCompany,
  createHubspotObject,
  exchangeHubspotCode,
  findHubspotCompany,
  findHubspotContact,
  getHubspotCompany,
  hubspotAuthorizeUrl,
  hubspotTokenInfo,
  listHubspotContactDeals,
  listHubspotOwners,
  listHubspotPipelines,
  refreshHubspotToken,
  revokeHubspotRefreshToken,
  type HsPipeline,
} from './client.server';

/**
 * HubSpot (ADR 099): the contact and company found (or created) by the Parley contact's email and its domain, the
 * contact's deals with the specification's labels, new deals, and the conversation logged as a note on the contact.
 */
export const hubspotAdapter: OAuthAdapter = {
  refresh: (refreshToken) => refreshHubspotToken(refreshToken),
  revoke: async (conn) => {
    if (conn.refreshToken) await revokeHubspotRefreshToken(conn.refreshToken);
  },
};

export function startHubspotConnect(opts: { accountId: number; userId: number; redirectUri: string }) {
  return hubspotAuthorizeUrl({ redirectUri: opts.redirectUri, state: signIntegrationState({ ...opts, provider: 'hubspot' }) });
}

export async function finishHubspotConnect(opts: { accountId: number; userId: number; params: URLSearchParams; redirectUri: string }) {
  if (!verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'hubspot' }))
    throw new ConnectRefusedError('The HubSpot sign-in link has expired or was not started here. Please connect again.');
  const tokens = await exchangeHubspotCode({ code: (opts.params.get('code') ?? '').slice(0, 512), redirectUri: opts.redirectUri });
  const info = await hubspotTokenInfo(tokens.accessToken);
  if (!info.hubId) throw new IntegrationError('HubSpot did not say which account the token is for', 0);
  return saveConnection({
    accountId: opts.accountId,
    userId: opts.userId,
    provider: 'hubspot',
    externalAccount: info.hubId,
    tokens,
    settings: { hubDomain: info.hubDomain, user: info.user },
  });
}

export const disconnectHubspot = (opts: { accountId: number; userId: number }) =>
  disconnectIntegration({ ...opts, provider: 'hubspot', adapter: hubspotAdapter });

async function tokenFor(accountId: number) {
  const conn = await getOpenConnection({ accountId, provider: 'hubspot' });
  if (!conn) throw new IntegrationError('HubSpot is not connected', 0);
  return { conn, token: await freshAccessToken(conn, hubspotAdapter) };
}

export type HubspotDeal = { id: string; name: string; stage: string; pipeline: string; closeDate: string; amount: string; owner: string };
export type HubspotPanel =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string }
  | {
      state: 'ok';
      portal: string;
      contact: { id: string; name: string; email: string; leadStatus: string; company: { id: string; name: string } | null } | null;
      deals: HubspotDeal[];
    };

function stageNames(pipelines: HsPipeline[]) {
  const pipeline = new Map(pipelines.map((p) => [p.id, p.label]));
  const stage = new Map(pipelines.flatMap((p) => p.stages.map((s) => [s.id, s.label] as const)));
  return { pipeline: (id: string) => pipeline.get(id) ?? id, stage: (id: string) => stage.get(id) ?? id };
}

/** The side panel: the HubSpot contact with the Parley contact's email, its company and deals, read live. */
export async function hubspotPanelFor(opts: { accountId: number; email: string | null }): Promise<HubspotPanel> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'hubspot' }).catch((err) => (err instanceof Error ? err : null));
  if (!conn) return { state: 'not-connected' };
  if (conn instanceof Error) return { state: 'error', message: conn.message };
  if (!opts.email) return { state: 'no-email' };
  try {
    const token = await freshAccessToken(conn, hubspotAdapter);
    const portal = String(conn.settings.hubDomain || conn.externalAccount);
    const found = await findHubspotContact(token, opts.email);
    if (!found) return { state: 'ok', portal, contact: null, deals: [] };
    const p = found.properties;
    const companyId = p.associatedcompanyid || null;
    const [company, deals, pipelines, owners] = await Promise.all([
      companyId ? getHubspotCompany(token, companyId).catch(() => null) : Promise.resolve(null),
      listHubspotContactDeals(token, found.id),
      listHubspotPipelines(token),
      listHubspotOwners(token).catch(() => []),
    ]);
    const names = stageNames(pipelines);
    const owner = new Map(owners.map((o) => [o.id, o.label]));
    return {
      state: 'ok',
      portal,
      contact: {
        id: found.id,
        name: `${p.firstname ?? ''} ${p.lastname ?? ''}`.trim() || (p.email ?? ''),
        email: p.email ?? '',
        leadStatus: p.hs_lead_status ?? '',
        company: company ? { id: company.id, name: company.properties.name ?? '' } : null,
      },
      deals: deals.map((d) => ({
        id: d.id,
        name: d.properties.dealname ?? '',
        stage: names.stage(d.properties.dealstage ?? ''),
        pipeline: names.pipeline(d.properties.pipeline ?? ''),
        closeDate: (d.properties.closedate ?? '').slice(0, 10),
        amount: d.properties.amount ?? '',
        owner: owner.get(d.properties.hubspot_owner_id ?? '') ?? '',
      })),
    };
  } catch (err) {
    if (err instanceof IntegrationError) return { state: 'error', message: err.message };
    throw err;
  }
}

const conversationContact = (accountId: number, conversationId: number) => crmContact({ accountId, conversationId, label: 'HubSpot' });
const note = (opts: { accountId: number; userId: number; conversationId: number; text: string; item: string }) => crmNote({ ...opts, provider: 'hubspot' });

const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'web.de',
]);

/**
 * Finds the HubSpot contact by email or creates it (names, phone, job title, lead status from Parley), then the
 * company by the email's domain (or the Parley company's), created when missing and made the contact's primary one.
 */
export async function findOrCreateHubspotContact(opts: { accountId: number; userId: number; conversationId: number; leadStatus: string | null }) {
  const { token } = await tokenFor(opts.accountId);
  const { contact, company } = await conversationContact(opts.accountId, opts.conversationId);
  const email = contact.email!;
  let hs = await findHubspotContact(token, email);
  const created = !hs;
  if (!hs) {
    const props: Record<string, string> = { email, firstname: contact.firstName, lastname: contact.lastName };
    if (contact.phone) props.phone = contact.phone;
    if (contact.title) props.jobtitle = contact.title;
    if (opts.leadStatus) props.hs_lead_status = opts.leadStatus;
    hs = await createHubspotObject(token, 'contacts', props);
  }
  const domain = (company?.domain ?? email.split('@')[1] ?? '').toLowerCase();
  let companyName: string | null = null;
  if (!hs.properties?.associatedcompanyid && domain && !FREE_MAIL.has(domain)) {
    const existing = await findHubspotCompany(token, domain);
    const hc = existing ?? (await createHubspotObject(token, 'companies', { name: company?.name ?? domain, domain }));
    await associateContactCompany(token, hs.id, hc.id);
    companyName = hc.properties?.name ?? domain;
  }
  const text = `${created ? 'Created' : 'Found'} HubSpot contact ${email}${companyName ? ` with company ${companyName}` : ''}`;
  await note({ ...opts, text, item: `contact:${hs.id}` });
  return { id: hs.id, created, text };
}

export async function hubspotDealChoices(opts: { accountId: number }) {
  const { token } = await tokenFor(opts.accountId);
  const [pipelines, owners] = await Promise.all([listHubspotPipelines(token), listHubspotOwners(token)]);
  return { pipelines, owners };
}

/** Creates a deal associated with the conversation's HubSpot contact (found or created first). */
export async function createHubspotDeal(opts: {
  accountId: number;
  userId: number;
  conversationId: number;
  dealName: string;
  pipeline: string;
  dealStage: string;
  closeDate: string | null;
  ownerId: string | null;
  amount: string | null;
}) {
  const { token } = await tokenFor(opts.accountId);
  const pipelines = await listHubspotPipelines(token);
  const pipeline = pipelines.find((p) => p.id === opts.pipeline);
  if (!pipeline) throw new IntegrationError('Choose a pipeline of this HubSpot account', 400);
  if (!pipeline.stages.some((s) => s.id === opts.dealStage)) throw new IntegrationError(`Choose a deal stage of the ${pipeline.label} pipeline`, 400);
  const { contact } = await conversationContact(opts.accountId, opts.conversationId);
  const hs = (await findHubspotContact(token, contact.email!)) ?? (await findOrCreateHubspotContact({ ...opts, leadStatus: null }).then((c) => ({ id: c.id })));
  const props: Record<string, string> = { dealname: opts.dealName, pipeline: opts.pipeline, dealstage: opts.dealStage };
  if (opts.closeDate) props.closedate = `${opts.closeDate}T12:00:00.000Z`;
  if (opts.ownerId) props.hubspot_owner_id = opts.ownerId;
  if (opts.amount) props.amount = opts.amount;
  const deal = await createHubspotObject(token, 'deals', props, [{ to: hs.id, typeId: ASSOC.dealToContact }]);
  await note({
    ...opts,
    text: `Created HubSpot deal ${opts.dealName} (${pipeline.label} · ${pipeline.stages.find((s) => s.id === opts.dealStage)!.label})`,
    item: `deal:${deal.id}`,
  });
  return deal;
}

/** The conversation's messages (no internal notes) as plain text, oldest first, capped. */
export async function conversationTranscript(opts: { accountId: number; conversationId: number; max?: number }) {
  const m = schema.messages;
  const rows = await getDb()
    .select({ kind: m.kind, text: m.text, createdAt: m.createdAt })
    .from(m)
    .where(and(eq(m.accountId, opts.accountId), eq(m.conversationId, opts.conversationId)))
    .orderBy(asc(m.createdAt), asc(m.id))
    .limit(opts.max ?? 200);
  return rows
    .filter((r) => r.kind === 'incoming' || r.kind === 'outgoing')
    .map((r) => `[${r.createdAt.toISOString().slice(0, 16).replace('T', ' ')}] ${r.kind === 'incoming' ? 'Customer' : 'Agent'}: ${r.text}`)
    .join('\n')
    .slice(0, 60_000);
}

/** Logs the conversation as a note (engagement) on the HubSpot contact, found or created first. */
export async function logConversationToHubspot(opts: { accountId: number; userId: number; conversationId: number; conversationUrl: string }) {
  const { token } = await tokenFor(opts.accountId);
  const { contact } = await conversationContact(opts.accountId, opts.conversationId);
  const hs = (await findHubspotContact(token, contact.email!)) ?? (await findOrCreateHubspotContact({ ...opts, leadStatus: null }).then((c) => ({ id: c.id })));
  const transcript = await conversationTranscript(opts);
  const body = `Parley conversation #${opts.conversationId} (${opts.conversationUrl})\n\n${transcript}`;
  const created = await createHubspotObject(token, 'notes', { hs_timestamp: new Date().toISOString(), hs_note_body: body }, [
    { to: hs.id, typeId: ASSOC.noteToContact },
  ]);
  await note({ ...opts, text: `Logged this conversation to HubSpot (note ${created.id})`, item: `note:${created.id}` });
  return created;
}
