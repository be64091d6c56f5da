import { getLogger } from '../../../utils/logger.server';
import { integrationsInPlan, PLAN_IGNORED } from '../plan.server';
import {
  disconnectIntegration,
  freshAccessToken,
  getOpenConnection,
  getOpenConnectionById,
  saveConnection,
  signIntegrationState,
  updateConnectionSettings,
  verifyIntegrationState,
  type OAuthAdapter,
  type OpenConnection,
} from '../connections.server';
import { IntegrationError } from '../http.server';
import { closeLinkedItem, reopenLinkedItem } from '../links.server';
import { connectedTaskProvider, hookAndLinkTask, linkExistingTask, taskLinksPanel, type TaskSource } from '../task-providers.server';
import { ConnectRefusedError } from '../shopify/shopify.server';
import { hookById, hookFor, reloadHooks, saveHook } from '../task-hooks.server';
import {
  clickupAuthorizeUrl,
  clickupTeams,
  clickupUser,
  createClickupTask,
  createClickupWebhook,
  deleteClickupWebhook,
  exchangeClickupCode,
  getClickupTask,
  isClosedType,
  isListId,
  isTaskId,
  listClickupLists,
  listClickupSpaces,
  verifyClickupSignature,
  type ClickupTask,
} from './client.server';

/**
 * ClickUp (ADR 100): tasks created in a list or linked from conversations; a status change to a closed status notes
 * (and can reopen) them. Tokens do not expire and cannot be revoked through the API: disconnect deletes Parley's
 * webhooks at ClickUp, then the token here.
 */
export const clickupAdapter: OAuthAdapter = {
  revoke: async (conn) => {
    for (const [, e] of Object.entries((conn.settings?.hooks ?? {}) as Record<string, { id?: string }>))
      if (e.id) await deleteClickupWebhook(conn.accessToken, e.id);
  },
};

export type ClickupSettings = { teams: { id: string; name: string }[]; defaultTeam: string; defaultSpace: string; defaultList: string; reopenOnClose: boolean };

export function clickupSettings(raw: Record<string, unknown> | undefined): ClickupSettings {
  return {
    teams: Array.isArray(raw?.teams)
      ? (raw.teams as { id?: unknown; name?: unknown }[]).map((t) => ({ id: String(t.id ?? ''), name: String(t.name ?? '') }))
      : [],
    defaultTeam: typeof raw?.defaultTeam === 'string' ? raw.defaultTeam : '',
    defaultSpace: typeof raw?.defaultSpace === 'string' ? raw.defaultSpace : '',
    defaultList: typeof raw?.defaultList === 'string' ? raw.defaultList : '',
    reopenOnClose: raw?.reopenOnClose === true,
  };
}

export function startClickupConnect(opts: { accountId: number; userId: number; redirectUri: string }) {
  return clickupAuthorizeUrl({ redirectUri: opts.redirectUri, state: signIntegrationState({ ...opts, provider: 'clickup' }) });
}

export async function finishClickupConnect(opts: { accountId: number; userId: number; params: URLSearchParams }) {
  if (!verifyIntegrationState(opts.params.get('state') ?? '', { ...opts, provider: 'clickup' }))
    throw new ConnectRefusedError('The ClickUp sign-in link has expired or was not started here. Please connect again.');
  const tokens = await exchangeClickupCode({ code: (opts.params.get('code') ?? '').slice(0, 512) });
  const [user, teams] = await Promise.all([clickupUser(tokens.accessToken), clickupTeams(tokens.accessToken)]);
  const previous = await getOpenConnection({ accountId: opts.accountId, provider: 'clickup' }).catch(() => null);
  // A new token does not own the previous token's webhooks: they are set up again as tasks are linked.
  const settings = { ...clickupSettings(previous?.settings), teams: teams.slice(0, 50), hooks: {} };
  return saveConnection({
    accountId: opts.accountId,
    userId: opts.userId,
    provider: 'clickup',
    externalAccount: user.email || user.username,
    tokens,
    settings,
  });
}

export const disconnectClickup = (opts: { accountId: number; userId: number }) =>
  disconnectIntegration({ ...opts, provider: 'clickup', adapter: clickupAdapter });

export async function saveClickupSettings(opts: { accountId: number; defaultTeam?: string; defaultSpace?: string; defaultList: string; reopenOnClose: boolean }) {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'clickup' });
  if (!conn) throw new IntegrationError('ClickUp is not connected', 0);
  return updateConnectionSettings({
    accountId: opts.accountId,
    provider: 'clickup',
    settings: { ...conn.settings, defaultTeam: opts.defaultTeam ?? '', defaultSpace: opts.defaultSpace ?? '', defaultList: opts.defaultList, reopenOnClose: opts.reopenOnClose },
  });
}

export const clickupWebhookUrl = (publicBase: string, connectionId: number) => `${publicBase}/webhooks/integrations/clickup/${connectionId}`;

/** One webhook per Workspace (team) for taskStatusUpdated, created the first time a task of it is linked. */
async function hookTeam(conn: OpenConnection, token: string, teamId: string, publicBase: string) {
  if (!teamId || hookFor(await reloadHooks(conn), `team:${teamId}`)) return;
  const hook = await createClickupWebhook(token, { teamId, endpoint: clickupWebhookUrl(publicBase, conn.id) });
  await saveHook(conn, { resource: `team:${teamId}`, id: hook.id, secret: hook.secret });
}

const statusOf = (t: ClickupTask) => (t.closed ? 'closed' : 'open');

type Who = { accountId: number; userId: number; conversationId: number; reopenOnClose: boolean; publicBase: string };

/** ClickUp's calls for the shared task steps (task-providers.server.ts). */
const clickupTasks: TaskSource<ClickupTask> = {
  provider: 'clickup',
  label: 'ClickUp',
  adapter: clickupAdapter,
  parseRef: (ref) => parseClickupTaskRef(ref),
  get: getClickupTask,
  view: (t) => ({ id: t.id, title: t.name, url: t.url, status: statusOf(t) }),
  hook: (conn, token, t, publicBase) => hookTeam(conn, token, t.teamId, publicBase),
};

export async function createClickupTaskFromConversation(
  opts: Who & { listId: string; name: string; description: string; assignee: number | null; conversationUrl: string },
) {
  if (!isListId(opts.listId)) throw new IntegrationError('List must be a ClickUp list ID (digits)', 400);
  const { conn, token } = await connectedTaskProvider(clickupTasks, opts.accountId);
  const description = `${opts.description.trim()}\n\n---\nFrom Parley conversation #${opts.conversationId}: ${opts.conversationUrl}`;
  const task = await createClickupTask(token, { listId: opts.listId, name: opts.name, description, assignee: opts.assignee });
  return hookAndLinkTask(clickupTasks, { ...opts, conn, token, task, created: true });
}

/** A task id, or a task's ClickUp address (app.clickup.com/t/{id} or …/t/{team}/{id}). */
export function parseClickupTaskRef(input: string) {
  const v = input.trim().replace(/^#/, '');
  if (isTaskId(v) && !v.includes('/')) return v;
  const m = /^https:\/\/app\.clickup\.com\/t\/(?:\d+\/)?([A-Za-z0-9_-]{1,40})\/?(?:[?#].*)?$/.exec(v);
  return m ? m[1] : null;
}

export const linkClickupTask = (opts: Who & { ref: string }) => linkExistingTask(clickupTasks, opts);

export async function clickupPanelFor(opts: { accountId: number; conversationId: number; refresh?: boolean }) {
  const p = await taskLinksPanel(clickupTasks, opts);
  if (!p) return { connected: false as const };
  const s = clickupSettings(p.conn.settings);
  return { connected: true as const, account: p.conn.externalAccount, defaultList: s.defaultList, reopenOnClose: s.reopenOnClose, links: p.links, error: p.error };
}

export type ClickupPicker = {
  teams: { id: string; name: string }[];
  team: string;
  spaces: { id: string; name: string }[];
  space: string;
  lists: { id: string; name: string }[];
  error: string | null;
};

/**
 * The list picker (ADR 118): Workspaces (from the connection), the chosen Workspace's Spaces and the chosen Space's
 * lists, read at ClickUp when the page is shown; one choice is taken without asking. A failed read is said on the
 * page; a list's ID typed by hand still works.
 */
export async function clickupListPicker(opts: { accountId: number; team: string | null; space: string | null }): Promise<ClickupPicker | null> {
  const conn = await getOpenConnection({ accountId: opts.accountId, provider: 'clickup' }).catch(() => null);
  if (!conn) return null;
  const s = clickupSettings(conn.settings);
  const pick = (wanted: string | null, fallback: string, options: { id: string }[]) =>
    wanted && options.some((o) => o.id === wanted) ? wanted : options.some((o) => o.id === fallback) ? fallback : options.length === 1 ? options[0].id : '';
  const out: ClickupPicker = { teams: s.teams, team: pick(opts.team, s.defaultTeam, s.teams), spaces: [], space: '', lists: [], error: null };
  try {
    const token = await freshAccessToken(conn, clickupAdapter);
    if (out.team) out.spaces = await listClickupSpaces(token, out.team);
    out.space = pick(opts.space, out.team === s.defaultTeam ? s.defaultSpace : '', out.spaces);
    if (out.space) out.lists = await listClickupLists(token, out.space);
  } catch (err) {
    if (!(err instanceof IntegrationError)) throw err;
    out.error = err.message;
  }
  return out;
}

type StatusItem = { field?: string; after?: { status?: string; type?: string } | null; user?: { username?: string } | null };

/**
 * POST /webhooks/integrations/clickup/{connectionId}: taskStatusUpdated deliveries signed X-Signature with the secret
 * of the webhook named in the body. A move to a closed status notes every linked conversation (and reopens where
 * chosen); a move back to an open one reopens the link. Unsigned, forged or unknown: refused, nothing changed.
 */
export async function handleClickupWebhook(opts: { connectionId: number; rawBody: string; headers: Headers }): Promise<{ status: number; text: string }> {
  const conn = await getOpenConnectionById({ id: opts.connectionId, provider: 'clickup' }).catch(() => null);
  if (!conn) return { status: 404, text: 'Unknown hook' };
  let payload: { event?: string; task_id?: string; webhook_id?: string; history_items?: StatusItem[] };
  try {
    payload = JSON.parse(opts.rawBody);
  } catch {
    return { status: 400, text: 'The body is not JSON' };
  }
  const hook = typeof payload.webhook_id === 'string' ? hookById(conn, payload.webhook_id) : null;
  if (!hook) return { status: 404, text: 'Unknown hook' };
  if (!verifyClickupSignature(opts.rawBody, opts.headers.get('x-signature'), hook.secret)) return { status: 401, text: 'The signature does not match' };
  if (!(await integrationsInPlan(conn.accountId))) return PLAN_IGNORED;
  if (payload.event !== 'taskStatusUpdated' || typeof payload.task_id !== 'string') return { status: 202, text: 'ignored event' };
  const item = (payload.history_items ?? []).find((h) => h.field === 'status');
  if (!item?.after) return { status: 202, text: 'no status change' };
  if (isClosedType(item.after.type)) {
    const links = await listLinkTitle(conn, payload.task_id);
    const n = await closeLinkedItem({
      accountId: conn.accountId,
      provider: 'clickup',
      externalId: payload.task_id,
      by: item.user?.username ?? '',
      label: `ClickUp task "${links}"`,
      verb: `moved to ${String(item.after.status ?? 'closed').slice(0, 60)}`,
    });
    return { status: 200, text: `${n} conversation(s)` };
  }
  await reopenLinkedItem({ accountId: conn.accountId, provider: 'clickup', externalId: payload.task_id });
  return { status: 200, text: 'reopened' };
}

/** The task's name as linked (ClickUp's status delivery does not carry it). */
async function listLinkTitle(conn: OpenConnection, taskId: string) {
  try {
    const token = await freshAccessToken(conn, clickupAdapter);
    return (await getClickupTask(token, taskId)).name.slice(0, 200);
  } catch (err) {
    getLogger().warn({ provider: 'clickup', err: (err as Error).message }, 'clickup task read failed');
    return taskId;
  }
}
