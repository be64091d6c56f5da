import { getConfig } from '../../../utils/env.server';
import { exchangeCode, refreshTokens, revokeToken, type OAuth2Provider, type OAuth2Tokens } from '../../../utils/oauth2.server';
import { IntegrationError, providerCall, tokenSet, viaOAuth } from '../http.server';
import type { TokenSet } from '../connections.server';

/**
 * Pipedrive's API v1 and its OAuth 2.0 authorization code grant (ADR 099): the token endpoint takes the client's
 * id and secret as HTTP Basic; the answer names the company's `api_domain`, where every API call goes with the
 * Bearer token. Only https://{company}.pipedrive.com is accepted as that domain (PIPEDRIVE_API_BASE in tests).
 */
export function pipedriveConfig() {
  const p = getConfig().integrations.pipedrive;
  if (!p) throw new IntegrationError('Pipedrive is not set up on this server (PIPEDRIVE_CLIENT_ID and PIPEDRIVE_CLIENT_SECRET)', 0);
  return p;
}

export function pipedriveAuthorizeUrl(opts: { redirectUri: string; state: string }) {
  const params = new URLSearchParams({ client_id: pipedriveConfig().clientId, redirect_uri: opts.redirectUri, state: opts.state });
  return `${pipedriveConfig().oauthBase}/oauth/authorize?${params}`;
}

export type PipedriveTokens = TokenSet & { apiDomain: string };

/** Pipedrive's token and revocation endpoints take the client as HTTP Basic; the answer names the company's api_domain. */
const pipedriveOAuth = (): OAuth2Provider => {
  const p = pipedriveConfig();
  return {
    name: 'Pipedrive',
    authorizeUrl: `${p.oauthBase}/oauth/authorize`,
    tokenUrl: `${p.oauthBase}/oauth/token`,
    revokeUrl: `${p.oauthBase}/oauth/revoke`,
    clientId: p.clientId,
    clientSecret: p.clientSecret,
    clientAuth: 'basic',
  };
};

const withDomain = (t: OAuth2Tokens): PipedriveTokens => ({ ...tokenSet(t), apiDomain: typeof t.raw.api_domain === 'string' ? t.raw.api_domain : '' });

export const exchangePipedriveCode = async (opts: { code: string; redirectUri: string }) => withDomain(await viaOAuth(() => exchangeCode(pipedriveOAuth(), opts)));
export const refreshPipedriveToken = async (refreshToken: string) => withDomain(await viaOAuth(() => refreshTokens(pipedriveOAuth(), { refreshToken })));
export async function revokePipedriveToken(refreshToken: string) {
  await viaOAuth(() => revokeToken(pipedriveOAuth(), { token: refreshToken, hint: 'refresh_token' }));
}

/** The base every API call goes to: the configured one, or the company's api_domain when it is a pipedrive.com host. */
export function pipedriveApiBase(apiDomain: string) {
  const configured = pipedriveConfig().apiBase;
  if (configured) return configured;
  const d = apiDomain.replace(/\/+$/, '');
  if (!/^https:\/\/[a-z0-9-]+\.pipedrive\.com$/i.test(d)) throw new IntegrationError('Pipedrive named an API address that is not a pipedrive.com address', 0);
  return d;
}

export type PdCtx = { base: string; token: string };
async function api<T>(ctx: PdCtx, path: string, init: { method?: string; json?: unknown } = {}) {
  const res = await providerCall('Pipedrive', `${ctx.base}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${ctx.token}` } });
  return ((res.body as { data?: T })?.data ?? null) as T | null;
}

type Ref = { id?: number; value?: number; name?: string } | number | null;
const refId = (r: Ref) => (r === null || r === undefined ? null : typeof r === 'number' ? r : (r.value ?? r.id ?? null));
const refName = (r: Ref) => (r && typeof r === 'object' ? (r.name ?? '') : '');

/** API v2 (persons with first_name, last_name, emails[], phones[] and an ISO update_time): what the sync reads and writes. */
async function apiV2<T>(ctx: PdCtx, path: string, init: { method?: string; json?: unknown } = {}) {
  const res = await providerCall('Pipedrive', `${ctx.base}/api/v2${path}`, { ...init, headers: { authorization: `Bearer ${ctx.token}` } });
  return ((res.body as { data?: T })?.data ?? null) as T | null;
}

export async function pipedriveMe(ctx: PdCtx) {
  const me = await api<{ id: number; name: string; company_id: number; company_name: string; company_domain: string }>(ctx, '/users/me');
  if (!me) throw new IntegrationError('Pipedrive did not say who the token is for', 0);
  return me;
}

export type PdPerson = { id: number; name: string; email: string; orgId: number | null; orgName: string };
export async function findPipedrivePerson(ctx: PdCtx, email: string): Promise<PdPerson | null> {
  const q = new URLSearchParams({ term: email, fields: 'email', exact_match: 'true', limit: '1' });
  const data = await api<{ items?: { item: { id: number; name: string; emails?: string[]; organization?: { id: number; name: string } | null } }[] }>(ctx, `/persons/search?${q}`);
  const it = data?.items?.[0]?.item;
  if (!it) return null;
  return { id: it.id, name: it.name, email, orgId: it.organization?.id ?? null, orgName: it.organization?.name ?? '' };
}

export async function findPipedriveOrganization(ctx: PdCtx, name: string) {
  const q = new URLSearchParams({ term: name, fields: 'name', exact_match: 'true', limit: '1' });
  const data = await api<{ items?: { item: { id: number; name: string } }[] }>(ctx, `/organizations/search?${q}`);
  return data?.items?.[0]?.item ?? null;
}

export async function createPipedriveOrganization(ctx: PdCtx, name: string) {
  const org = await api<{ id: number; name: string }>(ctx, '/organizations', { method: 'POST', json: { name } });
  if (!org) throw new IntegrationError('Pipedrive did not create the organization', 0);
  return org;
}

export async function createPipedrivePerson(ctx: PdCtx, p: { name: string; email: string; phone: string | null; orgId: number | null }) {
  const person = await api<{ id: number; name: string }>(ctx, '/persons', {
    method: 'POST',
    json: { name: p.name, email: [{ value: p.email, primary: true, label: 'work' }], ...(p.phone ? { phone: [{ value: p.phone, primary: true, label: 'work' }] } : {}), ...(p.orgId ? { org_id: p.orgId } : {}) },
  });
  if (!person) throw new IntegrationError('Pipedrive did not create the person', 0);
  return person;
}

export type PdDeal = { id: number; title: string; value: number; currency: string; status: string; stageId: number; pipelineId: number; userId: number | null; userName: string; orgId: number | null; personId: number | null; closeDate: string };
export async function listPipedrivePersonDeals(ctx: PdCtx, personId: number): Promise<PdDeal[]> {
  const data = await api<Record<string, unknown>[]>(ctx, `/persons/${personId}/deals?status=all_not_deleted&limit=20`);
  return (data ?? []).map((d) => ({
    id: Number(d.id),
    title: String(d.title ?? ''),
    value: Number(d.value ?? 0),
    currency: String(d.currency ?? ''),
    status: String(d.status ?? ''),
    stageId: Number(d.stage_id),
    pipelineId: Number(d.pipeline_id),
    userId: refId(d.user_id as Ref),
    userName: refName(d.user_id as Ref),
    orgId: refId(d.org_id as Ref),
    personId: refId(d.person_id as Ref),
    closeDate: String(d.expected_close_date ?? ''),
  }));
}

export async function listPipedrivePipelines(ctx: PdCtx) {
  const [pipelines, stages] = await Promise.all([api<{ id: number; name: string }[]>(ctx, '/pipelines'), api<{ id: number; name: string; pipeline_id: number }[]>(ctx, '/stages')]);
  return (pipelines ?? []).map((p) => ({ id: p.id, name: p.name, stages: (stages ?? []).filter((s) => s.pipeline_id === p.id).map((s) => ({ id: s.id, name: s.name })) }));
}

export async function listPipedriveUsers(ctx: PdCtx) {
  return ((await api<{ id: number; name: string; active_flag: boolean }[]>(ctx, '/users')) ?? []).filter((u) => u.active_flag !== false).map((u) => ({ id: u.id, name: u.name }));
}

export async function createPipedriveDeal(ctx: PdCtx, d: { title: string; personId: number; orgId: number | null; pipelineId: number; stageId: number; userId: number | null; value: string | null; closeDate: string | null; visibleTo?: number | null }) {
  const deal = await api<{ id: number; title: string }>(ctx, '/deals', {
    method: 'POST',
    json: {
      title: d.title,
      person_id: d.personId,
      ...(d.orgId ? { org_id: d.orgId } : {}),
      pipeline_id: d.pipelineId,
      stage_id: d.stageId,
      ...(d.userId ? { user_id: d.userId } : {}),
      ...(d.value ? { value: d.value } : {}),
      ...(d.closeDate ? { expected_close_date: d.closeDate } : {}),
      ...(d.visibleTo ? { visible_to: String(d.visibleTo) } : {}),
    },
  });
  if (!deal) throw new IntegrationError('Pipedrive did not create the deal', 0);
  return deal;
}

export async function createPipedriveActivity(ctx: PdCtx, a: { subject: string; personId: number; orgId: number | null; note: string }) {
  const act = await api<{ id: number }>(ctx, '/activities', { method: 'POST', json: { subject: a.subject, type: 'email', done: 1, person_id: a.personId, ...(a.orgId ? { org_id: a.orgId } : {}), note: a.note } });
  if (!act) throw new IntegrationError('Pipedrive did not create the activity', 0);
  return act;
}

/** A person as API v2 (and webhooks v2) give it. */
export type PdPersonV2 = { id: number; name: string; first_name: string | null; last_name: string | null; emails?: { value: string; primary?: boolean }[]; phones?: { value: string; primary?: boolean }[]; update_time?: string | null };

export const getPipedrivePersonV2 = (ctx: PdCtx, id: number) => apiV2<PdPersonV2>(ctx, `/persons/${id}`);

export async function updatePipedrivePersonV2(ctx: PdCtx, id: number, fields: Record<string, unknown>) {
  const person = await apiV2<PdPersonV2>(ctx, `/persons/${id}`, { method: 'PATCH', json: fields });
  if (!person) throw new IntegrationError('Pipedrive did not update the person', 0);
  return person;
}

export async function createPipedrivePersonV2(ctx: PdCtx, fields: Record<string, unknown>) {
  const person = await apiV2<PdPersonV2>(ctx, '/persons', { method: 'POST', json: fields });
  if (!person) throw new IntegrationError('Pipedrive did not create the person', 0);
  return person;
}

/**
 * A webhook (v2 payloads) for changed persons, with the HTTP Basic credentials Pipedrive is to send with each
 * delivery (Pipedrive does not sign webhooks; the credentials Parley generated are the proof).
 */
export async function createPipedriveWebhook(ctx: PdCtx, w: { url: string; user: string; password: string }) {
  const hook = await api<{ id: number }>(ctx, '/webhooks', {
    method: 'POST',
    json: { subscription_url: w.url, event_action: 'change', event_object: 'person', http_auth_user: w.user, http_auth_password: w.password, version: '2.0' },
  });
  if (!hook) throw new IntegrationError('Pipedrive did not create the webhook', 0);
  return hook;
}

export async function deletePipedriveWebhook(ctx: PdCtx, id: string) {
  await api(ctx, `/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
