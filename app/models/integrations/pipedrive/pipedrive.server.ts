import { disconnectIntegration, freshAccessToken, getOpenConnection, saveConnection, signIntegrationState, verifyIntegrationState, type OAuthAdapter, type OpenConnection } from '../connections.server';
import { IntegrationError } from '../http.server';
import { conversationContact as crmContact, crmNote } from '../crm.server';
import { conversationTranscript } from '../hubspot/hubspot.server';
import { ConnectRefusedError } from '../shopify/shopify.server';
import { hookFor } from '../task-hooks.server';
import {
  createPipedriveActivity,
  createPipedriveDeal,
  createPipedriveOrganization,
  deletePipedriveWebhook,
  createPipedrivePerson,
  exchangePipedriveCode,
  findPipedriveOrganization,
  findPipedrivePerson,
  listPipedrivePersonDeals,
  listPipedrivePipelines,
  listPipedriveUsers,
  pipedriveApiBase,
  pipedriveAuthorizeUrl,
  pipedriveMe,
  refreshPipedriveToken,
  revokePipedriveToken,
  type PdCtx,
} from './client.server';

/** Pipedrive (ADR 099): persons, organizations, deals and activities, read live through the company's api_domain. */
export const pipedriveAdapter: OAuthAdapter = {
  refresh: (refreshToken) => refreshPipedriveToken(refreshToken),
  revoke: async (conn) => {
    // The sync's person webhook goes first, while the token still works (ADR 116).
    const hook = hookFor(conn, PIPEDRIVE_SYNC_HOOK);
    if (hook) await deletePipedriveWebhook(await ctxOf(conn), hook.id).catch(() => undefined);
    if (conn.refreshToken) await revokePipedriveToken(conn.refreshToken);
  },
};

/** The connection's hook entry (ADR 100's map) for the contact sync's person webhook. */
export const PIPEDRIVE_SYNC_HOOK = 'contact-sync';

export function startPipedriveConnect(opts: { accountId: number; userId: number; redirectUri: string }) {
  return pipedriveAuthorizeUrl({ redirectUri: opts.redirectUri, state: signIntegrationState({ ...opts, provider: 'pipedrive' }) });
}

export async function finishPipedriveConnect(opts: { accountId: number; userId: number; params: URLSearchParams; redirectUri: string }) {
  if (!verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'pipedrive' })) throw new ConnectRefusedError('The Pipedrive sign-in link has expired or was not started here. Please connect again.');
  const tokens = await exchangePipedriveCode({ code: (opts.params.get('code') ?? '').slice(0, 512), redirectUri: opts.redirectUri });
  const base = pipedriveApiBase(tokens.apiDomain);
  const me = await pipedriveMe({ base, token: tokens.accessToken });
  return saveConnection({ accountId: opts.accountId, userId: opts.userId, provider: 'pipedrive', externalAccount: me.company_domain || String(me.company_id), tokens, settings: { apiDomain: tokens.apiDomain, companyName: me.company_name, user: me.name } });
}

export const disconnectPipedrive = (opts: { accountId: number; userId: number }) => disconnectIntegration({ ...opts, provider: 'pipedrive', adapter: pipedriveAdapter });

export const pipedriveCtx = (conn: OpenConnection) => ctxOf(conn);

async function ctxOf(conn: OpenConnection): Promise<PdCtx> {
  return { base: pipedriveApiBase(String(conn.settings.apiDomain ?? '')), token: await freshAccessToken(conn, pipedriveAdapter) };
}

async function ctxFor(accountId: number) {
  const conn = await getOpenConnection({ accountId, provider: 'pipedrive' });
  if (!conn) throw new IntegrationError('Pipedrive is not connected', 0);
  return ctxOf(conn);
}

export type PipedrivePanel =
  | { state: 'not-connected' }
  | { state: 'no-email' }
  | { state: 'error'; message: string }
  | {
      state: 'ok';
      company: string;
      person: { id: number; name: string; orgId: number | null; orgName: string } | null;
      deals: { id: number; title: string; value: string; status: string; pipeline: string; pipelineId: number; stage: string; stageId: number; user: string; userId: number | null; orgId: number | null; personId: number | null }[];
    };

export async function pipedrivePanelFor(opts: { accountId: number; email: string | null }): Promise<PipedrivePanel> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'pipedrive' }).catch((err) => (err instanceof Error ? err : null));
  if (!conn) return { state: 'not-connected' };
  if (conn instanceof Error) return { state: 'error', message: conn.message };
  if (!opts.email) return { state: 'no-email' };
  try {
    const ctx = await ctxOf(conn);
    const company = String(conn.settings.companyName || conn.externalAccount);
    const person = await findPipedrivePerson(ctx, opts.email);
    if (!person) return { state: 'ok', company, person: null, deals: [] };
    const [deals, pipelines] = await Promise.all([listPipedrivePersonDeals(ctx, person.id), listPipedrivePipelines(ctx)]);
    const pipeline = new Map(pipelines.map((p) => [p.id, p.name]));
    const stage = new Map(pipelines.flatMap((p) => p.stages.map((s) => [s.id, s.name] as const)));
    return {
      state: 'ok',
      company,
      person: { id: person.id, name: person.name, orgId: person.orgId, orgName: person.orgName },
      deals: deals.map((d) => ({
        id: d.id,
        title: d.title,
        value: d.value ? `${d.value} ${d.currency}` : '',
        status: d.status,
        pipeline: pipeline.get(d.pipelineId) ?? String(d.pipelineId),
        pipelineId: d.pipelineId,
        stage: stage.get(d.stageId) ?? String(d.stageId),
        stageId: d.stageId,
        user: d.userName,
        userId: d.userId,
        orgId: d.orgId,
        personId: d.personId,
      })),
    };
  } catch (err) {
    if (err instanceof IntegrationError) return { state: 'error', message: err.message };
    throw err;
  }
}

const conversationContact = (accountId: number, conversationId: number) => crmContact({ accountId, conversationId, label: 'Pipedrive' });
const note = (opts: { accountId: number; userId: number; conversationId: number; text: string; item: string }) => crmNote({ ...opts, provider: 'pipedrive' });

/** Finds the person by email or creates them, with the organization of the Parley company (found by name or created). */
export async function findOrCreatePipedrivePerson(opts: { accountId: number; userId: number; conversationId: number }) {
  const ctx = await ctxFor(opts.accountId);
  const { contact, company } = await conversationContact(opts.accountId, opts.conversationId);
  const found = await findPipedrivePerson(ctx, contact.email!);
  if (found) {
    await note({ ...opts, text: `Found Pipedrive person ${found.name} (person ID ${found.id})`, item: `person:${found.id}` });
    return { id: found.id, orgId: found.orgId };
  }
  let orgId: number | null = null;
  if (company?.name) orgId = ((await findPipedriveOrganization(ctx, company.name)) ?? (await createPipedriveOrganization(ctx, company.name))).id;
  const name = `${contact.firstName} ${contact.lastName}`.trim() || contact.email!;
  const person = await createPipedrivePerson(ctx, { name, email: contact.email!, phone: contact.phone, orgId });
  await note({ ...opts, text: `Created Pipedrive person ${name} (person ID ${person.id}${orgId ? `, organization ID ${orgId}` : ''})`, item: `person:${person.id}` });
  return { id: person.id, orgId };
}

async function personFor(opts: { accountId: number; userId: number; conversationId: number }, ctx: PdCtx) {
  const { contact } = await conversationContact(opts.accountId, opts.conversationId);
  const found = await findPipedrivePerson(ctx, contact.email!);
  return found ? { id: found.id, orgId: found.orgId } : findOrCreatePipedrivePerson(opts);
}

export async function pipedriveDealChoices(opts: { accountId: number }) {
  const ctx = await ctxFor(opts.accountId);
  const [pipelines, users] = await Promise.all([listPipedrivePipelines(ctx), listPipedriveUsers(ctx)]);
  return { pipelines, users };
}

export async function createPipedriveDealFromConversation(opts: { accountId: number; userId: number; conversationId: number; title: string; pipelineId: number; stageId: number; ownerId: number | null; value: string | null; closeDate: string | null; visibleTo?: number | null }) {
  const ctx = await ctxFor(opts.accountId);
  const pipelines = await listPipedrivePipelines(ctx);
  const pipeline = pipelines.find((p) => p.id === opts.pipelineId);
  if (!pipeline) throw new IntegrationError('Choose a pipeline of this Pipedrive company', 400);
  const stage = pipeline.stages.find((s) => s.id === opts.stageId);
  if (!stage) throw new IntegrationError(`Choose a stage of the ${pipeline.name} pipeline`, 400);
  const person = await personFor(opts, ctx);
  const deal = await createPipedriveDeal(ctx, { title: opts.title, personId: person.id, orgId: person.orgId, pipelineId: pipeline.id, stageId: stage.id, userId: opts.ownerId, value: opts.value, closeDate: opts.closeDate, visibleTo: opts.visibleTo ?? null });
  await note({ ...opts, text: `Created Pipedrive deal ${opts.title} (deal ID ${deal.id}, ${pipeline.name} · ${stage.name})`, item: `deal:${deal.id}` });
  return deal;
}

/** Logs the conversation as a done activity on the person (and their organization), with the transcript as its note. */
export async function logConversationToPipedrive(opts: { accountId: number; userId: number; conversationId: number; conversationUrl: string; subject: string }) {
  const ctx = await ctxFor(opts.accountId);
  const person = await personFor(opts, ctx);
  const transcript = await conversationTranscript(opts);
  const act = await createPipedriveActivity(ctx, { subject: `Parley conversation #${opts.conversationId}: ${opts.subject}`.slice(0, 250), personId: person.id, orgId: person.orgId, note: `${opts.conversationUrl}\n\n${transcript}` });
  await note({ ...opts, text: `Logged this conversation to Pipedrive (activity ID ${act.id})`, item: `activity:${act.id}` });
  return act;
}
